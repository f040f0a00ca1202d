"""A stream of runs kept to what the planner's rules pick from it (see model.Campaign): what an import of any
length holds in memory to say what it would change.

Kept: the newest run of each regime, metric, kind and state (the baselines, the load points, the states a regime
was measured in, the TPOT beside a baseline), the newest `window` runs of each regime and metric (what a gate
judges after its tier started) and, for each gate of a started tier, the newest `window` runs up to its start
(its reference). Among runs measured at the same time the one added later counts as the newer, as a run stored
later would. A capacity gate's moments are not kept: an import's preview does not judge them."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from datetime import datetime

from tierplan.planning.model import Gate, Measurement, Tier


class RunsKept:
    def __init__(self, gates: Sequence[Gate] = (), tiers: Sequence[Tier] = ()) -> None:
        starts = {t.key: t.started_at for t in tiers}
        self.window = max([g.window for g in gates] + [1])
        self.references: list[tuple[str, str, datetime, int]] = [
            (g.reference_regime or g.regime, g.metric, start, g.window) for g in gates
            if g.relative_pct is not None and (start := starts.get(g.tier_key)) is not None]
        self.newest: dict[tuple, tuple[tuple[datetime, int], Measurement]] = {}
        self.last: dict[tuple[str, str], list[tuple[tuple[datetime, int], Measurement]]] = {}
        self.before: dict[int, list[tuple[tuple[datetime, int], Measurement]]] = {}
        self.added = 0

    def add(self, run: Measurement) -> None:
        """Keep `run` if a rule picks it among the runs added so far."""
        self.added += 1
        order = (run.measured_at, self.added)
        key = (run.regime, run.metric, run.kind, run.includes)
        if key not in self.newest or self.newest[key][0] < order:
            self.newest[key] = (order, run)
        _keep_newest(self.last.setdefault((run.regime, run.metric), []), (order, run), self.window)
        for n, (regime, metric, start, window) in enumerate(self.references):
            if run.regime == regime and run.metric == metric and run.measured_at <= start:
                _keep_newest(self.before.setdefault(n, []), (order, run), window)

    def runs(self) -> tuple[Measurement, ...]:
        """The runs kept, newest first (later-added first among runs of one time), each once."""
        kept = {id(run): (order, run) for order, run in self.newest.values()}
        for entries in (*self.last.values(), *self.before.values()):
            kept.update({id(run): (order, run) for order, run in entries})
        return tuple(run for _, run in sorted(kept.values(), key=lambda e: e[0], reverse=True))


def _keep_newest(entries: list[tuple[tuple[datetime, int], Measurement]],
                 entry: tuple[tuple[datetime, int], Measurement], size: int) -> None:
    """Insert `entry` into `entries` (sorted oldest first) and drop the oldest beyond `size`."""
    keys = [e[0] for e in entries]
    entries.insert(bisect.bisect(keys, entry[0]), entry)
    if len(entries) > size:
        del entries[0]
