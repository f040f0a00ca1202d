"""Statistics for small, noisy benchmark samples: aggregates, bootstrap intervals and a rank test.

Benchmarks that run in CI are repeated a handful of times and their noise is rarely normal, so the tests
here make no assumption about its shape (as asv does): a percentile bootstrap gives the interval of a
median, a mean or a ratio of two of them, and the Mann-Whitney U statistic (exact for small samples
without ties, the normal approximation with the tie correction otherwise) says whether two samples differ.
Every random draw is seeded: the same samples give the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

import numpy as np

CONFIDENCE = 0.90  # two-sided: each bound is a one-sided 95% statement
RESAMPLES = 4000
SEED = 20261204
EXACT_MAX_SIZE = 20  # exact U distribution up to 20 samples a side (no ties)


class Aggregation(StrEnum):
    """How a gate or a regression sums up repeated runs."""

    NEWEST = "newest"
    MEDIAN = "median"
    MEAN = "mean"


def aggregate(values: Sequence[float], how: Aggregation) -> float:
    """The statistic of `values` (given oldest first: NEWEST is the last)."""
    if not values:
        raise ValueError("no values to aggregate")
    if how is Aggregation.NEWEST:
        return float(values[-1])
    array = np.asarray(values, dtype=float)
    return float(np.median(array) if how is Aggregation.MEDIAN else np.mean(array))


def _resampled(values: Sequence[float], how: Aggregation, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """`resamples` bootstrap statistics of `values` (a constant for a single value or NEWEST)."""
    array = np.asarray(values, dtype=float)
    if len(array) == 1 or how is Aggregation.NEWEST:
        return np.full(resamples, aggregate(values, how))
    draws = array[rng.integers(0, len(array), size=(resamples, len(array)))]
    statistics: np.ndarray = np.median(draws, axis=1) if how is Aggregation.MEDIAN else np.mean(draws, axis=1)
    return statistics


def _bounds(statistics: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1 - confidence) / 2
    low, high = np.quantile(statistics, [tail, 1 - tail])
    return float(low), float(high)


def bootstrap_interval(values: Sequence[float], how: Aggregation, *, confidence: float = CONFIDENCE,
                       resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """Percentile-bootstrap interval of the statistic of `values`; a point for one value."""
    rng = np.random.default_rng(seed)
    return _bounds(_resampled(values, how, rng, resamples), confidence)


def ratio_interval(candidate: Sequence[float], reference: Sequence[float], how: Aggregation, *,
                   confidence: float = CONFIDENCE, resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """Interval of statistic(candidate) / statistic(reference), each side resampled on its own."""
    rng = np.random.default_rng(seed)
    top = _resampled(candidate, how, rng, resamples)
    bottom = _resampled(reference, how, rng, resamples)
    if np.any(bottom <= 0):
        raise ValueError("a ratio needs a positive reference")
    return _bounds(top / bottom, confidence)


@dataclass(frozen=True)
class RankTest:
    """Mann-Whitney U of sample a against sample b."""

    u: float  # pairs (x in a, y in b) with x > y, ties counting a half
    z: float  # standardised U: > 0 when a tends to be larger
    p_value: float  # two-sided
    exact: bool


@lru_cache(maxsize=256)
def _u_counts(n1: int, n2: int) -> tuple[int, ...]:
    """How many orderings of n1 + n2 distinct values give each U (0 .. n1 n2)."""
    # f(i, j)[u]: arrangements of i a's and j b's with statistic u; the largest value is an a (adding j) or a b.
    table: dict[tuple[int, int], tuple[int, ...]] = {(0, j): (1,) for j in range(n2 + 1)}
    for i in range(1, n1 + 1):
        table[(i, 0)] = (1,)
        for j in range(1, n2 + 1):
            size = i * j + 1
            counts = [0] * size
            for u, c in enumerate(table[(i - 1, j)]):
                counts[u + j] += c
            for u, c in enumerate(table[(i, j - 1)]):
                counts[u] += c
            table[(i, j)] = tuple(counts)
    return table[(n1, n2)]


def _ranks(values: np.ndarray) -> tuple[np.ndarray, float]:
    """Mid-ranks (1-based) and the tie term sum(t^3 - t)."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranks = np.empty(len(values))
    tie_term = 0.0
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2 + 1
        t = end - start + 1
        tie_term += t**3 - t
        start = end + 1
    return ranks, tie_term


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> RankTest:
    """Two-sided Mann-Whitney U test of a against b."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need a value")
    values = np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    ranks, tie_term = _ranks(values)
    u = float(ranks[:n1].sum() - n1 * (n1 + 1) / 2)
    mean = n1 * n2 / 2
    n = n1 + n2
    variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    z = 0.0 if variance <= 0 else (u - mean) / math.sqrt(variance)
    if tie_term == 0 and max(n1, n2) <= EXACT_MAX_SIZE:
        counts = _u_counts(n1, n2)
        total = sum(counts)
        extreme = min(u, n1 * n2 - u)
        tail = sum(counts[: int(math.floor(extreme)) + 1]) / total
        return RankTest(u, z, min(1.0, 2 * tail), exact=True)
    if variance <= 0:
        return RankTest(u, 0.0, 1.0, exact=False)
    corrected = max(0.0, abs(u - mean) - 0.5) / math.sqrt(variance)  # continuity correction
    return RankTest(u, z, min(1.0, math.erfc(corrected / math.sqrt(2))), exact=False)


def split_scores(values: Sequence[float] | np.ndarray, min_segment: int) -> np.ndarray:
    """|z| of the rank test of values[:k] against values[k:] for every k (0 where a side is too short).

    One ranking serves every split: U_k is the sum of the first k ranks less k(k+1)/2.
    """
    array = np.asarray(values, dtype=float)
    n = len(array)
    scores = np.zeros(n + 1)
    if n < 2 * min_segment:
        return scores
    ranks, tie_term = _ranks(array)
    k = np.arange(min_segment, n - min_segment + 1)
    before = np.cumsum(ranks)[k - 1]
    u = before - k * (k + 1) / 2
    m = n - k
    variance = k * m / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(variance > 0, (u - k * m / 2) / np.sqrt(np.where(variance > 0, variance, 1)), 0.0)
    scores[k] = np.abs(z)
    return scores
