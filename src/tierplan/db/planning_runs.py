"""The runs of a long history that the planner's rules need (planning/model.py's Campaign), in a handful of
statements each served by an index of `measurement`: the newest of each series (tierplan/db/history.py keeps them),
each regime's baseline TPOT candidates, each gate's windows, the last moments a capacity gate judges, and the runs
of the measured changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, union_all
from sqlmodel import Session, col, select

from tierplan.db.history import CHUNK, series_of
from tierplan.db.history_tables import MeasuredChange, MeasurementSeries
from tierplan.db.tables import Gate, Measurement
from tierplan.planning import model as core
from tierplan.planning.metrics import CAPACITY_METRIC, STEP_METRIC, THROUGHPUT_METRIC

UNION_TERMS = 200  # SELECTs a UNION ALL joins (SQLite allows 500)
CAPACITY_MOMENTS = 50  # as planning/capacity.py's capacity_runs judges


@dataclass(frozen=True)
class PlanningRuns:
    """What `planning_runs` read: the runs (newest first) and the measured changes as (before id, after id)."""

    measurements: list[Measurement]
    changes: list[tuple[int, int]]


def planning_runs(session: Session, *, regime_ids: Sequence[int], gates: Sequence[Gate],
                  tier_starts: dict[int, datetime | None], capacity_gates: bool) -> PlanningRuns:
    """The runs the planner's rules pick from the regimes' histories (planning/model.py's Campaign), not
    retracted; `tier_starts`: tier id -> started at; `capacity_gates`: whether a gate judges the capacity at SLO
    (with objectives to judge it by)."""
    series = series_of(session, regime_ids)
    wanted = {s.newest_id for s in series}
    probes = _tpot_probes(series) + _gate_probes(gates, tier_starts)
    wanted |= _probe_ids(session, probes)
    if capacity_gates:
        wanted |= _capacity_ids(session, series, gates, tier_starts)
    changes = [(int(b), int(a)) for b, a in session.execute(
        select(col(MeasuredChange.before_id), col(MeasuredChange.after_id))
        .where(col(MeasuredChange.regime_id).in_(regime_ids))).all()] if regime_ids else []
    wanted |= {i for pair in changes for i in pair}
    rows: list[Measurement] = []
    ordered = sorted(wanted)
    for start in range(0, len(ordered), CHUNK):
        rows += session.exec(select(Measurement).where(col(Measurement.id).in_(ordered[start:start + CHUNK]))).all()
    rows.sort(key=lambda m: (m.measured_at, m.id), reverse=True)
    return PlanningRuns(rows, changes)


def _live(regime_id: int, metric: str):
    return and_(col(Measurement.regime_id) == regime_id, col(Measurement.metric) == metric,
                col(Measurement.retracted_at).is_(None))


def _tpot_probes(series: Sequence[MeasurementSeries]) -> list:
    """Each regime's baseline TPOT candidates: the closest runs in the baseline's state, at or before it and after."""
    probes = []
    for regime_id in sorted({s.regime_id for s in series}):
        baselines = [s for s in series if s.regime_id == regime_id and s.metric == THROUGHPUT_METRIC
                     and s.kind == core.MeasurementKind.BASELINE.value]
        if not baselines:
            continue
        baseline = max(baselines, key=lambda s: (s.newest_at, s.newest_id))
        same = and_(_live(regime_id, STEP_METRIC), col(Measurement.kind) == core.MeasurementKind.BASELINE.value,
                    col(Measurement.includes_key) == baseline.includes_key, col(Measurement.value) > 0)
        at = baseline.newest_at
        probes.append(select(col(Measurement.id)).where(same, col(Measurement.measured_at) <= at)
                      .order_by(col(Measurement.measured_at).desc(), col(Measurement.id).desc()).limit(1))
        probes.append(select(col(Measurement.id)).where(same, col(Measurement.measured_at) > at)
                      .order_by(col(Measurement.measured_at), col(Measurement.id).desc()).limit(1))
    return probes


def _gate_probes(gates: Sequence[Gate], tier_starts: dict[int, datetime | None]) -> list:
    """Each gate's last `window` runs after its tier started and, for a relative gate, the last `window` of its
    reference regime up to then: the core takes the last runs in (time, newest id first) order."""
    probes = []
    for gate in gates:
        start = tier_starts.get(gate.tier_id)
        if start is None or gate.metric == CAPACITY_METRIC:
            continue
        last = (col(Measurement.measured_at).desc(), col(Measurement.id))
        probes.append(select(col(Measurement.id)).where(_live(gate.regime_id, gate.metric),
                                                        col(Measurement.measured_at) > start)
                      .order_by(*last).limit(gate.window))
        if gate.relative_pct is not None:
            reference = gate.reference_regime_id or gate.regime_id
            probes.append(select(col(Measurement.id)).where(_live(reference, gate.metric),
                                                            col(Measurement.measured_at) <= start)
                          .order_by(*last).limit(gate.window))
    return probes


def _probe_ids(session: Session, probes: Sequence) -> set[int]:
    """The ids the probes find, their SELECTs joined a few hundred at a time."""
    found: set[int] = set()
    for start in range(0, len(probes), UNION_TERMS):
        terms = [select(p.subquery().c.id) for p in probes[start:start + UNION_TERMS]]
        statement = terms[0] if len(terms) == 1 else union_all(*terms)
        found |= {int(i) for i in session.execute(statement).scalars().all() if i is not None}
    return found


def _capacity_ids(session: Session, series: Sequence[MeasurementSeries], gates: Sequence[Gate],
                  tier_starts: dict[int, datetime | None]) -> set[int]:
    """The runs of the capacity's last moments since its earliest gate's tier started (every run at or after the
    first of them, and the newest of each regime's metric before it): planning/capacity.py's capacity_runs."""
    starts = [tier_starts.get(g.tier_id) for g in gates if g.metric == CAPACITY_METRIC]
    known = [s for s in starts if s is not None]
    regime_ids = sorted({s.regime_id for s in series})
    if not known or not regime_ids:
        return set()
    since = min(known)
    moments: set[datetime] = set()
    terms = [select(col(Measurement.measured_at)).where(col(Measurement.regime_id) == r, col(Measurement.retracted_at)
                                                        .is_(None), col(Measurement.measured_at) > since)
             .distinct().order_by(col(Measurement.measured_at).desc()).limit(CAPACITY_MOMENTS) for r in regime_ids]
    for start in range(0, len(terms), UNION_TERMS):
        chunk = [select(t.subquery().c.measured_at) for t in terms[start:start + UNION_TERMS]]
        moments |= set(session.execute(chunk[0] if len(chunk) == 1 else union_all(*chunk)).scalars().all())
    if not moments:
        return set()
    first = sorted(moments)[-CAPACITY_MOMENTS:][0]
    found = set(session.execute(select(col(Measurement.id)).where(
        col(Measurement.regime_id).in_(regime_ids), col(Measurement.retracted_at).is_(None),
        col(Measurement.measured_at) >= first)).scalars().all())
    pairs = sorted({(s.regime_id, s.metric) for s in series})
    probes = [select(col(Measurement.id)).where(_live(r, m), col(Measurement.measured_at) < first)
              .order_by(col(Measurement.measured_at).desc(), col(Measurement.id).desc()).limit(1) for r, m in pairs]
    return found | _probe_ids(session, probes)
