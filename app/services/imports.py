"""Importing benchmark results and profiles: preview first, then one transaction, recorded and undoable."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session, col, select

from app.db import repo
from app.db.tables import ImportRecord, KernelRule, Measurement, Profile, ProfileShare, Regime
from app.importers import detect as formats
from app.importers.benchmarks import parse_console, parse_results_json
from app.importers.buckets import DEFAULT_RULES, bucket_kernels, step_shares
from app.importers.errors import ImportFileError
from app.importers.kernel_csv import ColumnMap, parse_generic, parse_nsys
from app.importers.records import BenchmarkRun, KernelSummary
from app.importers.torch_trace import parse_trace
from app.planning.metrics import metric_unit
from app.services.errors import FormInvalid, NotFound

PROFILE_FORMATS = {formats.TRACE, formats.NSYS, formats.KERNEL_CSV}
TOP_KERNELS = 25


@dataclass
class ImportOptions:
    regime: str | None = None  # benchmark results: this regime instead of matching by concurrency
    step_ms: float | None = None  # profiles: the measured step time
    steps: int | None = None  # profiles: how many steps the trace covers
    columns: ColumnMap | None = None  # generic kernel CSV


@dataclass
class FileInfo:
    name: str
    path: str
    sha256: str
    size_bytes: int
    format: str
    duplicate_of: str = ""  # "file.json, imported 2026-12-01 as batch ..." when already imported


@dataclass
class MeasurementRow:
    regime: str
    metric: str
    value: float
    unit: str
    measured_at: str  # ISO
    where: str  # "file.json, line 1"
    note: str


@dataclass
class Preview:
    kind: str  # "measurements" or "profile"
    files: list[FileInfo]
    measurements: list[MeasurementRow] = field(default_factory=list)
    regime: str = ""
    shares: list[tuple[str, float]] = field(default_factory=list)
    how: str = ""
    top_kernels: list[tuple[str, str, float, int, float]] = field(default_factory=list)  # name, bucket, us, n, share
    unmatched: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    spec_decode: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Preview:
        data = json.loads(text)
        data["files"] = [FileInfo(**f) for f in data["files"]]
        data["measurements"] = [MeasurementRow(**m) for m in data["measurements"]]
        return cls(**data)


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def rules_of(session: Session, campaign_id: int) -> list[tuple[str, str]]:
    stored = session.exec(
        select(KernelRule).where(KernelRule.campaign_id == campaign_id).order_by(col(KernelRule.position))
    ).all()
    return [(r.pattern, r.bucket) for r in stored] or list(DEFAULT_RULES)


def preview_import(
    session: Session, campaign_id: int, files: list[tuple[str, Path]], options: ImportOptions, *, now: datetime,
    on_progress=None,
) -> Preview:
    """Parse the files and say what an import would write; raises ImportFileError on a bad file."""
    if not files:
        raise FormInvalid({"files": "choose at least one file, or paste a summary block"})
    infos = []
    for name, path in files:
        with open(path, "rb") as handle:
            head = handle.read(formats.HEAD_BYTES)
        infos.append(FileInfo(name, str(path), sha256_of(path), path.stat().st_size, formats.detect(head, name)))
    _mark_duplicates(session, campaign_id, infos)
    kinds = {"profile" if i.format in PROFILE_FORMATS else "measurements" for i in infos}
    if len(kinds) > 1:
        raise FormInvalid({"files": "import benchmark results and profiles separately"})
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    if options.regime and options.regime not in {r.name for r in regimes}:
        raise FormInvalid({"regime": f"unknown regime {options.regime!r}"})
    if kinds == {"profile"}:
        return _profile_preview(session, campaign_id, infos, options, regimes, on_progress)
    return _measurement_preview(infos, options, regimes, now)


def _mark_duplicates(session: Session, campaign_id: int, infos: list[FileInfo]) -> None:
    seen: dict[str, str] = {}
    for info in infos:
        earlier = session.exec(
            select(ImportRecord).where(ImportRecord.campaign_id == campaign_id, ImportRecord.sha256 == info.sha256)
        ).first()
        if earlier is not None:
            info.duplicate_of = f"{earlier.file_name}, imported {earlier.imported_at:%Y-%m-%d %H:%M} UTC"
        elif info.sha256 in seen:
            info.duplicate_of = f"{seen[info.sha256]}, in this same upload"
        seen.setdefault(info.sha256, info.name)


def _read_text(info: FileInfo) -> str:
    try:
        return Path(info.path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFileError(info.name, f"byte {exc.start}", "not UTF-8 text") from None


def _measurement_preview(infos, options: ImportOptions, regimes: list[Regime], now: datetime) -> Preview:
    preview = Preview("measurements", infos)
    by_concurrency = {r.concurrency: r.name for r in regimes}
    for info in infos:
        text = _read_text(info)
        runs = parse_console(text, info.name) if info.format == formats.CONSOLE else parse_results_json(text, info.name)
        for run in runs:
            regime = options.regime or by_concurrency.get(run.concurrency)
            if regime is None:
                load = f"concurrency {run.concurrency}" if run.concurrency else f"open loop at {run.request_rate} req/s"
                preview.problems.append(
                    f"{info.name}, {run.where}: a run at {load} matches no regime by concurrency; choose its regime"
                )
                continue
            preview.measurements += _rows(run, regime, info, now)
            if run.spec_decode:
                preview.spec_decode.append(f"{info.name}, {run.where}: " + ", ".join(
                    f"{k.removeprefix('spec_decode_')} {v}" for k, v in run.spec_decode.items()))
    return preview


def _rows(run: BenchmarkRun, regime: str, info: FileInfo, now: datetime) -> list[MeasurementRow]:
    measured_at = _run_date(info) or now
    load = f"max concurrency {run.concurrency}" if run.concurrency else f"request rate {run.request_rate}"
    note = f"{run.source_format}, {load}" + (f", {run.label}" if run.label else "")
    return [
        MeasurementRow(regime, metric, value, metric_unit(metric), measured_at.isoformat(), f"{info.name}, {run.where}", note)
        for metric, value in sorted(run.metrics.items())
    ]


def _run_date(info: FileInfo) -> datetime | None:
    """vLLM writes "date": "20250530-203806" (local time of the run, taken here as UTC)."""
    if info.format != formats.RESULTS:
        return None
    try:
        first = json.JSONDecoder().raw_decode(Path(info.path).read_text(encoding="utf-8").lstrip())[0]
        return datetime.strptime(first.get("date", ""), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    except (ValueError, AttributeError, TypeError):
        return None


def _profile_preview(session, campaign_id, infos, options: ImportOptions, regimes, on_progress) -> Preview:
    if not options.regime:
        raise FormInvalid({"regime": "a profile belongs to one regime: choose it"})
    summary = KernelSummary("profile")
    for info in infos:
        if info.format == formats.TRACE:
            with open(info.path, "rb") as handle:
                summary.merge(parse_trace(handle, info.name, on_progress))
        elif info.format == formats.NSYS:
            summary.merge(parse_nsys(_read_text(info), info.name))
        else:
            if options.columns is None:
                raise FormInvalid({"name_column": f"{info.name} is a CSV tierplan does not know: name its kernel-name "
                                                  "and total-time columns"})
            summary.merge(parse_generic(_read_text(info), info.name, options.columns))
    try:
        bucketing = bucket_kernels(summary, rules_of(session, campaign_id))
    except ValueError as exc:
        raise FormInvalid({"files": f"a kernel rule does not compile: {exc}"}) from None
    steps = options.steps or summary.steps_found
    ranks = sum(1 for i in infos if i.format == formats.TRACE) or 1
    step_ms, step_source = options.step_ms, ""
    if step_ms is None and steps:
        step_ms, step_source = measured_step_ms(session, next(r for r in regimes if r.name == options.regime))
    try:
        shares, how = step_shares(bucketing, ranks=ranks, step_ms=step_ms, steps=steps)
    except ValueError as exc:
        raise FormInvalid({"step_ms": str(exc)}) from None
    if step_source:
        how += f" (step time {step_source})"
    if options.steps is None and summary.steps_found:
        how += f" (steps found in the trace: {summary.steps_found})"
    if ranks > 1:
        how += f"; {ranks} rank files averaged"
    return Preview(
        "profile", infos, regime=options.regime, shares=list(shares.items()), how=how,
        top_kernels=[(k.name, k.bucket, k.total_us, k.count, k.share_of_gpu) for k in bucketing.kernels[:TOP_KERNELS]],
        unmatched=bucketing.unmatched,
    )


def measured_step_ms(session: Session, regime: Regime) -> tuple[float | None, str]:
    """The regime's step time from its newest TPOT, else from its newest throughput and concurrency."""
    history = repo.measurements_of(session, regime_ids=[regime.id])
    tpot = next((m for m in history if m.metric == "tpot_ms"), None)
    if tpot is not None:
        return tpot.value, f"from the newest tpot_ms of {regime.name}, {tpot.measured_at:%Y-%m-%d}"
    throughput = next((m for m in history if m.metric == "output_tok_s"), None)
    if throughput is not None and throughput.value > 0:
        step = regime.concurrency * 1000 / throughput.value
        return step, (f"{step:.3g} ms: concurrency {regime.concurrency} over the newest output_tok_s of "
                      f"{regime.name}, {throughput.measured_at:%Y-%m-%d}")
    return None, ""


