"""Changes in a measurement history: where a regime's metric stepped up or down, and by how much.

Binary segmentation on ranks: the split of a series where the Mann-Whitney statistic of the runs before
against the runs after is largest is a change when its p-value, times the number of splits tried (Bonferroni:
the search looked at each of them), is below `alpha`, each side holds `min_samples` runs, and the medians
differ by at least the metric's threshold; each side is then searched again. Ranks keep a heavy-tailed run
from faking a step. A change is a regression or an improvement by the metric's direction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tierplan.planning.metrics import METRICS
from tierplan.planning.model import Measurement
from tierplan.planning.stats import Aggregation, aggregate, mann_whitney, ratio_interval, split_scores

MIN_SAMPLES = 4  # runs each side of a change
ALPHA = 0.01
THROUGHPUT_MIN_CHANGE = 0.05  # medians 5% apart, at least: smaller steps are within a CI machine's drift
SPREAD_MIN_CHANGE = 0.20  # std_* metrics are noisier than the values they describe


def min_change_of(metric: str) -> float:
    """The smallest relative change of `metric` reported."""
    return SPREAD_MIN_CHANGE if metric.startswith("std_") else THROUGHPUT_MIN_CHANGE


def higher_is_better(metric: str) -> bool:
    if metric in METRICS:
        return METRICS[metric].higher_is_better
    return not metric.endswith("_ms")


@dataclass(frozen=True)
class Change:
    regime: str
    metric: str
    first_run: Measurement  # the first run after the change
    runs_before: int
    runs_after: int
    before: float  # median of the runs before
    after: float  # median of the runs after
    change: float  # after / before - 1
    interval: tuple[float, float]  # 90% bootstrap interval of the change
    p_value: float  # of the rank test, times the splits tried
    improvement: bool


@dataclass(frozen=True)
class Series:
    """One regime's runs of one metric, oldest first, and the changes found in them."""

    regime: str
    metric: str
    runs: tuple[Measurement, ...]
    changes: tuple[Change, ...]
    judged: bool  # enough runs to find a change (2 x min_samples)


def _split(values: np.ndarray, start: int, end: int, min_samples: int, alpha: float,
           min_change: float) -> list[tuple[int, float]]:
    """(index of the first run after, p-value) of every change in values[start:end], in order."""
    segment = values[start:end]
    scores = split_scores(segment, min_samples)
    if scores.max() <= 0:
        return []
    k = int(np.argmax(scores))
    before, after = segment[:k], segment[k:]
    tried = len(segment) - 2 * min_samples + 1
    p_value = min(1.0, mann_whitney(list(after), list(before)).p_value * tried)
    base = float(np.median(before))
    size = float(np.median(after)) / base - 1 if base > 0 else 0.0
    if p_value >= alpha or abs(size) < min_change:
        return []
    return ([*_split(values, start, start + k, min_samples, alpha, min_change), (start + k, p_value),
             *_split(values, start + k, end, min_samples, alpha, min_change)])


def series_changes(regime: str, metric: str, runs: Sequence[Measurement], *, min_samples: int = MIN_SAMPLES,
                   alpha: float = ALPHA, min_change: float | None = None) -> Series:
    """The changes in one regime's runs of one metric."""
    ordered = tuple(sorted(runs, key=lambda m: m.measured_at))
    values = np.array([m.value for m in ordered], dtype=float)
    threshold = min_change_of(metric) if min_change is None else min_change
    cuts = _split(values, 0, len(values), min_samples, alpha, threshold)
    bounds = [0, *[c for c, _ in cuts], len(values)]
    changes = []
    for i, (cut, p_value) in enumerate(cuts):
        before = list(values[bounds[i]:cut])
        after = list(values[cut:bounds[i + 2]])
        low, high = ratio_interval(after, before, Aggregation.MEDIAN)
        b, a = aggregate(before, Aggregation.MEDIAN), aggregate(after, Aggregation.MEDIAN)
        changes.append(Change(regime, metric, ordered[cut], len(before), len(after), b, a, a / b - 1,
                              (low - 1, high - 1), p_value, (a > b) == higher_is_better(metric)))
    return Series(regime, metric, ordered, tuple(changes), judged=len(values) >= 2 * min_samples)


def find_changes(measurements: Iterable[Measurement], *, min_samples: int = MIN_SAMPLES, alpha: float = ALPHA,
                 min_change: float | None = None) -> tuple[Series, ...]:
    """Every regime's every metric (retracted runs left out by the caller), in regime and metric order."""
    groups: dict[tuple[str, str], list[Measurement]] = {}
    for m in measurements:
        groups.setdefault((m.regime, m.metric), []).append(m)
    return tuple(series_changes(regime, metric, runs, min_samples=min_samples, alpha=alpha, min_change=min_change)
                 for (regime, metric), runs in sorted(groups.items()))
