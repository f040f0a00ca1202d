"""Confirming a previewed import: one transaction that writes its records and rows (refusing duplicates and
unconfirmed warnings), and undoing a batch."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert
from sqlmodel import Session, col

from app.db import jobs, links, repo
from app.db.tables import ImportRecord, Measurement, MeasurementInclude, Profile, ProfileShare, Regime, pk
from app.planning import model as core
from app.services.errors import FormInvalid, NotFound
from app.services.imports import INSERT_CHUNK, Preview, mark_duplicates, problem_line, reading_of
from app.services.measurements import load_rows, problems_of
from app.services.snapshots import keep_snapshot


def batch_imported(session: Session, campaign_id: int, batch: str) -> bool:
    """Whether an import of this batch is stored already (a retried push)."""
    return bool(links.imports_of_batch(session, campaign_id=campaign_id, batch=batch))


def confirm_import(
    session: Session, campaign_id: int, preview: Preview, *, now: datetime, batch: str,
    measured_at: datetime | None = None, confirmed: bool = False, by: str = "", job_token: str = "",
) -> list[ImportRecord]:
    """Write the previewed import in one transaction; refuses duplicates, unresolved rows and unconfirmed warnings.

    Confirming the same batch again (a retried or doubled submit) writes nothing and returns what the first wrote.
    Whether a file is already imported is asked again here, under the campaign's lock: two previews of one file
    confirmed one after the other, or at once, store it once. `job_token`: the import job whose preview this is,
    marked imported in the same transaction."""
    if preview.campaign_id and preview.campaign_id != campaign_id:
        raise NotFound("this upload was previewed for another campaign")
    links.lock_campaign(session, campaign_id=campaign_id)
    done = links.imports_of_batch(session, campaign_id=campaign_id, batch=batch)
    if done:
        return done
    mark_duplicates(session, campaign_id, preview.files)
    duplicates = [f"{f.name} (same content as {f.duplicate_of})" for f in preview.files if f.duplicate_of]
    if duplicates:
        raise FormInvalid({"files": "already imported, so not counted twice: " + "; ".join(duplicates)})
    if preview.problems:
        raise FormInvalid({"regime": preview.problems[0]})
    regimes = {r.name: r for r in repo.regimes_of(session, campaign_id=campaign_id)}
    for added in preview.new_regimes:
        if added["name"] not in regimes:
            regime = Regime(campaign_id=campaign_id, workload_provenance="assumed", target_provenance="assumed",
                            notes=f"added by the import of {', '.join(f.name for f in preview.files)}"[:2000],
                            **added)
            session.add(regime)
            regimes[regime.name] = regime
    if preview.new_regimes:
        session.flush()
    confirmations: list[str] = []
    if preview.kind == "measurements":
        confirmations = _settle(session, campaign_id, preview, now=now, measured_at=measured_at, confirmed=confirmed)
    try:
        records = [
            ImportRecord(campaign_id=campaign_id, batch=batch, file_name=f.name, sha256=f.sha256, format=f.format,
                         size_bytes=f.size_bytes, imported_at=now, summary=_summary(preview))
            for f in preview.files
        ]
        session.add_all(records)
        session.flush()
        if preview.kind == "measurements":
            _write_measurements(session, campaign_id, preview, records, regimes, confirmations, by)
        else:
            _write_profile(session, preview, records[0], regimes, now)
        if job_token:
            jobs.mark_imported(session.connection(), token=job_token)
        keep_snapshot(session, campaign_id, f"imported {', '.join(f.name for f in preview.files)}: {_summary(preview)}",
                      now=now, by=by)
        session.commit()
    except Exception:
        session.rollback()
        raise
    return records


def _settle(session, campaign_id: int, preview: Preview, *, now, measured_at, confirmed: bool) -> list[str]:
    """Date the undated rows and run the checks again on what will be written; the warnings confirmed, a row each."""
    for row in preview.measurements:
        if not row.measured_at and measured_at is not None:
            row.measured_at = measured_at.isoformat()
    undated = sorted({m.where.split(", ")[0] for m in preview.measurements if not m.measured_at})
    if undated:
        raise FormInvalid({"measured_at": f"{', '.join(undated)} carries no date: give the time it was measured"})
    readings = [reading_of(m, now, preview.measurement_kind) for m in preview.measurements]
    found = problems_of(load_rows(session, campaign_id, baselines_only=True), readings, now=now)
    errors = [problem_line(row, p.message) for row, ps in zip(preview.measurements, found, strict=False) for p in ps
              if not p.confirmable]
    if errors:
        raise FormInvalid({"measured_at" if "future" in errors[0] else "files": errors[0]})
    warnings = [problem_line(row, p.message)
                for row, ps in zip(preview.measurements, found, strict=False) for p in ps]
    if warnings and not confirmed:
        raise FormInvalid({"confirm": "; ".join(warnings)}, confirmable=True)
    return ["; ".join(p.message for p in ps) for ps in found]


def _write_measurements(session, campaign_id: int, preview: Preview, records, regimes, confirmations, by: str) -> None:
    """All rows in a few multi-row INSERTs (thousands of runs confirm in seconds, well inside the write lock's
    busy timeout); the import records' flush before has moved the plan revision."""
    by_file = {f.name: r for f, r in zip(preview.files, records, strict=False)}
    by_key = {i.key: pk(i) for i in repo.interventions_of(session, campaign_id=campaign_id)}
    values = [
        {"regime_id": regimes[row.regime].id, "metric": row.metric, "value": row.value, "unit": row.unit,
         "measured_at": datetime.fromisoformat(row.measured_at), "provenance": "imported",
         "source": f"import: {row.where}"[:300], "note": row.note, "import_id": by_file[row.where.split(", ")[0]].id,
         "kind": preview.measurement_kind, "confirmed": confirmed, "recorded_by": by}
        for row, confirmed in zip(preview.measurements, confirmations, strict=False)
    ]
    for start in range(0, len(values), INSERT_CHUNK):
        chunk = values[start:start + INSERT_CHUNK]
        ids = session.execute(insert(Measurement).returning(col(Measurement.id), sort_by_parameter_order=True),
                              chunk).scalars().all()
        links = [{"measurement_id": measurement_id, "intervention_id": by_key[k]}
                 for measurement_id, row in zip(ids, preview.measurements[start:start + INSERT_CHUNK], strict=True)
                 for k in row.includes if k in by_key]
        if links:
            session.execute(insert(MeasurementInclude), links)


