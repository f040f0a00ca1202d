"""The plan's own history: after every change that can move a projection (a measurement, an import, an edit),
the plan's figures are kept with what the change was: the change's row in its own transaction, its figures
right after it commits.

A snapshot holds, per regime, the baseline, target and ceiling, and each tier's projected throughput with its
P10-P50-P90 band and its chance of meeting the target, rounded to 4 significant figures so that a change that
moves nothing reads as moving nothing.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session

from tierplan.db import repo, snapshots
from tierplan.db.engine import Sessions
from tierplan.db.snapshot_tables import PlanSnapshot
from tierplan.models.errors import Conflicting, NotFound
from tierplan.planning.metrics import metric_label
from tierplan.planning.model import Status
from tierplan.planning.schedule import schedule_start, working_day
from tierplan.services.analysis import Analysis, analyse
from tierplan.text import formatting as fmt

FIGURES = 4  # significant figures kept
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TierFigures:
    tier: str
    tok_s: float | None  # the projection from the likely estimates
    p10_tok_s: float | None
    p50_tok_s: float | None
    p90_tok_s: float | None
    p_target: float | None  # 0..1


@dataclass(frozen=True)
class RegimeFigures:
    regime: str
    baseline_tok_s: float | None
    target_tok_s: float
    ceiling_tok_s: float | None
    tiers: tuple[TierFigures, ...]

    @property
    def final(self) -> TierFigures | None:
        """After the last tier (None: the plan has no tier)."""
        return self.tiers[-1] if self.tiers else None


@dataclass(frozen=True)
class Snapshot:
    id: int | None  # None: the plan as it stands now, not stored
    taken_at: datetime
    by: str
    cause: str
    regimes: tuple[RegimeFigures, ...]

    def of(self, regime: str) -> RegimeFigures | None:
        return next((r for r in self.regimes if r.regime == regime), None)


def _round(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.{FIGURES}g}")


def figures_of(analysis: Analysis) -> tuple[RegimeFigures, ...]:
    """The figures a snapshot keeps of an analysed plan."""
    regimes = []
    for projection in analysis.projections:
        bands = {d.tier_key: d for d in analysis.simulation.of(projection.regime)}
        tiers = []
        for step in projection.steps:
            band = bands.get(step.tier_key or "")
            tiers.append(TierFigures(
                tier=step.tier_key or "", tok_s=_round(step.tok_s),
                p10_tok_s=_round(band.p10_tok_s) if band else None, p50_tok_s=_round(band.p50_tok_s) if band else None,
                p90_tok_s=_round(band.p90_tok_s) if band else None, p_target=_round(band.p_target) if band else None,
            ))
        regimes.append(RegimeFigures(
            regime=projection.regime, baseline_tok_s=_round(projection.baseline.tok_s),
            target_tok_s=projection.target_tok_s, ceiling_tok_s=_round(projection.ceiling_tok_s), tiers=tuple(tiers),
        ))
    return tuple(regimes)


def _encode(regimes: tuple[RegimeFigures, ...]) -> str:
    return json.dumps([asdict(r) for r in regimes], separators=(",", ":"), sort_keys=True)


def _decode(text: str) -> tuple[RegimeFigures, ...]:
    return tuple(RegimeFigures(**{**r, "tiers": tuple(TierFigures(**t) for t in r["tiers"])})
                 for r in json.loads(text))


def _snapshot(row: PlanSnapshot) -> Snapshot:
    return Snapshot(id=row.id, taken_at=row.taken_at, by=row.by, cause=row.cause, regimes=_decode(row.figures or "[]"))


def keep_snapshot(session: Session, campaign_id: int, cause: str, *, now: datetime, by: str = "") -> None:
    """Add the change to the plan's history in its own transaction; the caller commits, then `settle` writes the
    figures the change left (no analysis runs while the change holds the write lock). Every change is kept, the
    ones that move nothing too: the history says they moved nothing."""
    snapshots.add_snapshot(session, campaign_id=campaign_id, taken_at=now, by=by, cause=cause)


def settle_pending(engine: Engine, session: Session) -> None:
    """After `session` is done: the figures of the snapshots it committed, each campaign's in one analysis on
    sessions of its own."""
    for campaign_id in snapshots.committed(session):
        settle_soon(Sessions(engine), campaign_id)


PASSES = 3  # analyses one request makes for a campaign's waiting snapshots before a thread takes over
_busy: dict[tuple[int, int], bool] = {}  # (engine, campaign) being settled -> another pass wanted
_busy_lock = threading.Lock()


def settle_soon(sessions: Sessions, campaign_id: int, analysis: Analysis | None = None, upto: int | None = None) -> None:
    """Write the figures of the campaign's waiting snapshots, one analysis at a time a campaign in this process:
    when one is under way, it runs once more for this change instead (a stream of writes costs an analysis a
    pass, not one a write). `analysis` and `upto`: the plan the caller analysed after its commit, and the newest
    snapshot it covers. After PASSES passes a thread goes on, so no request waits on a stream of others."""
    key = (id(sessions.engine), campaign_id)
    with _busy_lock:
        if key in _busy:
            _busy[key] = True
            return
        _busy[key] = False
    for _ in range(PASSES):
        _settle_once(sessions, campaign_id, analysis, upto)
        analysis = upto = None
        with _busy_lock:
            if not _busy[key]:
                del _busy[key]
                return
            _busy[key] = False
    threading.Thread(target=_settle_rest, args=(sessions, campaign_id, key), daemon=True).start()


def _settle_rest(sessions: Sessions, campaign_id: int, key: tuple[int, int]) -> None:
    while True:
        _settle_once(sessions, campaign_id, None, None)
        with _busy_lock:
            if not _busy[key]:
                del _busy[key]
                return
            _busy[key] = False


def _settle_once(sessions: Sessions, campaign_id: int, analysis: Analysis | None, upto: int | None) -> None:
    settle(sessions, campaign_id, analysis, upto)


def settle(sessions: Sessions, campaign_id: int, analysis: Analysis | None = None, upto: int | None = None) -> None:
    """Write the plan's figures as they stand into the campaign's snapshots still waiting for theirs: those
    committed before the plan was read (`analysis` and `upto`, the newest snapshot it covers, when the caller
    analysed it after its commit). One analysis on a reader, then a short write. A failure is logged: the change
    stays saved, and the next settle of the campaign fills its snapshot."""
    try:
        if analysis is None:
            with sessions.reader() as reader:
                upto = snapshots.newest_id(reader, campaign_id=campaign_id)
                rows = repo.load_campaign(reader, campaign_id=campaign_id)
            if rows is None or upto is None:
                return
            analysis = analyse(rows)
        if upto is None:
            return
        text = _encode(figures_of(analysis))
        with sessions.writer() as writer:
            snapshots.fill_pending(writer, campaign_id=campaign_id, figures=text, upto=upto)
            keep_first_schedule(writer, campaign_id, analysis)
            writer.commit()
    except Exception as exc:
        log.warning("the figures of campaign %s's newest changes are not written yet: %s", campaign_id, exc)


def keep_first_schedule(session: Session, campaign_id: int, analysis: Analysis) -> None:
    """The first schedule of each tier that has work and none yet: its P50 and P90 done dates as the plan stands
    (slips are shown against them)."""
    tiers = repo.tiers_of(session, campaign_id=campaign_id)
    with_work = {i.tier_key for i in analysis.campaign.interventions if i.status is not Status.REJECTED}
    unset = [t for t in tiers if t.first_done_p50 is None and t.key in with_work]
    if not unset:
        return
    campaign = repo.get_campaign(session, campaign_id=campaign_id)
    if campaign is None:
        return
    start = schedule_start((t.started_at for t in tiers), campaign.created_at)
    efforts = {e.tier_key: e for e in analysis.simulation.efforts}
    for tier in unset:
        if tier.key in efforts:
            tier.first_done_p50 = working_day(start, efforts[tier.key].done_p50_days)
            tier.first_done_p90 = working_day(start, efforts[tier.key].done_p90_days)


def measurement_cause(metric: str, value: float, unit: str, regime: str, kind: str = "baseline") -> str:
    """"measured output throughput = 512 tok/s of batch 1 (baseline)": a measurement's line in the history."""
    return f"measured {metric_label(metric)} = {fmt.number(value, unit)} of {regime} ({kind})"


