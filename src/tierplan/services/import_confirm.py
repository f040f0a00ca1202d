"""Confirming a previewed import: one transaction that writes its records and rows (refusing duplicates and
unconfirmed warnings), and undoing a batch."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlmodel import Session

from tierplan.db import history, jobs, links, repo
from tierplan.db.engine import Sessions
from tierplan.db.tables import ImportRecord, Intervention, Profile, ProfileKernel, ProfileShare, Regime, pk
from tierplan.models.errors import Conflicting, FormInvalid, NotFound
from tierplan.models.measurements import ImportRecordOut
from tierplan.planning import model as core
from tierplan.planning.baselines import newest_baselines
from tierplan.planning.checks import OTHER_SETUP, check_reading
from tierplan.services import snapshots
from tierplan.services.analysis import core_campaign
from tierplan.services.import_prototypes import write_runs
from tierplan.services.import_rows import LISTED, MeasurementRow, read_rows
from tierplan.services.imports import Preview, mark_duplicates, problem_line, reading_of
from tierplan.services.measurements import load_rows
from tierplan.services.snapshots import keep_snapshot


def batch_imported(session: Session, campaign_id: int, batch: str) -> bool:
    """Whether an import of this batch is stored already (a retried push)."""
    return bool(links.imports_of_batch(session, campaign_id=campaign_id, batch=batch))


def confirm_import(
    sessions: Sessions, campaign_id: int, preview: Preview, *, now: datetime, batch: str,
    measured_at: datetime | None = None, confirmed: bool = False, by: str = "", job_token: str = "",
    on_progress: Callable[[int], None] | None = None,
) -> list[ImportRecordOut]:
    """Write the previewed import in one transaction; refuses duplicates, unresolved rows and unconfirmed warnings.

    Its values are checked against the campaign before the write, a chunk at a time from the preview's rows
    file; the write then stores them a chunk at a time, holding the lock for the rows alone. Confirming the same
    batch again (a retried or doubled submit) writes nothing and returns what the first wrote. Whether a file is
    already imported is asked again under the campaign's lock: two previews of one file confirmed one after the
    other, or at once, store it once. `job_token`: the import job whose preview this is, marked imported in the
    same transaction. `on_progress`: called with the values stored so far."""
    if preview.campaign_id and preview.campaign_id != campaign_id:
        raise NotFound("this upload was previewed for another campaign")
    with sessions.reader() as session:
        done = links.imports_of_batch(session, campaign_id=campaign_id, batch=batch)
        if done:
            return _out(done)
        confirmations: dict[int, str] = {}
        if preview.prototype_of:  # the intervention's evidence: not checked against the regime's own runs
            if preview.needs_date and measured_at is None:
                raise FormInvalid({"measured_at": "the prototype's runs carry no date: give the time it was measured"})
        elif preview.kind == "measurements":
            confirmations = _settle(session, campaign_id, preview, now=now, measured_at=measured_at,
                                    confirmed=confirmed)
    with sessions.writer() as session:
        links.lock_campaign(session, campaign_id=campaign_id)
        done = links.imports_of_batch(session, campaign_id=campaign_id, batch=batch)
        if done:
            return _out(done)
        mark_duplicates(session, campaign_id, preview.files)
        duplicates = [f"{f.name} (same content as {f.duplicate_of})" for f in preview.files if f.duplicate_of]
        if duplicates:
            raise Conflicting({"files": "already imported, so not counted twice: " + "; ".join(duplicates)})
        if preview.problems:
            raise Conflicting({"regime": preview.problems[0]})
        regimes = {r.name: r for r in repo.regimes_of(session, campaign_id=campaign_id)}
        for added in preview.new_regimes:
            if added["name"] not in regimes:
                regime = Regime(campaign_id=campaign_id, workload_provenance=core.Provenance.ASSUMED,
                                target_provenance=core.Provenance.ASSUMED,
                                notes=f"added by the import of {', '.join(f.name for f in preview.files)}"[:2000],
                                **added)
                session.add(regime)
                regimes[regime.name] = regime
        if preview.new_regimes:
            session.flush()
        records = [
            ImportRecord(campaign_id=campaign_id, batch=batch, file_name=f.name, sha256=f.sha256, format=f.format,
                         size_bytes=f.size_bytes, imported_at=now, summary=_summary(preview))
            for f in preview.files
        ]
        session.add_all(records)
        session.flush()
        if preview.prototype_of and preview.kind == "measurements":
            write_runs(session, campaign_id, preview.prototype_of, preview.rows_path, records, regimes, measured_at,
                       now)
        elif preview.kind == "measurements":
            _write_measurements(session, campaign_id, preview, records, regimes, confirmations, by, measured_at,
                                on_progress)
        else:
            _write_profile(session, preview, records[0], regimes, now)
        if job_token:
            jobs.mark_imported(session.connection(), token=job_token)
        keep_snapshot(session, campaign_id, f"imported {', '.join(f.name for f in preview.files)}: {_summary(preview)}",
                      now=now, by=by)
        session.commit()
    snapshots.settle_soon(sessions, campaign_id)
    return _out(records)


def _out(records: list[ImportRecord]) -> list[ImportRecordOut]:
    return [ImportRecordOut.model_validate(r) for r in records]


def _dated(row: MeasurementRow, measured_at: datetime | None) -> MeasurementRow:
    if not row.measured_at and measured_at is not None:
        row.measured_at = measured_at.isoformat()
    return row


def _settle(session: Session, campaign_id: int, preview: Preview, *, now: datetime, measured_at: datetime | None,
            confirmed: bool) -> dict[int, str]:
    """Date the undated rows and run the checks again on what will be written (a chunk at a time); the warnings
    confirmed, by the row's place in the rows file."""
    if preview.needs_date and measured_at is None:
        undated = sorted({m.where.split(", ")[0] for m in preview.measurements if not m.measured_at})
        raise FormInvalid({"measured_at": f"{', '.join(undated) or 'some runs'} carr{'ies' if len(undated) < 2 else 'y'} "
                                          "no date: give the time it was measured"})
    campaign, _, _ = core_campaign(load_rows(session, campaign_id))
    baselines = newest_baselines(campaign.measurements)
    confirmations: dict[int, str] = {}
    warnings: list[str] = []
    position = 0
    for chunk in read_rows(preview.rows_path):
        for row in chunk:
            found = check_reading(reading_of(_dated(row, measured_at), now, preview.measurement_kind), campaign, now=now,
                                  baselines=baselines)
            errors = [p for p in found if not p.confirmable]
            if errors:
                message = problem_line(row, errors[0].message)
                raise FormInvalid({"measured_at" if "future" in message else "files": message})
            if found:
                confirmations[position] = "; ".join(p.message for p in found)
                if len(warnings) < LISTED:
                    warnings += [problem_line(row, p.message) for p in found]
            position += 1
    if confirmations and not confirmed:
        more = len(confirmations) - len(warnings)
        raise Conflicting({"confirm": "; ".join(warnings) + (f"; and {more:,} more" if more > 0 else "")},
                          confirmable=True)
    return confirmations