def _write_profile(session, preview: Preview, record: ImportRecord, regimes, now: datetime) -> None:
    draft = core.need(preview.draft, "the previewed profile")
    profile = Profile(
        regime_id=pk(regimes[preview.regime]), created_at=now, import_id=record.id,
        source=f"import of {', '.join(f.name for f in preview.files)}: {preview.how}"[:300],
        step_ms=draft.step_ms if draft.gpu_items else None, gpu_items=draft.gpu_items,
        host_launches=draft.host_launches, gpu_gap_us=draft.gpu_gap_us, gap_measured=draft.gap_measured,
        gpu_busy_ms=draft.gpu_busy_ms, trace_idle_ms=draft.trace_idle_ms, steps=draft.steps,
        passes=draft.passes_text(), device=", ".join(draft.devices)[:200],
    )
    session.add(profile)
    session.flush()
    session.add_all(ProfileShare(profile_id=pk(profile), bucket=b, share=s, provenance="imported")
                    for b, s in preview.shares)


def _summary(preview: Preview) -> str:
    if preview.kind == "measurements":
        return f"{len(preview.measurements)} measurements ({preview.measurement_kind})"
    return f"profile of {preview.regime}: " + ", ".join(f"{b} {s * 100:.0f}%" for b, s in preview.shares[:4])


def undo_import(session: Session, campaign_id: int, batch: str, *, now: datetime, by: str = "") -> int:
    """Delete every file of an import batch and all it wrote (cascade); returns the files removed."""
    records = links.imports_of_batch(session, campaign_id=campaign_id, batch=batch)
    if not records:
        raise NotFound(f"no import {batch!r} in campaign {campaign_id}")
    names = ", ".join(r.file_name for r in records)
    for record in records:
        session.delete(record)
    keep_snapshot(session, campaign_id, f"import of {names} undone", now=now, by=by)
    session.commit()
    return len(records)


def imports_of(session: Session, campaign_id: int) -> list[ImportRecord]:
    return links.imports_of(session, campaign_id=campaign_id)