def confirm_import(session: Session, campaign_id: int, preview: Preview, *, now: datetime, batch: str) -> list[ImportRecord]:
    """Write the previewed import in one transaction; refuses a file already imported or unresolved rows."""
    duplicates = [f"{f.name} (same content as {f.duplicate_of})" for f in preview.files if f.duplicate_of]
    if duplicates:
        raise FormInvalid({"files": "already imported, so not counted twice: " + "; ".join(duplicates)})
    if preview.problems:
        raise FormInvalid({"regime": preview.problems[0]})
    regimes = {r.name: r for r in repo.regimes_of(session, campaign_id=campaign_id)}
    try:
        records = [
            ImportRecord(campaign_id=campaign_id, batch=batch, file_name=f.name, sha256=f.sha256, format=f.format,
                         size_bytes=f.size_bytes, imported_at=now, summary=_summary(preview))
            for f in preview.files
        ]
        session.add_all(records)
        session.flush()
        if preview.kind == "measurements":
            by_file = {f.name: r for f, r in zip(preview.files, records)}
            for row in preview.measurements:
                record = by_file[row.where.split(", ")[0]]
                session.add(Measurement(
                    regime_id=regimes[row.regime].id, metric=row.metric, value=row.value, unit=row.unit,
                    measured_at=datetime.fromisoformat(row.measured_at), provenance="imported",
                    source=f"import: {row.where}"[:300], note=row.note, import_id=record.id,
                ))
        else:
            profile = Profile(regime_id=regimes[preview.regime].id, created_at=now, import_id=records[0].id,
                              source=f"import of {', '.join(f.name for f in preview.files)}: {preview.how}"[:300])
            session.add(profile)
            session.flush()
            session.add_all(ProfileShare(profile_id=profile.id, bucket=b, share=s, provenance="imported")
                            for b, s in preview.shares)
        session.commit()
    except Exception:
        session.rollback()
        raise
    return records


def _summary(preview: Preview) -> str:
    if preview.kind == "measurements":
        return f"{len(preview.measurements)} measurements"
    return f"profile of {preview.regime}: " + ", ".join(f"{b} {s * 100:.0f}%" for b, s in preview.shares[:4])


def undo_import(session: Session, campaign_id: int, batch: str) -> int:
    """Delete every file of an import batch and all it wrote (cascade); returns the files removed."""
    records = session.exec(
        select(ImportRecord).where(ImportRecord.campaign_id == campaign_id, ImportRecord.batch == batch)
    ).all()
    if not records:
        raise NotFound(f"no import {batch!r} in campaign {campaign_id}")
    for record in records:
        session.delete(record)
    session.commit()
    return len(records)


def imports_of(session: Session, campaign_id: int) -> list[ImportRecord]:
    return list(session.exec(
        select(ImportRecord).where(ImportRecord.campaign_id == campaign_id)
        .order_by(col(ImportRecord.imported_at).desc(), col(ImportRecord.id))
    ).all())
