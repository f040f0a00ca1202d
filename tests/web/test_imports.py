"""Imports through the page: preview, confirm, duplicates, undo, and bad files that change nothing."""

import html
import json
import re
from pathlib import Path

import pytest
from sqlmodel import func, select

from tests.shared_fixtures import shared_fixture
from tierplan.db.engine import new_session
from tierplan.db.tables import ImportRecord, Measurement, Profile

DATA = Path(__file__).parent.parent / "data"
APPEND = DATA / "vllm" / "bench_serve_append.json"  # vLLM 0.33's `bench serve --append-result`: two runs, two lines
APPEND_RUNS = [json.loads(line) for line in APPEND.read_text().splitlines()]
HTMX = {"HX-Request": "true"}


def counts(app) -> tuple[int, int, int]:
    with new_session(app.state.engine) as session:
        return tuple(session.exec(select(func.count()).select_from(t)).one() for t in (Measurement, Profile, ImportRecord))


def upload(client, campaign_id, *names, **fields):
    """Upload files of tests/data by name (or any file by its path), as the page does."""
    paths = [name if isinstance(name, Path) else DATA / name for name in names]
    files = [("files", (path.name, path.read_bytes())) for path in paths]
    return client.post(f"/campaigns/{campaign_id}/import", files=files or None, data=fields, headers=HTMX)


def wait_for_parse(client, campaign_id, token):
    """Poll a background parse as the page does, until it shows the preview or an error (10 s at most)."""
    import time

    for _ in range(100):
        status = client.get(f"/campaigns/{campaign_id}/import/{token}/status", headers=HTMX)
        if "Parsing…" not in status.text and "Waiting to parse…" not in status.text:
            return status
        time.sleep(0.1)
    raise AssertionError("the parse did not finish")


def token_of(html: str) -> str:
    return re.search(r"/import/([0-9a-f]{32})/confirm", html).group(1)


def confirm(client, campaign_id, token, **fields):
    return client.post(f"/campaigns/{campaign_id}/import/{token}/confirm", data=fields, headers=HTMX)


def test_a_vllm_result_previews_then_imports_its_figures(client, app, demo_id):
    before = counts(app)
    preview = upload(client, demo_id, shared_fixture("vllm/benchmark_serving_10qps.json"), regime="concurrency 16")
    assert preview.status_code == 200
    assert 'data-metric="output_tok_s" title="2249.25 tok/s">2,249 tok/s' in preview.text
    assert 'data-metric="p99_ttft_ms" title="89.77 ms">89.8 ms' in preview.text
    assert counts(app) == before, "a preview writes nothing"
    text = html.unescape(preview.text)
    # the file is a Llama-3.2-3B run on 4x L40S: the preview says so before anything is written
    assert "The files name: model meta-llama/Llama-3.2-3B-Instruct, GPU 4xNVIDIA_L40S, engine vllm." in text
    assert "the campaign's model spec is 'DeepSeek-V4-Flash'" in text
    assert "the campaign's hardware spec is 'NVIDIA RTX PRO 6000 Blackwell'" in text
    # run on 2025-05-30, before the demo's baseline: history only
    assert "older than the concurrency 16 baseline of 2026-11-02 (23.0 tok/s)" in text
    assert "above the hardware ceiling of this regime (1,727 tok/s)" in text
    token = token_of(preview.text)
    # "confirm" means one thing everywhere (accepting flagged values: the CLI's --confirm, the API's confirm); the
    # button that stores the preview says Import
    assert '>Import</button>' in preview.text and "Confirm import" not in text
    assert "Import the flagged values as they are" in text
    refused = confirm(client, demo_id, token)
    assert refused.status_code == 422 and counts(app) == before
    assert "above the hardware ceiling" in html.unescape(refused.text)
    assert confirm(client, demo_id, token, confirm="yes").status_code == 204
    assert counts(app) == (before[0] + 15, before[1], before[2] + 1)
    history = client.get(f"/campaigns/{demo_id}/regimes/2").text
    assert "2249.25 tok/s" in history and "89.77 ms" in history and "recorded despite" in history
    # every run of a file that names another model and GPU says so: calibration pairs none of them
    runs = client.get(f"/api/campaigns/{demo_id}/measurements", params={"limit": 500}).json()
    imported = [r for r in runs if r["source"].startswith("import")]
    assert imported and all("its file names another setup: the file names model" in r["confirmed"] for r in imported)


