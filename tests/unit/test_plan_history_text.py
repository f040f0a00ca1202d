"""What the plan's history says a change did to a regime's projection."""

from tierplan.services.snapshots import RegimeFigures, TierFigures
from tierplan.views.plan_history import regime_effect


def figures(p50: float, baseline: float = 10.0) -> RegimeFigures:
    return RegimeFigures("batch 1", baseline, 1000.0, 576.0, (TierFigures("C", p50, p50 * 0.6, p50, p50 * 1.7, 0.0),))


def test_a_move_below_the_shown_figures_is_said_once_with_its_size_not_as_127_to_127():
    effect = regime_effect(figures(127.1), figures(127.0), "batch 1")
    assert effect.moved and effect.text == "P50 127 tok/s (-0.079%)"


def test_a_move_that_shows_gives_both_values_and_the_baseline_that_caused_it():
    effect = regime_effect(figures(127.0), figures(118.0, baseline=45.0), "batch 1")
    assert effect.text == "P50 127 → 118 tok/s (-7.1%); baseline 10.0 → 45.0 tok/s"


def test_an_unmoved_regime_says_no_change():
    assert regime_effect(figures(127.0), figures(127.0), "batch 1").text == "no change"
