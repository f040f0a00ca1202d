"""The SVG charts draw the plan's numbers (read back from the SVG), escape what users typed, and switch to a log
scale when the values span more than 10x."""

import re
from xml.etree import ElementTree as ET

from tierplan.views.charts import TierPoint, projection_chart, scale_of

SVG = "{http://www.w3.org/2000/svg}"


def _chart(**overrides):
    points = [TierPoint("baseline", 20.0), TierPoint("A", 40.0, 30.0, 52.0), TierPoint("B", 60.0, 45.0, 75.0)]
    values = {"chart_id": "chart-1", "regime": "batch 1", "target_tok_s": 100.0, "ceiling_tok_s": 80.0,
              "table_id": "t", "points": points}
    values.update(overrides)
    return ET.fromstring(re.sub(r' xmlns="[^"]+"', "", str(projection_chart(**values))))


def test_the_chart_draws_the_plans_numbers():
    svg = _chart()
    assert [float(c.get("data-tok-s")) for c in svg.iter("circle")] == [20.0, 40.0, 60.0]
    assert [(float(b.get("data-p10")), float(b.get("data-p90"))) for b in svg.iter("rect")] == [(30, 52), (45, 75)]
    lines = {line.get("class"): float(line.get("data-tok-s")) for line in svg.iter("line") if line.get("data-tok-s")}
    assert lines == {"target": 100.0, "ceiling": 80.0}
    assert svg.find("title").text == "Projected output throughput of batch 1 after each tier"
    assert "batch 1: baseline 20.0 tok/s, A 40.0 tok/s, B 60.0 tok/s" in svg.find("desc").text
    assert svg.get("data-scale") == "linear"
    assert [t.text for t in svg.iter("text") if t.get("class") == "axis-unit"] == ["tok/s"]  # the axis says its unit


def test_higher_values_are_drawn_higher():
    svg = _chart()
    ys = [float(c.get("cy")) for c in svg.iter("circle")]
    assert ys[0] > ys[1] > ys[2]


def test_a_wide_range_is_drawn_on_a_log_scale():
    svg = _chart(target_tok_s=1000.0, ceiling_tok_s=None)
    assert svg.get("data-scale") == "log"
    assert scale_of([10, 50]).log is False and scale_of([10, 101]).log is True


def test_user_text_is_escaped():
    text = str(projection_chart("c", "<script>alert(1)</script>", [TierPoint("baseline", 5.0)], 10.0, None, "t"))
    assert "<script>" not in text and "&lt;script&gt;" in text
    ET.fromstring(text)  # still well-formed


def test_nothing_measured_draws_nothing():
    assert str(projection_chart("c", "r", [TierPoint("baseline", None)], 10.0, None, "t")) == ""


def test_the_shares_chart_stacks_each_step_to_its_whole():
    from tierplan.views.charts import shares_chart, shares_rows

    steps = [("baseline", (("attention", 0.6), ("moe", 0.3), ("other", 0.1))),
             ("after A", (("attention", 0.3), ("moe", 0.5), ("other", 0.2)))]
    svg = ET.fromstring(re.sub(r' xmlns="[^"]+"', "", str(shares_chart("s", "batch 1", steps, "t"))))
    drawn: dict[str, dict[str, float]] = {}
    for rect in svg.iter("rect"):
        if rect.get("data-step"):
            drawn.setdefault(rect.get("data-step"), {})[rect.get("data-bucket")] = float(rect.get("data-share"))
    assert drawn == {label: dict(shares) for label, shares in steps}
    colours = {r.get("data-bucket"): r.get("fill") for r in svg.iter("rect") if r.get("data-step") == "baseline"}
    assert all(r.get("fill") == colours[r.get("data-bucket")] for r in svg.iter("rect") if r.get("data-step"))
    assert shares_rows(steps) == [("attention", ["60%", "30%"]), ("moe", ["30%", "50%"]), ("other", ["10%", "20%"])]


def test_the_whatif_chart_draws_each_buckets_curve_and_names_its_limit():
    from tierplan.planning.model import Profile
    from tierplan.planning.whatif import what_if
    from tierplan.views.charts import whatif_chart

    curves = what_if(Profile.of({"attention": 0.6, "moe": 0.3}))
    svg = ET.fromstring(re.sub(r' xmlns="[^"]+"', "", str(whatif_chart(
        "w", "batch 1", [(c.bucket, c.end_to_end) for c in curves], "t"))))
    drawn = {p.get("data-bucket"): [float(g) for g in p.get("data-gains").split()] for p in svg.iter("path")}
    for c in curves:
        assert drawn[c.bucket] == [g for s, g in c.end_to_end if s != float("inf")]
    labels = [t.text for t in svg.iter("text") if t.get("class") == "line-label"]
    assert "attention → 2.50x" in labels  # 1 / (1 - 0.6)


def test_the_waterfall_credits_each_intervention_and_cuts_at_the_ceiling():
    from tierplan.views.charts import waterfall_bars, waterfall_chart

    bars = waterfall_bars(10.0, [("A", 30.0, (("A1", 2.0), ("A2", 3.0))), ("B", 40.0, (("B1", 5.0),))])
    assert [(b.label, b.start, b.end, b.kind) for b in bars] == [
        ("baseline", 0.0, 10.0, "total"), ("A1", 10.0, 20.0, "gain"), ("A2", 20.0, 30.0, "gain"),
        ("after A", 0.0, 30.0, "total"), ("B1", 30.0, 50.0, "gain"), ("B ceiling", 50.0, 40.0, "loss"),
        ("after B", 0.0, 40.0, "total")]
    svg = ET.fromstring(re.sub(r' xmlns="[^"]+"', "", str(waterfall_chart("w", "<b>", bars, "t"))))
    drawn = [(r.get("data-label"), float(r.get("data-start")), float(r.get("data-end"))) for r in svg.iter("rect")]
    assert drawn == [(b.label, b.start, b.end) for b in bars]
    assert svg.find("title").text == "Where each tier's gain in <b> comes from"
