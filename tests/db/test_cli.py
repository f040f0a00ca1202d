"""The `tierplan` command against a real SQLite file."""

import subprocess
import sys

from markdown_it import MarkdownIt


def tierplan(*args, url: str):
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=120,
        env={"TIERPLAN_DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
    )


def test_migrate_demo_and_export_write_a_roadmap(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert tierplan("migrate", url=url).returncode == 0
    demo = tierplan("demo", url=url)
    assert demo.returncode == 0 and "campaign 1" in demo.stdout
    out = tmp_path / "roadmap.md"
    export = tierplan("export", "1", "--out", str(out), url=url)
    assert export.returncode == 0, export.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Roadmap: DeepSeek-V4-Flash on 8x RTX PRO 6000 Blackwell")
    assert "short by 6.5x" in text
    assert "<table>" in MarkdownIt("commonmark").enable("table").render(text)


def test_exporting_an_unknown_campaign_says_so(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    tierplan("migrate", url=url)
    export = tierplan("export", "7", "--out", str(tmp_path / "x.md"), url=url)
    assert export.returncode == 2 and "no campaign 7" in export.stderr
    assert not (tmp_path / "x.md").exists()
