"""The statistics against samples whose answers are known: exact rank-test p-values (as R's wilcox.test
gives them), identical, shifted and heavy-tailed samples, and seeded intervals."""

import numpy as np
import pytest

from tierplan.planning.stats import (
    Aggregation,
    aggregate,
    bootstrap_interval,
    mann_whitney,
    ratio_interval,
    split_scores,
)


def test_aggregates():
    assert aggregate([3, 1, 2], Aggregation.NEWEST) == 2
    assert aggregate([3, 1, 2, 10], Aggregation.MEDIAN) == 2.5
    assert aggregate([3, 1, 2, 10], Aggregation.MEAN) == 4


def test_exact_rank_test_of_separated_samples():
    # wilcox.test(c(1,2,3), c(4,5,6)): W = 0, p = 0.1; 8 against 8 wholly apart: p = 2 / choose(16, 8)
    small = mann_whitney([1, 2, 3], [4, 5, 6])
    assert small.exact and small.u == 0 and small.p_value == pytest.approx(0.1)
    wide = mann_whitney(list(range(8)), list(range(10, 18)))
    assert wide.p_value == pytest.approx(2 / 12870)


def test_exact_rank_test_of_interleaved_samples():
    # wilcox.test(c(1,3,5,7), c(2,4,6,8)): W = 6, p-value = 0.6857
    result = mann_whitney([1, 3, 5, 7], [2, 4, 6, 8])
    assert result.u == 6
    assert result.p_value == pytest.approx(0.6857, abs=1e-4)


def test_identical_samples_do_not_differ():
    result = mann_whitney([5.0] * 6, [5.0] * 6)
    assert result.z == 0 and result.p_value == 1
    assert bootstrap_interval([5.0] * 6, Aggregation.MEDIAN) == (5.0, 5.0)
    assert ratio_interval([5.0] * 4, [5.0] * 4, Aggregation.MEAN) == (1.0, 1.0)


def test_a_shift_is_found_with_ties_by_the_normal_approximation():
    rng = np.random.default_rng(7)
    base = np.round(rng.normal(100, 2, 25))
    result = mann_whitney(base + 5, base)
    assert not result.exact  # rounded values tie
    assert result.z > 0 and result.p_value < 0.01


def test_heavy_tails_move_the_mean_not_the_median():
    rng = np.random.default_rng(3)
    runs = list(100 + rng.standard_t(1.5, 15))  # Student t with 1.5 degrees of freedom: infinite variance
    runs[4] = 10_000.0
    median_low, median_high = bootstrap_interval(runs, Aggregation.MEDIAN)
    mean_low, mean_high = bootstrap_interval(runs, Aggregation.MEAN)
    assert 95 < median_low <= median_high < 105
    assert mean_high > 500  # one outlier drags the mean's interval far off


def test_intervals_are_seeded():
    runs = [98.0, 103.0, 101.0, 97.0, 100.0]
    assert bootstrap_interval(runs, Aggregation.MEAN) == bootstrap_interval(runs, Aggregation.MEAN)


def test_the_ratio_interval_covers_a_known_shift():
    rng = np.random.default_rng(11)
    before = list(rng.normal(100, 1, 10))
    after = list(rng.normal(130, 1, 10))
    low, high = ratio_interval(after, before, Aggregation.MEDIAN)
    assert low < 1.30 < high or abs(low - 1.3) < 0.02
    assert low > 1.25 and high < 1.35


def test_split_scores_peak_at_the_step():
    rng = np.random.default_rng(5)
    values = list(rng.normal(100, 3, 18)) + list(rng.normal(92, 3, 12))
    scores = split_scores(values, min_segment=4)
    assert int(np.argmax(scores)) == 18
    assert scores[:4].max() == 0 and scores[-4:].max() == 0


def test_split_scores_of_too_short_a_series_are_zero():
    assert split_scores([1.0, 2.0, 3.0], min_segment=2).max() == 0


# changes in a history

def _history(values, regime="batch 1", metric="output_tok_s"):
    from datetime import datetime, timedelta

    from tests.factories import make_measurement

    start = datetime(2026, 10, 1)
    return [make_measurement(float(v), start + timedelta(days=i), regime=regime, metric=metric)
            for i, v in enumerate(values)]


def test_a_step_in_30_noisy_runs_is_found_at_its_first_run():
    from tierplan.planning.regressions import series_changes

    rng = np.random.default_rng(2026)
    values = list(rng.normal(100, 2.5, 17)) + list(rng.normal(91, 2.5, 13))
    series = series_changes("batch 1", "output_tok_s", _history(values))
    assert len(series.changes) == 1
    change = series.changes[0]
    assert change.first_run.measured_at.day == 18  # run 18 (index 17), 2026-10-18
    assert change.runs_before == 17 and change.runs_after == 13
    assert not change.improvement and -0.12 < change.change < -0.06
    low, high = change.interval
    assert low < change.change < high and high < 0


def test_a_latency_that_drops_is_an_improvement_and_two_steps_are_both_found():
    from tierplan.planning.regressions import series_changes

    rng = np.random.default_rng(9)
    values = list(rng.normal(30, 0.5, 10)) + list(rng.normal(24, 0.5, 10)) + list(rng.normal(27, 0.5, 10))
    series = series_changes("batch 1", "tpot_ms", _history(values, metric="tpot_ms"))
    assert [c.first_run.measured_at.day for c in series.changes] == [11, 21]
    assert [c.improvement for c in series.changes] == [True, False]


def test_noise_alone_or_an_outlier_is_no_change():
    from tierplan.planning.regressions import series_changes

    rng = np.random.default_rng(4)
    flat = list(rng.normal(100, 3, 30))
    flat[12] = 400.0  # one broken run
    assert series_changes("batch 1", "output_tok_s", _history(flat)).changes == ()
    small = list(rng.normal(100, 0.2, 15)) + list(rng.normal(102, 0.2, 15))  # 2%: below the 5% threshold
    assert series_changes("batch 1", "output_tok_s", _history(small)).changes == ()
    assert series_changes("batch 1", "output_tok_s", _history(small), min_change=0.01).changes != ()


def test_a_short_history_is_not_judged():
    from tierplan.planning.regressions import series_changes

    series = series_changes("batch 1", "output_tok_s", _history([100, 101, 80, 79, 78]))
    assert not series.judged and series.changes == ()
