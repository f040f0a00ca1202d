"""The roadmap's Mermaid blocks render as charts (Mermaid from npm, vendored for the tests only), and the
chart Mermaid draws says the plan's numbers: each bar's top read back through the scale the target and
ceiling lines fix is the projection the plan API gives for that tier."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tierplan.exporters.markdown import MERMAID_PALETTE

pytestmark = pytest.mark.browser

MERMAID = (Path(__file__).parent / "vendor" / "mermaid.min.js").read_text()
SCREENSHOTS = Path(__file__).parent / "screenshots"
RENDER = """async (blocks) => {
  mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
  const charts = [];
  for (const [i, text] of blocks.entries()) {
    const {svg} = await mermaid.render("roadmap-chart-" + i, text);  // throws on a block Mermaid cannot parse
    const holder = document.createElement("div");
    holder.innerHTML = svg;
    document.body.appendChild(holder);
    const lineY = g => Number(g.querySelector("path").getAttribute("d").match(/^M[\\d.]+,([\\d.]+)/)[1]);
    charts.push({
      title: holder.querySelector(".chart-title text").textContent,
      labels: [...holder.querySelectorAll(".bottom-axis .label text")].map(t => t.textContent),
      barTops: [...holder.querySelectorAll(".bar-plot-0 rect")].map(r => Number(r.getAttribute("y"))),
      lineYs: [...holder.querySelectorAll("[class^=line-plot]")].map(lineY),
      colours: [holder.querySelector(".bar-plot-0 rect").getAttribute("fill"),
                ...[...holder.querySelectorAll("[class^=line-plot] path")].map(p => p.getAttribute("stroke"))],
    });
  }
  return charts;
}"""


def test_the_roadmaps_mermaid_charts_render_and_draw_the_plans_projections(server, page):
    roadmap = page.request.get(server + "/campaigns/1/roadmap.md").text()
    plan = page.request.get(server + "/api/campaigns/1/plan").json()
    blocks = re.findall(r"```mermaid\n(.*?)```", roadmap, re.S)
    assert len(blocks) == len(plan["regimes"]) == 2
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(content=MERMAID)
    charts = page.evaluate(RENDER, blocks)
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "roadmap-mermaid.png"), full_page=True)
    for chart, regime, block in zip(charts, plan["regimes"], blocks, strict=True):
        assert chart["title"] == f"{regime['name']}: output tok/s a tier (bars); target red, ceiling amber"
        assert [c.lower() for c in chart["colours"]] == MERMAID_PALETTE.split(", ")  # as the title names them
        tiers = regime["projections"]
        assert chart["labels"] == ["baseline"] + [f"after {t['tier']}" for t in tiers]
        # the target line and the ceiling line (the values the block gives them) fix the drawn scale
        target, ceiling = (float(re.search(r"line \[([\d.]+),", line).group(1)) for line in block.split("\n")
                           if line.strip().startswith("line"))
        assert target == pytest.approx(regime["target_tok_s"]) and ceiling == pytest.approx(regime["ceiling_tok_s"], rel=1e-3)
        y_target, y_ceiling = chart["lineYs"]
        per_unit = (y_ceiling - y_target) / (ceiling - target)
        drawn = [(y - y_target) / per_unit + target for y in chart["barTops"]]
        wanted = [regime["baseline_tok_s"]] + [t["tok_s"] for t in tiers]
        assert drawn == pytest.approx(wanted, rel=0.006)  # the block writes 3 significant figures, regime["name"]
