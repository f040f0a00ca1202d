"""A benchmark of a prototype, imported as the evidence of its intervention (planning/prototype_benchmark.py): what it
would make of the plan, said before anything is written, and its runs stored as the intervention's, never as the
regime's own history."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlmodel import Session

from tierplan.db import links
from tierplan.db.mappers import to_benchmarks
from tierplan.db.repo import CampaignRows
from tierplan.db.tables import ImportRecord, Intervention, PrototypeRun, Regime, pk
from tierplan.models.errors import FormInvalid
from tierplan.planning import model as core
from tierplan.planning.metrics import THROUGHPUT_METRIC
from tierplan.planning.projection import project_regime
from tierplan.planning.prototype_benchmark import Benchmark, Fit, benchmark_problem, sized_by_benchmarks
from tierplan.services.analysis import unsized_campaign
from tierplan.services.import_rows import MeasurementRow, read_rows
from tierplan.text import formatting as fmt
from tierplan.text.benchmarks import benchmark_sentence


def unknown_key(keys: Iterable[str], key: str) -> str | None:
    """Why `key` cannot name a prototype's intervention (None: it is one of the campaign's `keys`)."""
    keys = sorted(keys)
    return None if key in keys else f"no intervention {key!r} in this campaign (it has {', '.join(keys)})"


def check_key(keys: Iterable[str], key: str) -> None:
    """FormInvalid at the field unless `key` is one of the campaign's intervention `keys`."""
    if (problem := unknown_key(keys, key)) is not None:
        raise FormInvalid({"prototype_of": problem})


def newest(rows: list[MeasurementRow]) -> MeasurementRow | None:
    """The throughput run the plan would size the intervention by: the newest (the last of equal dates)."""
    runs = [r for r in rows if r.metric == THROUGHPUT_METRIC]
    return max(reversed(runs), key=lambda r: r.measured_at or "", default=None)


def consequences(rows: CampaignRows, key: str, row: MeasurementRow | None) -> tuple[list[str], list[str]]:
    """What the prototype's newest run would make of its intervention (lines), beside the benchmarks stored for it
    (the newest in each other regime), and why it cannot (problems)."""
    if row is None:
        return [], ["a prototype's benchmark is read by its output throughput, and these files hold none"]
    benchmark = Benchmark(row.regime, row.value, "this benchmark")
    plain, _, _ = unsized_campaign(rows)
    problem = benchmark_problem(plain, key, benchmark)
    if problem is not None:
        return [], [f"{row.where}: {problem}"]
    stored = to_benchmarks(rows)
    was = sized_by_benchmarks(plain, stored)
    kept = tuple(b for b in stored.get(key, ()) if b.regime != benchmark.regime)
    after = sized_by_benchmarks(plain, {**stored, key: (*kept, benchmark)})
    planned = next(i for i in after.interventions if i.key == key)
    if not isinstance(planned.evidence, Fit):
        return [f"{key} is planned from its prototype's trace, which says more: this benchmark is kept beside it"], []
    lines = [f"becomes the evidence of {key}. {benchmark_sentence(planned.evidence)}"]
    for regime, new in zip(was.regimes, after.regimes, strict=True):
        before, now = project_regime(regime, was).final.tok_s, project_regime(new, after).final.tok_s
        if before is not None and now is not None and abs(now / before - 1) > 1e-6:
            lines.append(f"{regime.name}: the plan's projection {fmt.tok_s(before)} → {fmt.tok_s(now)}")
    return lines, []


def write_runs(session: Session, campaign_id: int, key: str, rows_path: str, records: list[ImportRecord],
               regimes: dict[str, Regime], measured_at: datetime | None, now: datetime) -> None:
    """Store the prototype's throughput runs as its intervention's evidence (the rows file holds at most a
    sweep: a prototype runs in one regime)."""
    found = links.find_by(session, table=Intervention, campaign_id=campaign_id, column="key", value=key)
    if not found:  # deleted between the preview and the confirm
        raise FormInvalid({"prototype_of": f"no intervention {key!r} any more: preview again"})
    by_file = {r.file_name: r for r in records}
    for chunk in read_rows(rows_path):
        for row in chunk:
            if row.metric != THROUGHPUT_METRIC:
                continue
            when = datetime.fromisoformat(row.measured_at) if row.measured_at else measured_at
            record = by_file.get(row.where.split(", ")[0])
            session.add(PrototypeRun(intervention_id=pk(found[0]), regime_id=pk(regimes[row.regime]), tok_s=row.value,
                                     measured_at=core.need(when, "the run's date"), created_at=now,
                                     import_id=record.id if record else None,
                                     source=f"import: {row.where}"[:300]))