def test_runs_are_matched_to_regimes_by_concurrency(client, app, demo_id, clock):
    """vLLM's two appended runs (concurrency 1 with drafts, 16 without), written 2026-12-07, a week after the clock."""
    clock.advance(days=7)
    first, second = APPEND_RUNS
    preview = upload(client, demo_id, APPEND, includes=["A1", "A2"])
    assert preview.status_code == 200
    text = html.unescape(preview.text)
    assert f"becomes the batch 1 baseline: 10.0 tok/s → {first['output_throughput']:.1f} tok/s (taken with A1, A2)" in text
    assert f"its mean TPOT, {first['mean_tpot_ms']:.1f} ms, becomes the batch 1 step time" in text
    assert "gate of tier A, concurrency 16 output throughput >= 40.0 tok/s: pending → pass" in text
    # the client's backend (openai-chat) says how it spoke to the server, not which engine served
    assert "measured with 'openai-chat'" not in text and "engine openai-chat" not in text
    assert confirm(client, demo_id, token_of(preview.text)).status_code == 204
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    # dated after the demo's baselines: these are the new baselines, taken with tier A's work
    assert [r["baseline_tok_s"] for r in plan["regimes"]] == [first["output_throughput"], second["output_throughput"]]
    assert [r["includes"] for r in plan["regimes"]] == [["A1", "A2"], ["A1", "A2"]]
    assert plan["regimes"][0]["step_ms"] == first["mean_tpot_ms"]
    assert plan["regimes"][0]["step_source"].startswith("mean TPOT")


def test_runs_that_pass_a_gate_without_saying_they_include_the_tier_are_flagged(client, app, demo_id, clock):
    clock.advance(days=7)
    preview = upload(client, demo_id, APPEND)
    assert "does not include A1, A2" in html.unescape(preview.text)
    # said where the value is, the metric in words and the value with its unit
    assert re.search(r"bench_serve_append\.json[^:]*, output throughput [\d,.]+ tok/s: ", html.unescape(preview.text))
    assert confirm(client, demo_id, token_of(preview.text)).status_code == 422
    as_checks = upload(client, demo_id, APPEND, kind="gate check")
    assert "recorded as a gate check: the baseline stays 10.0 tok/s" in html.unescape(as_checks.text)
    assert confirm(client, demo_id, token_of(as_checks.text)).status_code == 204
    assert [r["baseline_tok_s"] for r in client.get(f"/api/campaigns/{demo_id}/plan").json()["regimes"]] == [10, 23]


def test_an_open_loop_run_needs_its_regime_chosen(client, app, demo_id):
    preview = upload(client, demo_id, shared_fixture("vllm/benchmark_serving_10qps.json"))
    assert "open loop at 10 req/s matches no regime" in preview.text
    assert "confirm-import" not in preview.text


def test_the_same_file_twice_is_recognised_and_not_counted_twice(client, app, demo_id, clock):
    clock.advance(days=7)  # vLLM's client ran on 2026-12-07; the tests' clock starts on 2026-12-01
    first = upload(client, demo_id, "vllm/bench_serve_c4.json", regime="concurrency 16")
    assert confirm(client, demo_id, token_of(first.text), confirm="yes").status_code == 204
    before = counts(app)
    again = client.post(f"/campaigns/{demo_id}/import", headers=HTMX, data={"regime": "concurrency 16"},
                        files=[("files", ("renamed.json", (DATA / "vllm" / "bench_serve_c4.json").read_bytes()))])
    assert "already imported: bench_serve_c4.json" in again.text
    assert "confirm-import" not in again.text
    assert counts(app) == before


