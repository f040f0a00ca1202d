"""Importing benchmark results and profiles: preview first (with its consequences), then one transaction, undoable."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session

from tierplan.db import links, repo
from tierplan.db.mappers import to_core_profile
from tierplan.db.repo import CampaignRows
from tierplan.db.tables import Profile, ProfileKernel, ProfileShare, Regime
from tierplan.importers import detect as formats
from tierplan.importers.buckets import DEFAULT_RULES
from tierplan.importers.kernel_csv import ColumnMap
from tierplan.importers.records import BenchmarkRun
from tierplan.importers.registry import read_runs
from tierplan.models.errors import Conflicting, FormInvalid, NotFound
from tierplan.models.measurements import ImportOptionsForm
from tierplan.planning import model as core
from tierplan.planning.baselines import newest_baselines
from tierplan.planning.checks import Reading, check_reading
from tierplan.planning.metrics import THROUGHPUT_METRIC, metric_label, metric_unit
from tierplan.planning.runs_kept import RunsKept
from tierplan.services.analysis import core_campaign
from tierplan.services.import_effects import (
    SETUP_WARNING,
    measurement_consequences,
    mismatches,
    profile_consequences,
    prototype_consequences,
)
from tierplan.services.import_profiles import ProfileDraft, profile_draft
from tierplan.services.import_prototypes import check_key, newest
from tierplan.services.import_prototypes import consequences as prototype_run_consequences
from tierplan.services.import_rows import (
    ROWS_FILE,
    SAMPLE,
    Listed,
    MeasurementRow,
    SeriesSummary,
    other_workload,
    write_row,
)
from tierplan.services.measurements import default_includes

PROFILE_FORMATS = {formats.TRACE, formats.NSYS, formats.NCU, formats.KERNEL_CSV}


@dataclass
class ImportOptions:
    regime: str | None = None  # benchmark results: this regime instead of matching by concurrency
    step_ms: float | None = None  # profiles: the measured step time
    steps: int | None = None  # profiles: how many steps the trace covers (found in it when it can be)
    columns: ColumnMap | None = None  # generic kernel CSV
    kind: str = "baseline"  # measurements: baseline or gate check
    includes: list[str] | None = None  # measurements: what they were taken with (None: landed by their date)
    measured_at: datetime | None = None  # measurements: the date of runs the file does not date
    exclude_passes: int = 0  # traces: leave out the first N forward passes
    add_regimes: bool = False  # benchmarks: a regime for each run's concurrency that none has (a sweep)
    prototype_of: str = ""  # the key of the intervention whose prototype the trace or benchmark ran


@dataclass
class FileInfo:
    name: str
    path: str
    sha256: str
    size_bytes: int
    format: str
    duplicate_of: str = ""  # "file.json, imported 2026-12-01 as batch ..." when already imported


@dataclass
class Preview:
    kind: str  # "measurements" or "profile"
    files: list[FileInfo]
    measurements: list[MeasurementRow] = field(default_factory=list)  # the first SAMPLE values, to show
    measurement_count: int = 0  # every value the import would write (in the rows file)
    rows_path: str = ""  # the file that holds them all (tierplan/services/import_rows.py)
    series: list[dict] = field(default_factory=list)  # SeriesSummary of each regime and metric, as dicts
    regime: str = ""
    shares: list[tuple[str, float]] = field(default_factory=list)
    how: str = ""
    top_kernels: list[tuple[str, str, float, int, float]] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # block the import until fixed (the first LISTED)
    spec_decode: list[str] = field(default_factory=list)
    consequences: list[str] = field(default_factory=list)  # what it would change
    warnings: list[str] = field(default_factory=list)  # shown, not blocking: another model or GPU
    flagged: list[str] = field(default_factory=list)  # values the checks flag: confirm to import them (the first)
    flagged_count: int = 0
    named: list[str] = field(default_factory=list)  # model, GPU, engine the files name
    measurement_kind: str = "baseline"
    needs_date: bool = False
    profile: dict | None = None  # ProfileDraft as a dict
    campaign_id: int = 0  # the campaign it was previewed for (only that one may confirm it)
    new_regimes: list[dict] = field(default_factory=list)  # regimes the confirm adds (Regime columns)
    setup_warnings: list[str] = field(default_factory=list)  # another model, GPU or engine the files name
    prototype_of: str = ""  # benchmarks: the intervention whose prototype ran them (its evidence, not the regime's)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Preview:
        data = json.loads(text)
        data["files"] = [FileInfo(**f) for f in data["files"]]
        data["measurements"] = [MeasurementRow(**m) for m in data["measurements"]]
        return cls(**data)

    @property
    def draft(self) -> ProfileDraft | None:
        return ProfileDraft.from_dict(self.profile) if self.profile else None


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def rules_of(session: Session, campaign_id: int) -> list[tuple[str, str]]:
    stored = links.kernel_rules_of(session, campaign_id=campaign_id)
    return [(r.pattern, r.bucket) for r in stored] or list(DEFAULT_RULES)


def preview_import(
    session: Session, campaign_id: int, files: list[tuple[str, Path]], options: ImportOptions, *, now: datetime,
    rows_dir: Path, on_progress: Callable[[int], None] | None = None,
) -> Preview:
    """Parse the files and say what an import would write and change; raises ImportFileError on a bad file. The
    values a benchmark import would write go to a file in `rows_dir` (the upload's folder), which the confirm
    reads."""
    if not files:
        raise FormInvalid({"files": "choose at least one file, or paste a summary block"})
    infos = []
    for name, path in files:
        with open(path, "rb") as handle:
            head = handle.read(formats.HEAD_BYTES)
        infos.append(FileInfo(name, str(path), sha256_of(path), path.stat().st_size, formats.detect(head, name)))
    mark_duplicates(session, campaign_id, infos)
    kinds = {"profile" if i.format in PROFILE_FORMATS else "measurements" for i in infos}
    if len(kinds) > 1:
        profiles = [i.name for i in infos if i.format in PROFILE_FORMATS]
        results = [i.name for i in infos if i.format not in PROFILE_FORMATS]
        raise FormInvalid({"files": f"import benchmark results ({', '.join(results)}) and profiles "
                                    f"({', '.join(profiles)}) separately: nothing was imported"})
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    if options.regime and options.regime not in {r.name for r in regimes}:
        raise Conflicting({"regime": f"unknown regime {options.regime!r}"})
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    if rows is None:
        raise NotFound(f"no campaign {campaign_id}")
    if kinds == {"profile"}:
        draft = profile_draft(session, campaign_id, infos, options, regimes, rules_of(session, campaign_id),
                              on_progress)
        preview = _profile_preview(rows, infos, draft, now)
    else:
        preview = _measurement_preview(session, rows, infos, options, regimes, now, rows_dir, on_progress)
    preview.campaign_id = campaign_id
    return preview


def mark_duplicates(session: Session, campaign_id: int, infos: list[FileInfo]) -> None:
    seen: dict[str, str] = {}
    for info in infos:
        earlier = links.import_with_sha(session, campaign_id=campaign_id, sha256=info.sha256)
        if earlier is not None:
            info.duplicate_of = f"{earlier.file_name}, imported {earlier.imported_at:%Y-%m-%d %H:%M} UTC"
        elif info.sha256 in seen:
            info.duplicate_of = f"{seen[info.sha256]}, in this same upload"
        seen.setdefault(info.sha256, info.name)


def _measurement_preview(session: Session, rows: CampaignRows, infos: list[FileInfo], options: ImportOptions,
                         regimes: list[Regime], now: datetime, rows_dir: Path,
                         on_progress: Callable[[int], None] | None = None) -> Preview:
    """Stream the runs: every value into the rows file, checked as it goes; the preview keeps a sample, a summary
    a regime and metric, the first problems and the runs the planner's rules would pick (for the consequences)."""
    preview = Preview("measurements", infos, measurement_kind=options.kind, prototype_of=options.prototype_of)
    by_concurrency = {r.concurrency: r.name for r in regimes}
    inputs = {r.name: r.input_tokens for r in regimes}
    interventions = rows.interventions
    campaign, _, _ = core_campaign(rows)
    if options.prototype_of:  # its runs are the intervention's evidence, rightly far from the regime's own
        check_key((i.key for i in campaign.interventions), options.prototype_of)
        if options.add_regimes:
            raise FormInvalid({"add_regimes": "a prototype is compared with a regime's own baseline: choose the "
                                              "regime it ran in, not new ones"})
    prototype_rows: list[MeasurementRow] = []
    baselines = newest_baselines(campaign.measurements)
    kept = RunsKept(campaign.gates, campaign.tiers)
    problems, flagged, spec_decode, workloads = Listed(), Listed(), Listed(), Listed()
    series: dict[tuple[str, str], SeriesSummary] = {}
    names: dict[str, set[str]] = {"models": set(), "gpus": set(), "engines": set()}
    undated: set[str] = set()
    preview.rows_path = str(rows_dir / ROWS_FILE)
    with open(preview.rows_path, "w", encoding="utf-8") as out:
        for info in infos:
            for run in _runs(info, on_progress):
                for kind, name in (("models", run.model), ("gpus", run.gpu), ("engines", run.engine)):
                    names[kind].add(name)
                regime = options.regime or (by_concurrency.get(run.concurrency) if run.concurrency is not None else None)
                if regime is None and options.add_regimes and run.concurrency:
                    added = new_regime(regimes, preview.new_regimes, run.concurrency, run.input_len, run.output_len)
                    preview.new_regimes.append(added)
                    workload = ("its workload from the file, its target" if run.input_len and run.output_len
                                else "its workload and target")
                    preview.consequences.append(
                        f"adds the regime {added['name']} (concurrency {run.concurrency}); {workload} "
                        f"{added['target_tok_s']:,.4g} tok/s assumed from its neighbours: check them")
                    regime = by_concurrency[run.concurrency] = added["name"]
                if regime is None:
                    load = f"concurrency {run.concurrency}" if run.concurrency else f"open loop at {run.request_rate} req/s"
                    problems.add(f"{info.name}, {run.where}: a run at {load} matches no regime by concurrency; choose "
                                 "its regime" + (", or add a regime for each new concurrency" if run.concurrency else ""))
                    continue
                if other_workload(run.input_len, inputs.get(regime)):
                    workloads.add(f"{info.name}, {run.where}: {run.input_len:,} tokens in, where {regime} is "
                                  f"{inputs[regime]:,}: its figures are of another workload than the regime's")
                measured_at = _run_date(run) or options.measured_at
                if measured_at is None:
                    undated.add(info.name)
                includes = options.includes if options.includes is not None else default_includes(
                    interventions, measured_at or now)
                for row in _rows(run, regime, info, measured_at, includes):
                    write_row(out, row)
                    preview.measurement_count += 1
                    if len(preview.measurements) < SAMPLE:
                        preview.measurements.append(row)
                    series.setdefault((row.regime, row.metric), SeriesSummary(row.regime, row.metric)).add(row)
                    if options.prototype_of:
                        prototype_rows += [row] if row.metric == THROUGHPUT_METRIC else []
                        continue
                    reading = reading_of(row, now, options.kind)
                    kept.add(_core(reading))
                    for problem in check_reading(reading, campaign, now=now, baselines=baselines):
                        (flagged if problem.confirmable else problems).add(problem_line(row, problem.message))
                if run.spec_decode:
                    spec_decode.add(f"{info.name}, {run.where}: " + ", ".join(
                        f"{k.removeprefix('spec_decode_')} {v}" for k, v in run.spec_decode.items()))
    preview.named, preview.warnings = mismatches(rows, models=sorted(names["models"]), gpus=sorted(names["gpus"]),
                                                 engines=sorted(names["engines"]))
    # another model or GPU than the specs' is recorded on each run (calibration pairs none of them); an engine is
    # only told from the campaign's notes, too loose to keep a run out by
    preview.setup_warnings = [w for w in preview.warnings if w.startswith(SETUP_WARNING)]
    preview.warnings += workloads.shown()
    preview.needs_date = bool(undated)
    if undated:
        preview.consequences.append(f"{', '.join(sorted(undated))} carr{'y' if len(undated) > 1 else 'ies'} no date: "
                                    "give the time it was measured before importing (the effects below assume now)")
    if options.prototype_of:
        ran_in = sorted({r.regime for r in prototype_rows})
        if len(ran_in) > 1:
            problems.add(f"a prototype's benchmark is compared in one regime, and these runs are in {', '.join(ran_in)}: "
                         "choose the regime it ran in")
        lines, refused = prototype_run_consequences(rows, options.prototype_of, newest(prototype_rows))
        preview.consequences += lines
        for refusal in refused:
            problems.add(refusal)
    elif preview.measurement_count:
        preview.consequences += measurement_consequences(campaign, list(kept.runs()))
    preview.series = [asdict(s) for s in series.values()]
    preview.problems, preview.flagged, preview.spec_decode = problems.shown(), flagged.shown(), spec_decode.shown()
    preview.flagged_count = flagged.count
    return preview


def new_regime(regimes: list[Regime], added: list[dict], concurrency: int, input_len: int | None = None,
               output_len: int | None = None) -> dict:
    """The columns of a regime for a sweep's concurrency no regime has: the workload the run states (else the
    nearest regime's) and a target interpolated linearly in concurrency between its neighbours (the nearest one's
    beyond them), marked assumed."""
    known = sorted([(r.concurrency, r.target_tok_s, r.input_tokens, r.output_tokens) for r in regimes]
                   + [(a["concurrency"], a["target_tok_s"], a["input_tokens"], a["output_tokens"]) for a in added])
    taken = {r.name for r in regimes} | {a["name"] for a in added}
    name = f"concurrency {concurrency}" if f"concurrency {concurrency}" not in taken else f"sweep c{concurrency}"
    if not known:
        return {"name": name, "concurrency": concurrency, "input_tokens": input_len or 1,
                "output_tokens": output_len or 1, "target_tok_s": 1.0, "position": concurrency}
    below = [k for k in known if k[0] < concurrency]
    above = [k for k in known if k[0] > concurrency]
    nearest = min(known, key=lambda k: abs(k[0] - concurrency))
    if below and above:
        (c0, t0, *_), (c1, t1, *_) = below[-1], above[0]
        target = t0 + (t1 - t0) * (concurrency - c0) / (c1 - c0)
    else:
        target = nearest[1]
    return {"name": name, "concurrency": concurrency, "input_tokens": input_len or nearest[2],
            "output_tokens": output_len or nearest[3], "target_tok_s": target, "position": concurrency}


def _runs(info: FileInfo, on_progress: Callable[[int], None] | None) -> Iterator[BenchmarkRun]:
    with open(info.path, "rb") as handle:
        yield from read_runs(info.format, handle, info.name, on_progress)


def _rows(run: BenchmarkRun, regime: str, info: FileInfo, measured_at: datetime | None,
          includes: list[str]) -> list[MeasurementRow]:
    load = f"max concurrency {run.concurrency}" if run.concurrency else f"request rate {run.request_rate}"
    note = f"{run.source_format}, {load}" + (f", {run.label}" if run.label else "") + (f"; {run.note}" if run.note else "")
    return [
        MeasurementRow(regime, metric, value, metric_unit(metric), measured_at.isoformat() if measured_at else "",
                       f"{info.name}, {run.where}", note, list(includes))
        for metric, value in sorted(run.metrics.items())
    ]


def _run_date(run: BenchmarkRun) -> datetime | None:
    """vLLM writes "date": "20250530-203806", AIPerf and GuideLLM an ISO time (each the local time of the run,
    taken here as UTC where it names no zone)."""
    if not run.measured_at:
        return None
    try:
        return datetime.strptime(run.measured_at, "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        pass
    try:
        found = datetime.fromisoformat(run.measured_at)
    except ValueError:
        return None
    return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)


def problem_line(row: MeasurementRow, message: str) -> str:
    """What is wrong with one imported value, said where it is: "run.json, output throughput 45.2 tok/s: ..."."""
    return f"{row.where}, {metric_label(row.metric)} {row.value:,.4g} {row.unit}".rstrip() + f": {message}"


def reading_of(row: MeasurementRow, now: datetime, kind: str = "") -> Reading:
    return Reading(row.regime, row.metric, row.value,
                   datetime.fromisoformat(row.measured_at) if row.measured_at else now,
                   core.MeasurementKind(kind or "baseline"), frozenset(row.includes))


def _core(reading: Reading) -> core.Measurement:
    return core.Measurement(reading.regime, reading.metric, reading.value, reading.measured_at, reading.kind,
                            reading.includes)


def _profile_preview(rows: CampaignRows, infos: list[FileInfo], draft: ProfileDraft, now: datetime) -> Preview:
    preview = Preview("profile", infos, regime=draft.regime, shares=draft.shares, how=draft.how,
                      top_kernels=draft.top_kernels, unmatched=draft.unmatched, profile=draft.to_dict())
    preview.named, preview.warnings = mismatches(rows, gpus=draft.devices)
    preview.warnings += draft.warnings
    campaign, _, _ = core_campaign(rows)
    if draft.prototype_of:
        preview.consequences = prototype_consequences(campaign, draft.prototype_of, draft.regime,
                                                      _core_profile(draft, now))
    else:
        preview.consequences = profile_consequences(rows, campaign, draft.regime, _core_profile(draft, now))
    return preview


def _core_profile(draft: ProfileDraft, now: datetime) -> core.Profile:
    row = Profile(regime_id=0, created_at=now, step_ms=draft.step_ms, gpu_items=draft.gpu_items,
                  host_launches=draft.host_launches, gpu_gap_us=draft.gpu_gap_us, gap_measured=draft.gap_measured,
                  host_busy_ms=draft.host_busy_ms)
    kernels = [ProfileKernel(profile_id=0, name=n, bucket=b, fraction=f, calls_a_step=c or None,
                             blocks_per_sm=draft.blocks_per_sm.get(n)) for n, b, f, c in draft.kernels]
    return core.need(to_core_profile(row, [ProfileShare(profile_id=0, bucket=b, share=s) for b, s in draft.shares],
                                     kernels),
                     "the profile")


def import_options(values: ImportOptionsForm) -> ImportOptions:
    """The importers' options from the import form's (or the API's) values."""
    columns = None
    if values.name_column or values.time_column:
        if not (values.name_column and values.time_column):
            raise FormInvalid({"time_column": "name both the kernel-name and the total-time column"})
        columns = ColumnMap(values.name_column, values.time_column, values.time_unit.value)
    return ImportOptions(values.regime, values.step_ms, values.steps, columns, kind=values.kind.value,
                         includes=values.includes, measured_at=values.measured_at,
                         exclude_passes=values.exclude_passes, add_regimes=values.add_regimes,
                         prototype_of=(values.prototype_of or "").strip())


def import_problems(preview: Preview, *, measured_at: datetime | None, confirmed: bool) -> list[str]:
    """Everything that would stop `confirm_import` with these answers (a dry run reports them all)."""
    out = [f"{f.name} was already imported ({f.duplicate_of})" for f in preview.files if f.duplicate_of]
    out += preview.problems
    if preview.needs_date and measured_at is None:
        out.append("some runs carry no date: give the time they were measured")
    if preview.flagged_count and not confirmed:
        out += [f"flagged, needs confirming: {line}" for line in preview.flagged]
    return out
