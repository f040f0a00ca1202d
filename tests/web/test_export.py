"""The roadmap as markdown: golden file, intact GFM tables, escaped user text."""

import os
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

GOLDEN = Path(__file__).parent.parent / "data" / "roadmap_demo.md"


def table_shapes(markdown: str) -> list[list[int]]:
    """For each table, the number of cells in each row (header first)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    shapes, row_cells, current = [], 0, None
    for token in tokens:
        if token.type == "table_open":
            current = []
        elif token.type == "tr_open":
            row_cells = 0
        elif token.type in ("th_open", "td_open"):
            row_cells += 1
        elif token.type == "tr_close":
            current.append(row_cells)
        elif token.type == "table_close":
            shapes.append(current)
    return shapes


def test_the_export_is_a_markdown_download(client, demo_id):
    response = client.get(f"/campaigns/{demo_id}/roadmap.md")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.headers["content-disposition"] == f'attachment; filename="roadmap-campaign-{demo_id}.md"'


def test_the_demo_roadmap_matches_the_golden_file(client, demo_id):
    text = client.get(f"/campaigns/{demo_id}/roadmap.md").text
    if os.environ.get("TIERPLAN_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_every_table_of_the_demo_roadmap_parses_with_full_rows(client, demo_id):
    shapes = table_shapes(client.get(f"/campaigns/{demo_id}/roadmap.md").text)
    # verdict, two regimes, the concurrency curve, interventions and gates of three tiers, suggested order, two
    # what-if tables
    assert len(shapes) == 1 + 2 + 1 + 3 * 2 + 1 + 2
    for rows in shapes:
        assert len(set(rows)) == 1, rows


def test_pipes_backslashes_and_newlines_in_user_text_do_not_break_tables(client, demo_id):
    form = {"key": "X|1", "title": "split | the \\ table\nsecond line", "tier_id": "1", "status": "proposed",
            "effort_low_days": "1", "effort_likely_days": "1", "effort_high_days": "1",
            "effort_provenance": "assumed", "description": "<script>alert(1)</script>"}
    assert client.post(f"/campaigns/{demo_id}/interventions/new", data=form).status_code in (200, 303)
    text = client.get(f"/campaigns/{demo_id}/roadmap.md").text
    assert "split \\| the \\\\ table<br>second line" in text
    for rows in table_shapes(text):
        assert len(set(rows)) == 1, rows
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<script>" not in html


def test_an_empty_campaign_exports_without_tables_to_break(client):
    client.post("/campaigns", data={"name": "blank", "gpu_count": "1"})
    text = client.get("/campaigns/1/roadmap.md").text
    assert text.startswith("# Roadmap: blank") and "## Assumptions" in text
    assert all(len(set(rows)) == 1 for rows in table_shapes(text))


def test_links_and_images_in_user_text_come_out_inert(client, demo_id):
    evil = "see ![x](http://evil.example/t.png) and [click](javascript:alert(1)) <img src=x onerror=alert(1)>"
    form = {"key": "X2", "title": evil, "tier_id": "1", "status": "proposed", "effort_low_days": "1",
            "effort_likely_days": "1", "effort_high_days": "1", "effort_provenance": "assumed", "description": evil}
    assert client.post(f"/campaigns/{demo_id}/interventions/new", data=form).status_code in (200, 303)
    client.patch(f"/api/campaigns/{demo_id}", json={"notes": evil, "name": "[n](javascript:alert(1))"})
    html = MarkdownIt("commonmark").enable("table").render(client.get(f"/campaigns/{demo_id}/roadmap.md").text)
    assert "<img" not in html and 'href="javascript' not in html and "evil.example/t.png\"" not in html


def test_the_export_carries_a_mermaid_chart_of_each_regime_with_the_tables_numbers(client, demo_id):
    import re

    text = client.get(f"/campaigns/{demo_id}/roadmap.md").text
    blocks = re.findall(r"```mermaid\n---\n.*?\n---\nxychart-beta\n(.*?)```", text, re.S)
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    assert len(blocks) == len(plan["regimes"])
    for regime, block in zip(plan["regimes"], blocks, strict=True):
        bars = [float(v) for v in re.search(r"bar \[([^\]]+)\]", block).group(1).split(", ")]
        tok_s = [regime["baseline_tok_s"]] + [p["tok_s"] for p in regime["projections"]]
        assert bars == pytest.approx(tok_s, rel=5e-3)  # rounded to 3 figures, as the tables show them
        shown = re.search(rf"### {regime['name']}\n.*?\| output tok/s \| ([^\n]+) \|", text, re.S).group(1)
        assert [float(c.split()[0].replace(",", "")) for c in shown.split(" | ")] == bars
        assert f'title "{regime["name"]}: output tok/s a tier (bars); target red, ceiling amber"' in block


def test_the_export_ranks_the_assumed_estimates_by_how_far_each_moves_a_projection(client, demo_id):
    roadmap = client.get(f"/campaigns/{demo_id}/roadmap.md").text
    section = roadmap.split("## Projections that rest on assumptions")[1].split("Numbers nobody measured")[0]
    items = [line for line in section.splitlines() if line[:1].isdigit()]
    # each names its intervention, the regimes it moves and the two ends; the widest first
    assert items[0].startswith("1. B2: moe 2x (1.5–3x) faster in every regime: concurrency 16 ")
    assert all(" tok/s to " in line and "after the plan (short by" in line for line in items)
    assert "rest on assumptions" not in client.get(f"/campaigns/{demo_id}").text  # the page does not pay for it