def _write_measurements(session: Session, campaign_id: int, preview: Preview, records: list[ImportRecord],
                        regimes: dict[str, Regime], confirmations: dict[int, str], by: str,
                        measured_at: datetime | None, on_progress: Callable[[int], None] | None) -> None:
    """The rows file's values a chunk at a time: a multi-row INSERT each (thousands of runs confirm in seconds),
    and their place in the history's summaries; the import records' flush before has moved the plan revision."""
    by_file = {f.name: r for f, r in zip(preview.files, records, strict=False)}
    by_key = {i.key: pk(i) for i in repo.interventions_of(session, campaign_id=campaign_id)}
    # a file that names another model, GPU or engine: every run of it says so (calibration pairs none of them)
    setup = "; ".join(f"{OTHER_SETUP}: {w}" for w in preview.setup_warnings)
    position = 0
    rebuild: set[int] = set()  # regimes whose measured changes are found again once every chunk is in
    for chunk in read_rows(preview.rows_path):
        values: list[dict[str, Any]] = []
        for row in chunk:
            row = _dated(row, measured_at)
            values.append({
                "regime_id": regimes[row.regime].id, "metric": row.metric, "value": row.value, "unit": row.unit,
                "measured_at": datetime.fromisoformat(row.measured_at), "provenance": "imported",
                "source": f"import: {row.where}"[:300], "note": row.note,
                "import_id": by_file[row.where.split(", ")[0]].id, "kind": preview.measurement_kind,
                "confirmed": "; ".join(c for c in (confirmations.get(position, ""), setup) if c)[:2000],
                "recorded_by": by,
                "includes_key": history.includes_key(by_key[k] for k in row.includes if k in by_key)})
            position += 1
        ids = history.insert_runs(session, values)
        links = [{"measurement_id": measurement_id, "intervention_id": by_key[k]}
                 for measurement_id, row in zip(ids, chunk, strict=True) for k in row.includes if k in by_key]
        history.insert_includes(session, links)
        history.added(session, [history.Run(i, v["regime_id"], v["metric"], v["kind"], v["includes_key"],
                                            v["measured_at"], v["value"]) for i, v in zip(ids, values, strict=True)],
                      later=rebuild)
        if on_progress is not None:
            on_progress(len(values))
    history.rebuild_changes(session, sorted(rebuild))