def test_sglang_runs_carry_no_date_so_the_import_asks_for_one_and_names_no_mismatch(client, app, demo_id):
    """SGLang's bench_serving JSONL (tests/data/sglang) states no date; its backend (sglang-oai-chat) names the engine
    the demo campaign describes, and its model the demo's."""
    runs = [json.loads(line) for line in (DATA / "sglang" / "bench_serving.jsonl").read_text().splitlines()]
    preview = upload(client, demo_id, "sglang/bench_serving.jsonl", includes=["A1", "A2"])
    said = html.unescape(preview.text)
    assert "bench_serving.jsonl carries no date" in said and "Check:" not in said
    assert "model deepseek-ai/DeepSeek-V4-Flash, engine sglang" in said
    assert f"becomes the batch 1 baseline: 10.0 tok/s → {runs[0]['output_throughput']:.1f} tok/s" in said
    assert confirm(client, demo_id, token_of(preview.text)).status_code == 422
    assert confirm(client, demo_id, token_of(preview.text), measured_at="2026-11-25T10:00").status_code == 204
    stored = client.get(f"/api/campaigns/{demo_id}/measurements", params={"limit": 500}).json()
    accept = [m for m in stored if m["metric"] == "spec_decode_acceptance_length"]
    assert [m["value"] for m in accept] == [runs[0]["accept_length"]] and accept[0]["regime"] == "batch 1"


def test_an_import_is_undone_as_a_whole(client, app, demo_id):
    before = counts(app)
    preview = upload(client, demo_id, "sglang/one_batch.jsonl")
    token = token_of(preview.text)
    assert "carries no date" in preview.text
    undated = confirm(client, demo_id, token)
    assert undated.status_code == 422 and "carries no date" in undated.text and counts(app) == before
    assert confirm(client, demo_id, token, measured_at="2026-11-03T10:00").status_code == 204
    assert counts(app)[0] == before[0] + 8
    assert client.post(f"/campaigns/{demo_id}/imports/{token}/undo", headers=HTMX).status_code == 204
    assert counts(app) == before


def test_the_console_block_can_be_pasted(client, app, demo_id):
    pasted = (DATA / "vllm" / "bench_serve_c4.console.txt").read_text()  # as vllm bench serve printed it
    preview = upload(client, demo_id, regime="concurrency 16", pasted=pasted)
    assert preview.status_code == 200 and 'data-metric="output_tok_s" title="672.17 tok/s">672 tok/s' in preview.text
    assert "pasted summary block carries no date" in preview.text, "a pasted block is not dated now"
    dated = upload(client, demo_id, regime="concurrency 16", pasted=pasted, measured_at="2026-12-01T09:00")
    assert "becomes the concurrency 16 baseline: 23.0 tok/s → 672 tok/s" in html.unescape(dated.text)


@pytest.mark.parametrize(
    "name, message",
    [
        ("malformed_middle.json", "malformed_middle.json, line 2: invalid JSON"),
        ("truncated_trace.json.gz", "truncated_trace.json.gz, byte"),
        ("empty.txt", "empty.txt: the file is empty"),
        ("garbage.bin", "garbage.bin: binary data, not text"),
        ("wrong_columns.csv", "wrong_columns.csv, line 1: expected"),
    ],
)
def test_malformed_files_get_their_error_and_change_nothing(client, app, demo_id, name, message):
    before = counts(app)
    response = upload(client, demo_id, name, regime="batch 1", step_ms="11.44", steps="6")
    assert response.status_code == 422
    assert message in response.text
    assert counts(app) == before


def test_a_generic_csv_asks_for_its_columns(client, app, demo_id):
    response = upload(client, demo_id, "nsys/cuda_gpu_trace.csv", regime="batch 1")
    assert response.status_code == 422 and "name its kernel-name" in response.text
    mapped = upload(client, demo_id, "nsys/cuda_gpu_trace.csv", regime="batch 1", name_column="Name",
                    time_column="Duration (ns)", time_unit="ns")
    assert mapped.status_code == 200 and 'data-bucket="elementwise"' in mapped.text


def test_an_upload_above_the_limit_is_refused(client, app, demo_id):
    app.state.settings.max_upload_mb = 0
    response = upload(client, demo_id, "trace_graphs_b1.json.gz", regime="batch 1")
    assert response.status_code == 413 and "larger than 0 MB" in response.text


