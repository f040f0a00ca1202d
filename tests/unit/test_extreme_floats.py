"""Hypothesis over every float (NaN, infinities, subnormals, 1e308) for the views, and over the whole physical range
the fields take (0, and 1e-9 to 1e9 in size) for the core: a page never meets an exception or draws "nan"; the
core's projections stay finite, ordered and under the ceiling whatever size the figures have."""

import math
import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from tests.factories import make_campaign, make_intervention, make_regime, make_tier
from tierplan.models.fields import LARGEST, SMALLEST
from tierplan.planning.model import Effect, EffectKind, ThreePoint
from tierplan.planning.projection import project_regime, verdict
from tierplan.planning.uncertainty import simulate
from tierplan.text import formatting as fmt
from tierplan.views import charts

ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True)
MAYBE = st.none() | ANY_FLOAT
PHYSICAL = st.just(0.0) | st.floats(SMALLEST, LARGEST) | st.sampled_from([SMALLEST, LARGEST, 1.0])
POSITIVE = st.floats(SMALLEST, LARGEST) | st.sampled_from([SMALLEST, LARGEST])
FORMATTERS = (fmt.digits, fmt.number, fmt.tok_s, fmt.size, fmt.params, fmt.weight_size, fmt.count, fmt.factor,
              fmt.share, fmt.change, fmt.days, fmt.plain, fmt.input_number, fmt.probability, fmt.measured)
NOT_A_NUMBER_IN_AN_ATTRIBUTE = re.compile(r'="[^"]*\b(nan|inf)', re.I)


def drawn_well(chart: Markup) -> bool:
    """A chart, a note in its place, or nothing; never an SVG attribute that is not a number."""
    return isinstance(chart, Markup) and not NOT_A_NUMBER_IN_AN_ATTRIBUTE.search(str(chart))


@settings(max_examples=300, deadline=None)
@given(ANY_FLOAT)
def test_every_formatter_writes_any_float_as_text(value):
    for formatter in FORMATTERS:
        assert isinstance(formatter(value), str), formatter
    assert isinstance(fmt.three_point(value, value, value, "x"), str)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(MAYBE, MAYBE, MAYBE), min_size=1, max_size=5), ANY_FLOAT, MAYBE)
def test_the_projection_chart_draws_or_says_why_not(points, target, ceiling):
    tiers = [charts.TierPoint(f"T{n}", *values) for n, values in enumerate(points)]
    assert drawn_well(charts.projection_chart("c", "batch 1", tiers, target, ceiling, "t"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["attention", "moe", "other"]), ANY_FLOAT), max_size=4),
                min_size=1, max_size=4))
def test_the_shares_chart_draws_or_says_why_not(steps):
    assert drawn_well(charts.shares_chart("c", "batch 1", [(f"after {n}", s) for n, s in enumerate(steps)], "t"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(ANY_FLOAT, ANY_FLOAT), max_size=6), min_size=1, max_size=3))
def test_the_whatif_chart_draws_or_says_why_not(curves):
    assert drawn_well(charts.whatif_chart("c", "batch 1", [(f"b{n}", c) for n, c in enumerate(curves)], "t"))


@settings(max_examples=200, deadline=None)
@given(ANY_FLOAT, st.lists(st.tuples(st.sampled_from("ABC"), MAYBE, st.lists(st.tuples(st.just("X1"), ANY_FLOAT),
                                                                           max_size=3)), max_size=3))
def test_the_waterfall_draws_or_says_why_not(baseline, tiers):
    assert drawn_well(charts.waterfall_chart("c", "batch 1", charts.waterfall_bars(baseline, tiers), "t"))


@st.composite
def physical_campaigns(draw):
    """A campaign whose every figure is one the fields accept, from 1e-9 to 1e9 in size."""
    shares = [draw(st.floats(0.0, 1.0)) for _ in range(3)]
    total = sum(shares) or 1.0
    regime = make_regime(shares={b: s / total for b, s in zip(("attention", "moe", "other"), shares, strict=True)},
                         baseline_tok_s=draw(POSITIVE))
    interventions = []
    for n in range(draw(st.integers(1, 4))):
        low, likely, high = sorted(draw(POSITIVE) for _ in range(3))
        effect = Effect(kind=EffectKind.BUCKET, bucket=draw(st.sampled_from(["attention", "moe", "other"])),
                        speedup=ThreePoint(low, likely, high))
        interventions.append(make_intervention(f"I{n}", effect, tier_key=draw(st.sampled_from(["A", "B"]))))
    ceiling = draw(st.none() | POSITIVE)
    campaign = make_campaign([regime], interventions, tiers=(make_tier("A", 1), make_tier("B", 2)))
    return replace(campaign, ceilings_tok_s=(("batch 1", ceiling),) if ceiling else ())


@settings(max_examples=150, deadline=None)
@given(physical_campaigns())
def test_projections_of_figures_of_any_physical_size_stay_finite_and_under_the_ceiling(campaign):
    ceiling = campaign.ceiling_of("batch 1")
    result = project_regime(campaign.regimes[0], campaign)
    for step in result.steps:
        assert math.isfinite(step.tok_s) and step.tok_s > 0
        assert ceiling is None or step.tok_s <= ceiling * (1 + 1e-9)
    for band in simulate(campaign, 50, seed=1).of("batch 1"):
        assert math.isfinite(band.p10_tok_s) and band.p10_tok_s <= band.p90_tok_s * (1 + 1e-9)
        assert ceiling is None or band.p90_tok_s <= ceiling * (1 + 1e-9)


@settings(max_examples=300, deadline=None)
@given(st.none() | PHYSICAL, POSITIVE, st.none() | PHYSICAL)
def test_a_verdict_is_given_for_figures_of_any_physical_size(tok_s, target_tok_s, ceiling_tok_s):
    said = verdict(tok_s, target_tok_s)
    assert said.reaches is None or said.reaches == (tok_s is not None and tok_s >= target_tok_s)
    assert isinstance(fmt.verdict(said), str)
    assert fmt.ceiling_verdict(target_tok_s, ceiling_tok_s or None) is None or ceiling_tok_s


def test_a_tier_at_zero_on_a_log_scale_sits_on_its_axis():
    """Found by the test above in CI: 0 tok/s beside a 100x span (a log scale) had no logarithm."""
    tiers = [charts.TierPoint("baseline", 0.0, 0.0, 0.0), charts.TierPoint("A", 100.0, 50.0, 200.0)]
    svg = charts.projection_chart("c", "batch 1", tiers, 1.0, None, "t")
    assert drawn_well(svg) and 'data-scale="log"' in svg and 'data-tok-s="0.0"' in svg