def _write_profile(session: Session, preview: Preview, record: ImportRecord, regimes: dict[str, Regime],
                   now: datetime) -> None:
    draft = core.need(preview.draft, "the previewed profile")
    prototype_of = None
    if draft.prototype_of:
        found = links.find_by(session, table=Intervention, campaign_id=regimes[preview.regime].campaign_id,
                              column="key", value=draft.prototype_of)
        if not found:  # deleted between the preview and the confirm
            raise FormInvalid({"prototype_of": f"no intervention {draft.prototype_of!r} any more: preview again"})
        prototype_of = pk(found[0])
    profile = Profile(
        regime_id=pk(regimes[preview.regime]), created_at=now, import_id=record.id, intervention_id=prototype_of,
        source=f"import of {', '.join(f.name for f in preview.files)}: {preview.how}"[:300],
        step_ms=draft.step_ms if draft.gpu_items else None, gpu_items=draft.gpu_items,
        host_launches=draft.host_launches, gpu_gap_us=draft.gpu_gap_us, gap_measured=draft.gap_measured,
        gpu_busy_ms=draft.gpu_busy_ms, trace_idle_ms=draft.trace_idle_ms, host_busy_ms=draft.host_busy_ms,
        steps=draft.steps,
        passes=draft.passes_text(), device=", ".join(draft.devices)[:200],
    )
    session.add(profile)
    session.flush()
    session.add_all(ProfileShare(profile_id=pk(profile), bucket=b, share=s, provenance="imported")
                    for b, s in preview.shares)
    session.add_all(ProfileKernel(profile_id=pk(profile), name=name, bucket=bucket, fraction=fraction,
                                  calls_a_step=calls or None, launch=draft.launch.get(name, "")[:300],
                                  blocks_per_sm=draft.blocks_per_sm.get(name))
                    for name, bucket, fraction, calls in draft.kernels)


def _summary(preview: Preview) -> str:
    if preview.prototype_of:
        return f"the benchmark of a prototype of {preview.prototype_of}"
    if preview.kind == "measurements":
        return f"{preview.measurement_count:,} measurements ({preview.measurement_kind})"
    return f"profile of {preview.regime}: " + ", ".join(f"{b} {s * 100:.0f}%" for b, s in preview.shares[:4])


def undo_import(session: Session, campaign_id: int, batch: str, *, now: datetime, by: str = "") -> int:
    """Delete every file of an import batch and all it wrote (cascade); returns the files removed."""
    records = links.imports_of_batch(session, campaign_id=campaign_id, batch=batch)
    if not records:
        raise NotFound(f"no import {batch!r} in campaign {campaign_id}")
    names = ", ".join(r.file_name for r in records)
    regime_ids = links.regimes_of_imports(session, import_ids=[pk(r) for r in records])
    for record in records:
        session.delete(record)
    session.flush()
    history.rebuild(session, regime_ids)
    keep_snapshot(session, campaign_id, f"import of {names} undone", now=now, by=by)
    session.commit()
    return len(records)


def imports_of(session: Session, campaign_id: int) -> list[ImportRecordOut]:
    """Every imported file of the campaign, newest first."""
    return _out(links.imports_of(session, campaign_id=campaign_id))
