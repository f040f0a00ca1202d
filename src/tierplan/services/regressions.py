"""Changes found in a campaign's histories (planning/regressions.py), searched in the newest runs of each history
and kept per database until that history changes: a request costs the histories it has not seen yet, never the
length of the history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session

from tierplan.db import history_reads, repo
from tierplan.db.tables import Regime, pk
from tierplan.models.errors import NotFound
from tierplan.planning import model as core
from tierplan.planning.regressions import MIN_SAMPLES, Series, series_changes
from tierplan.services.kept import kept

WINDOW = 500  # runs searched a history: the newest ones (at least twice the runs a side needs)


@dataclass(frozen=True)
class Searched:
    """A history's newest runs searched (`series`) and how many runs the history holds in all (`runs`)."""

    series: Series
    runs: int


def window_of(min_samples: int) -> int:
    """How many of a history's newest runs are searched."""
    return max(WINDOW, 4 * min_samples)


def changes_in(session: Session, campaign_id: int, *, regime: str | None = None, metric: str | None = None,
               min_samples: int = MIN_SAMPLES, min_change: float | None = None) -> list[Searched]:
    """The changes in the campaign's histories (one regime's, one metric's when given), in regime and metric
    order; NotFound for no such campaign, or a regime it does not have."""
    if repo.get_campaign(session, campaign_id=campaign_id) is None:
        raise NotFound(f"no campaign {campaign_id}")
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    if regime is not None and regime not in {r.name for r in regimes}:
        raise NotFound(f"campaign {campaign_id} has no regime {regime!r}")
    chosen = {pk(r): r for r in regimes if regime is None or r.name == regime}
    groups: dict[tuple[int, str], list[tuple]] = {}
    for row in history_reads.series_summaries(session, regime_ids=list(chosen)):
        if metric is None or row[1] == metric:
            groups.setdefault((row[0], row[1]), []).append(row)
    ordered = sorted(groups, key=lambda k: (chosen[k[0]].name, k[1]))
    return [_series(session, chosen[regime_id], name, groups[(regime_id, name)], min_samples, min_change)
            for regime_id, name in ordered]


def _series(session: Session, regime: Regime, metric: str, summaries: Sequence[tuple], min_samples: int,
            min_change: float | None) -> Searched:
    def search() -> Searched:
        runs = [core.Measurement(regime.name, metric, value, at, core.MeasurementKind(kind), ref=run_id)
                for run_id, at, value, kind in history_reads.newest_runs(session, regime_id=pk(regime), metric=metric,
                                                                          limit=window_of(min_samples))]
        return Searched(series_changes(regime.name, metric, runs, min_samples=min_samples, min_change=min_change),
                        runs=sum(row[4] for row in summaries))

    return kept(session, ("regressions", pk(regime), regime.name, metric, history_reads.version_of(summaries),
                          min_samples, min_change), search)
