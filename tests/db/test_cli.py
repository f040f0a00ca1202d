"""The `tierplan` command against a real SQLite file."""

import subprocess
import sys

from markdown_it import MarkdownIt

from tests.shared_fixtures import shared_fixture


def tierplan(*args, url: str):
    return subprocess.run(
        [sys.executable, "-m", "tierplan.cli", *args], capture_output=True, text=True, timeout=120,
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
    assert "short by 6.34x" in text
    assert "<table>" in MarkdownIt("commonmark").enable("table").render(text)


def test_exporting_an_unknown_campaign_says_so(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    tierplan("migrate", url=url)
    export = tierplan("export", "7", "--out", str(tmp_path / "x.md"), url=url)
    assert export.returncode == 1 and "no campaign 7" in export.stderr
    assert not (tmp_path / "x.md").exists()


def test_import_reads_the_fixtures_and_refuses_a_second_copy(tmp_path):
    from pathlib import Path

    data = Path(__file__).parent.parent / "data"
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    tierplan("demo", url=url)
    vllm = str(data / "vllm" / "bench_serve_c4.json")  # written by vLLM 0.33's client (tests/data/vllm/README.md)
    unconfirmed = tierplan("import", vllm, "--campaign", "1", "--regime", "concurrency 16", url=url)
    assert unconfirmed.returncode == 1 and "times the current baseline" in unconfirmed.stderr
    assert "pass --confirm" in unconfirmed.stderr
    assert "would: becomes the concurrency 16 baseline: 23.0 tok/s → 672 tok/s" in unconfirmed.stdout
    assert "check: the file names model 'stub-model'" in unconfirmed.stdout
    first = tierplan("import", vllm, "--campaign", "1", "--regime", "concurrency 16", "--confirm", url=url)
    assert first.returncode == 0, first.stderr
    assert "output_tok_s" in first.stdout and "672.17" in first.stdout and "58.06" in first.stdout
    again = tierplan("import", vllm, "--campaign", "1", "--regime", "concurrency 16", "--confirm", url=url)
    assert again.returncode == 1 and "already imported" in again.stderr
    trace = tierplan("import", str(data / "trace_eager_b1.json.gz"), "--campaign", "1", "--regime", "batch 1",
                     "--step-ms", "11.44", url=url)
    assert trace.returncode == 0 and "host_overhead" in trace.stdout and "87.0%" in trace.stdout
    assert "6 decode steps (aten::embedding at the start of each pass (7 found))" in trace.stdout
    pasted = tierplan("import", str(data / "vllm" / "bench_serve_c4.console.txt"), "--campaign", "1", "--regime",
                      "batch 1", "--kind", "gate check", url=url)
    assert pasted.returncode == 1 and "carries no date" in pasted.stderr
    dry = tierplan("import", str(data / "vllm" / "bench_serve_c4.console.txt"), "--campaign", "1", "--regime",
                   "batch 1", "--kind", "gate check", "--dry-run", url=url)
    assert dry.returncode == 1 and "the import would fail: some runs carry no date: give the time" in dry.stdout


def test_import_names_the_bad_file_and_writes_nothing(tmp_path):
    from pathlib import Path

    data = Path(__file__).parent.parent / "data"
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    tierplan("demo", url=url)
    bad = tierplan("import", str(data / "malformed_middle.json"), "--campaign", "1", "--regime", "batch 1", url=url)
    assert bad.returncode == 1 and "malformed_middle.json, line 2: invalid JSON" in bad.stderr


def test_version_usage_errors_and_help(tmp_path):
    from tierplan import __version__

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    version = tierplan("--version", url=url)
    assert version.returncode == 0 and version.stdout.strip() == f"tierplan {__version__}"
    usage = tierplan("export", url=url)
    assert usage.returncode == 2 and "Missing argument" in usage.stderr
    unknown = tierplan("import", "--campaign", "1", str(tmp_path / "absent.json"), url=url)
    assert unknown.returncode == 2 and "does not exist" in unknown.stderr
    help_text = tierplan("import", "--help", url=url).stdout
    for option in ("--campaign", "--regime", "--step-ms", "--steps", "--kind", "--includes", "--measured-at",
                   "--exclude-passes", "--confirm", "--dry-run", "--time-unit", "--name-column"):
        assert option in help_text


def test_unmigrated_database_is_a_failure_with_a_hint(tmp_path):
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    export = tierplan("export", "1", "--out", "-", url=url)
    assert export.returncode == 1 and "is not migrated to this version of tierplan: run `tierplan migrate`" in export.stderr
    assert "Traceback" not in export.stderr


def test_dry_run_of_an_open_loop_run_without_a_regime_fails_and_says_why(tmp_path):

    legacy = str(shared_fixture("vllm/benchmark_serving_10qps.json"))  # an open-loop run, as a public repo kept it
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    tierplan("demo", url=url)
    dry = tierplan("import", legacy, "--campaign", "1", "--dry-run", url=url)
    assert dry.returncode == 1
    assert "the import would fail" in dry.stdout
    assert "open loop at 10 req/s matches no regime by concurrency; choose its regime" in dry.stdout
    assert "flagged, needs confirming" not in dry.stdout  # nothing is flagged until a regime is chosen
    fine = tierplan("import", legacy, "--campaign", "1", "--regime",
                    "concurrency 16", "--confirm", "--dry-run", url=url)
    assert fine.returncode == 0 and "the import would succeed" in fine.stdout


def test_dry_run_of_a_trace_cut_into_layers_fails_and_says_what_to_record(tmp_path):
    """A real dense trace whose only repeating host span runs once a layer (its ProfilerStep markers and
    step-level spans taken out): the dry run fails and says why, with or without --steps."""
    import gzip
    import json
    from pathlib import Path

    data = Path(__file__).parent.parent / "data" / "dense"
    with gzip.open(data / "trace_dense_eager_b1.json.gz") as handle:
        trace = json.load(handle)
    host = {"cpu_op", "python_function", "user_annotation", "gpu_user_annotation"}
    keep = "transformers/utils/generic.py(1110): __getitem__"
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("cat") not in host or e.get("name") == keep]
    layers = tmp_path / "layers.json"
    layers.write_text(json.dumps(trace))
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    tierplan("demo", url=url)
    for extra in ((), ("--steps", "6")):
        dry = tierplan("import", str(layers), "--campaign", "1", "--regime", "batch 1", *extra, "--dry-run", url=url)
        assert dry.returncode == 1, dry.stdout + dry.stderr
        said = " ".join((dry.stdout + dry.stderr).split())
        assert "its forward passes could not be found" in said and "prof.step()" in said


def test_import_takes_a_folder_a_sweep_wrote_each_run_once(tmp_path):
    """vLLM's sweep folder (tests/data/vllm/sweep): its six run=N.json files, not their summaries again; concurrency
    4 gets a regime of its own."""
    from pathlib import Path

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    tierplan("migrate", url=url)
    tierplan("demo", url=url)
    sweep = Path(__file__).resolve().parent.parent / "data" / "vllm" / "sweep"
    done = tierplan("import", str(sweep), "--campaign", "1", "--add-regimes", "--confirm", url=url)
    assert done.returncode == 0, done.stderr
    assert "imported 6 file(s)" in done.stdout
    assert "sweep/BENCH--max_concurrency=4/run=0.json" in done.stdout