def history_of(session: Session, campaign_id: int, *, after: int | None = None, limit: int | None = None
               ) -> list[Snapshot]:
    """The campaign's snapshots, oldest first (newer than snapshot `after`, at most `limit`); Conflicting when
    `after` is gone."""
    try:
        rows = snapshots.snapshots_of(session, campaign_id=campaign_id, after_id=after, limit=limit)
    except LookupError as exc:
        raise Conflicting({"after": str(exc)}) from None
    return [_snapshot(s) for s in rows]


def newest_history(session: Session, campaign_id: int, *, since: datetime | None = None, before: int | None = None,
                   limit: int = 50) -> list[Snapshot]:
    """Up to `limit` snapshots, newest first, taken since `since`, older than snapshot `before`; Conflicting when
    `before` is gone."""
    try:
        rows = snapshots.newest_snapshots(session, campaign_id=campaign_id, since=since, before_id=before, limit=limit)
    except LookupError as exc:
        raise Conflicting({"before": str(exc)}) from None
    return [_snapshot(s) for s in rows]


def chart_history(session: Session, campaign_id: int, max_points: int) -> list[Snapshot]:
    """The snapshots a chart of the plan over time draws (at most `max_points`: the last of each stretch of time)."""
    return [_snapshot(s) for s in snapshots.chart_snapshots(session, campaign_id=campaign_id, max_points=max_points)]


def snapshot_before(session: Session, campaign_id: int, at: datetime | None = None,
                    before: int | None = None) -> Snapshot | None:
    """The plan as it stood just before `at`, or just before snapshot `before` (None: no snapshot that old)."""
    row = snapshots.newest_snapshot(session, campaign_id=campaign_id, before=at, before_id=before)
    return None if row is None else _snapshot(row)


def snapshot_of(session: Session, campaign_id: int, snapshot_id: int) -> Snapshot:
    """One stored snapshot; NotFound if the campaign has no such snapshot."""
    row = snapshots.snapshot_in(session, campaign_id=campaign_id, snapshot_id=snapshot_id)
    if row is None:
        raise NotFound(f"no snapshot {snapshot_id} in campaign {campaign_id}")
    return _snapshot(row)


def current(analysis: Analysis, now: datetime) -> Snapshot:
    """The plan as it stands, as a snapshot not stored."""
    return Snapshot(id=None, taken_at=now, by="", cause="now", regimes=figures_of(analysis))