def test_a_kernel_table_with_a_byte_that_is_not_utf8_past_the_head_is_refused_at_its_line(client, app, demo_id,
                                                                                          tmp_path):
    real = (DATA / "nsys/cuda_gpu_trace.csv").read_bytes()
    at = real.index(b"\n", 80_000) + 1  # past the 64 KiB the format is read from
    broken = tmp_path / "cuda_gpu_trace.csv"
    broken.write_bytes(real[:at] + b"\xff" + real[at:])
    before = counts(app)
    response = upload(client, demo_id, broken, regime="batch 1", name_column="Name", time_column="Duration (ns)",
                      time_unit="ns")
    line = real[:at].count(b"\n") + 1
    assert response.status_code == 422
    assert f"cuda_gpu_trace.csv, line {line}: not UTF-8 text (byte 1 of the line)" in html.unescape(response.text)
    assert counts(app) == before


def test_kernel_rules_are_editable_and_used(client, app, demo_id):
    bad = client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": "foo(  => x"}, headers=HTMX)
    assert bad.status_code == 422 and "line 1" in bad.text
    rules = "vectorized_elementwise_kernel => pointwise\nattention => attention\ngemm => dense_gemm\n"
    assert client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": rules}, headers=HTMX).status_code == 204
    preview = upload(client, demo_id, "nsys/cuda_gpu_kern_sum.csv", regime="batch 1")
    assert 'data-bucket="pointwise"' in preview.text


def test_a_large_upload_is_parsed_in_the_background_with_progress(client, app, demo_id):
    app.state.settings.inline_parse_mb = 0
    first = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44")
    assert first.status_code == 200 and "Parsing…" in first.text
    assert re.search(r"\d+% of [\d,]+ bytes read", first.text)
    token = re.search(r"/import/([0-9a-f]{32})/status", first.text).group(1)
    status = wait_for_parse(client, demo_id, token)
    assert 'data-bucket="host_overhead">87%' in status.text
    assert client.post(f"/campaigns/{demo_id}/import/{token}/confirm", headers=HTMX).status_code == 204


def test_a_bad_large_upload_reports_its_error_after_parsing(client, app, demo_id):
    app.state.settings.inline_parse_mb = 0
    before = counts(app)
    first = upload(client, demo_id, "truncated_trace.json.gz", regime="batch 1")
    token = re.search(r"/import/([0-9a-f]{32})/status", first.text).group(1)
    status = wait_for_parse(client, demo_id, token)
    assert status.status_code == 422 and "truncated_trace.json.gz, byte" in status.text
    assert counts(app) == before


def test_two_previews_of_one_file_confirmed_in_turn_store_it_once(client, app, demo_id, clock):
    clock.advance(days=7)  # the file is dated 2026-12-07
    before = counts(app)
    first = upload(client, demo_id, APPEND, includes=["A1", "A2"])
    second = upload(client, demo_id, APPEND, includes=["A1", "A2"])
    assert confirm(client, demo_id, token_of(first.text)).status_code == 204
    once = counts(app)
    again = confirm(client, demo_id, token_of(second.text))
    assert again.status_code == 422 and "already imported" in html.unescape(again.text)
    assert once[0] > before[0] and counts(app) == once == (once[0], before[1], before[2] + 1)


def test_another_campaigns_upload_cannot_be_confirmed_here(client, app, demo_id, clock):
    clock.advance(days=7)  # the file is dated 2026-12-07
    other = client.post("/api/campaigns", json={"name": "other", "gpu_count": 1}).json()["id"]
    preview = upload(client, demo_id, APPEND, includes=["A1", "A2"])
    before = counts(app)
    refused = confirm(client, other, token_of(preview.text))
    assert refused.status_code == 404 and "another campaign" in refused.text and counts(app) == before


def test_confirming_one_upload_at_once_from_several_sessions_stores_it_once(client, app, demo_id, clock, tmp_path):
    """The same batch confirmed four times at once (a double click, a retry) is stored once."""
    clock.advance(days=7)  # the file is dated 2026-12-07
    import threading

    from tierplan.db.engine import Sessions
    from tierplan.services.import_confirm import confirm_import
    from tierplan.services.imports import ImportOptions, preview_import

    before = counts(app)
    with new_session(app.state.engine) as session:
        preview = preview_import(session, demo_id, [("run.json", APPEND)],
                                 ImportOptions(includes=["A1", "A2"]), now=clock(), rows_dir=tmp_path)
    errors: list[BaseException] = []

    def confirm_once() -> None:
        try:
            confirm_import(Sessions(app.state.engine), demo_id, preview, now=clock(), batch="b" * 32)
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=confirm_once) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = preview.measurement_count
    assert errors == [] and stored > 0 and counts(app) == (before[0] + stored, before[1], before[2] + 1)


@pytest.mark.parametrize("pattern", [r"(\w+)\1+$", "(?=(a+)+)b", r"(?<=x)gemm"])
def test_a_kernel_rule_rE2_cannot_match_in_linear_time_is_refused_before_it_is_saved(client, demo_id, pattern):
    before = client.get(f"/campaigns/{demo_id}/import/rules").text
    rules = f"decode => attention\n{pattern} => moe\n"
    refused = client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": rules}, headers=HTMX)
    assert refused.status_code == 422
    assert "line 2" in html.unescape(refused.text) and "linear time" in refused.text
    assert client.get(f"/campaigns/{demo_id}/import/rules").text == before


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|a)*$", "((a)|a)*$", "a*a*a*a*a*a*a*a*b", ".*.*.*.*.*.*.*x"])
def test_a_rule_that_backtracks_in_python_is_kept_and_matched_in_linear_time(client, demo_id, pattern):
    """The shapes that take exponential (or high polynomial) time in a backtracking engine: RE2 matches them in
    time linear in the name, so they are kept and a long adversarial kernel name buckets at once."""
    from tierplan.importers.buckets import bucket_kernels
    from tierplan.importers.records import KernelSummary

    rules = f"{pattern} => moe\n"
    assert client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": rules}, headers=HTMX).status_code == 204
    summary = KernelSummary("nsys", kernels={"a" * 20_000 + "!": [10.0, 1], "sm90_gemm": [5.0, 1]})
    bucketing = bucket_kernels(summary, [(pattern, "moe")])
    short = {"a" * 12 + "!": "aaa", "sm90_gemm": "sm9"}  # Python's own engine is quick on a short name
    expected = {head: "moe" if re.search(pattern, name, re.IGNORECASE) else "other" for name, head in short.items()}
    assert {k.name[:3]: k.bucket for k in bucketing.kernels} == expected


def test_rules_with_repetition_and_alternation_that_cannot_explode_are_kept(client, demo_id):
    rules = "(?:flash|paged)_?attn+ => attention\ngemm|matmul{1,3} => dense_gemm\n(a|b)*c => other\n"
    assert client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": rules}, headers=HTMX).status_code == 204


def test_abandoned_upload_folders_are_removed_after_a_day(app, tmp_path):
    import os
    import time

    from tierplan.services.import_jobs import UPLOAD_TTL_S, remove_stale_uploads

    old, fresh = tmp_path / ("a" * 32), tmp_path / ("b" * 32)
    for folder in (old, fresh):
        folder.mkdir()
        (folder / "000.upload").write_bytes(b"x" * 1000)
    stale = time.time() - UPLOAD_TTL_S - 60
    os.utime(old, (stale, stale))
    assert remove_stale_uploads(tmp_path) == ["a" * 32]
    assert not old.exists() and fresh.exists()


def test_a_benchmark_and_a_profile_together_are_refused_naming_which_is_which(client, app, demo_id):
    refused = upload(client, demo_id, APPEND, "nsys/cuda_gpu_kern_sum.csv", regime="batch 1")
    assert refused.status_code == 422
    assert ("import benchmark results (bench_serve_append.json) and profiles (cuda_gpu_kern_sum.csv) separately"
            in html.unescape(refused.text))
    with new_session(app.state.engine) as session:
        assert session.exec(select(func.count()).select_from(ImportRecord)).one() == 0
