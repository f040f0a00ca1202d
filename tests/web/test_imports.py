"""Imports through the page: preview, confirm, duplicates, undo, and bad files that change nothing."""

import re
from pathlib import Path

import pytest
from sqlmodel import func, select

from app.db.engine import new_session
from app.db.tables import ImportRecord, Measurement, Profile

DATA = Path(__file__).parent.parent / "data"
HTMX = {"HX-Request": "true"}


def counts(app) -> tuple[int, int, int]:
    with new_session(app.state.engine) as session:
        return tuple(session.exec(select(func.count()).select_from(t)).one() for t in (Measurement, Profile, ImportRecord))


def upload(client, campaign_id, *names, **fields):
    files = [("files", (name, (DATA / name).read_bytes())) for name in names]
    return client.post(f"/campaigns/{campaign_id}/import", files=files or None, data=fields, headers=HTMX)


def wait_for_parse(client, campaign_id, token):
    """Poll a background parse as the page does, until it shows the preview or an error (10 s at most)."""
    import time

    for _ in range(100):
        status = client.get(f"/campaigns/{campaign_id}/import/{token}/status", headers=HTMX)
        if "Parsing…" not in status.text:
            return status
        time.sleep(0.1)
    raise AssertionError("the parse did not finish")


def token_of(html: str) -> str:
    return re.search(r"/import/([0-9a-f]{32})/confirm", html).group(1)


def test_a_vllm_result_previews_then_imports_its_figures(client, app, demo_id):
    before = counts(app)
    preview = upload(client, demo_id, "benchmark_serving_10qps.json", regime="concurrency 16")
    assert preview.status_code == 200
    assert 'data-metric="output_tok_s">2249.25 tok/s' in preview.text
    assert 'data-metric="p99_ttft_ms">89.77 ms' in preview.text
    assert counts(app) == before, "a preview writes nothing"
    done = client.post(f"/campaigns/{demo_id}/import/{token_of(preview.text)}/confirm", headers=HTMX)
    assert done.status_code == 204
    assert counts(app) == (before[0] + 15, before[1], before[2] + 1)
    history = client.get(f"/campaigns/{demo_id}/regimes/2").text
    assert "2249.25 tok/s" in history and "89.77 ms" in history


def test_runs_are_matched_to_regimes_by_concurrency(client, app, demo_id):
    preview = upload(client, demo_id, "vllm_serve_append.json")
    assert preview.status_code == 200
    token = token_of(preview.text)
    assert client.post(f"/campaigns/{demo_id}/import/{token}/confirm", headers=HTMX).status_code == 204
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    # dated 2026-11-20, after the demo's baselines: these are the new baselines
    assert [r["baseline_tok_s"] for r in plan["regimes"]] == [44.1, 61.7]


def test_an_open_loop_run_needs_its_regime_chosen(client, app, demo_id):
    preview = upload(client, demo_id, "benchmark_serving_10qps.json")
    assert "open loop at 10 req/s matches no regime" in preview.text
    assert "confirm-import" not in preview.text


def test_the_same_file_twice_is_recognised_and_not_counted_twice(client, app, demo_id):
    first = upload(client, demo_id, "benchmark_serving_10qps.json", regime="concurrency 16")
    client.post(f"/campaigns/{demo_id}/import/{token_of(first.text)}/confirm", headers=HTMX)
    before = counts(app)
    again = client.post(f"/campaigns/{demo_id}/import", headers=HTMX, data={"regime": "concurrency 16"},
                        files=[("files", ("renamed.json", (DATA / "benchmark_serving_10qps.json").read_bytes()))])
    assert "already imported: benchmark_serving_10qps.json" in again.text
    assert "confirm-import" not in again.text
    assert counts(app) == before


def test_an_import_is_undone_as_a_whole(client, app, demo_id):
    before = counts(app)
    preview = upload(client, demo_id, "sglang_one_batch.jsonl")
    token = token_of(preview.text)
    client.post(f"/campaigns/{demo_id}/import/{token}/confirm", headers=HTMX)
    assert counts(app)[0] == before[0] + 8
    assert client.post(f"/campaigns/{demo_id}/imports/{token}/undo", headers=HTMX).status_code == 204
    assert counts(app) == before


def test_a_trace_becomes_the_regime_profile_with_the_idle_share(client, app, demo_id):
    preview = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44", steps="6")
    assert 'data-bucket="host_overhead">83.6%' in preview.text
    client.post(f"/campaigns/{demo_id}/import/{token_of(preview.text)}/confirm", headers=HTMX)
    regime = client.get(f"/campaigns/{demo_id}/regimes/1").text
    assert "host_overhead" in regime and "84%" in regime and "imported" in regime


def test_the_console_block_can_be_pasted(client, app, demo_id):
    pasted = (DATA / "benchmark_serving_10qps.console.txt").read_text()
    preview = upload(client, demo_id, regime="concurrency 16", pasted=pasted)
    assert preview.status_code == 200 and 'data-metric="output_tok_s">2249.25 tok/s' in preview.text


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
    response = upload(client, demo_id, "generic_kernels.csv", regime="batch 1")
    assert response.status_code == 422 and "name its kernel-name" in response.text
    mapped = upload(client, demo_id, "generic_kernels.csv", regime="batch 1", name_column="kernel",
                    time_column="time_us", time_unit="us")
    assert mapped.status_code == 200 and 'data-bucket="attention"' in mapped.text


def test_an_upload_above_the_limit_is_refused(client, app, demo_id):
    app.state.settings.max_upload_mb = 0
    response = upload(client, demo_id, "trace_graphs_b1.json.gz", regime="batch 1")
    assert response.status_code == 413 and "larger than 0 MB" in response.text


def test_kernel_rules_are_editable_and_used(client, app, demo_id):
    bad = client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": "foo(  => x"}, headers=HTMX)
    assert bad.status_code == 422 and "line 1" in bad.text
    rules = "mystery => mystery_bucket\ndecode => attention\nmoe => moe\n"
    assert client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": rules}, headers=HTMX).status_code == 204
    preview = upload(client, demo_id, "nsys_cuda_gpu_kern_sum.csv", regime="batch 1")
    assert 'data-bucket="mystery_bucket"' in preview.text


def test_a_large_upload_is_parsed_in_the_background_with_progress(client, app, demo_id):
    app.state.settings.inline_parse_mb = 0
    first = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44", steps="6")
    assert first.status_code == 200 and "Parsing…" in first.text
    token = re.search(r"/import/([0-9a-f]{32})/status", first.text).group(1)
    status = wait_for_parse(client, demo_id, token)
    assert 'data-bucket="host_overhead">83.6%' in status.text
    assert client.post(f"/campaigns/{demo_id}/import/{token}/confirm", headers=HTMX).status_code == 204


def test_a_bad_large_upload_reports_its_error_after_parsing(client, app, demo_id):
    app.state.settings.inline_parse_mb = 0
    before = counts(app)
    first = upload(client, demo_id, "truncated_trace.json.gz", regime="batch 1")
    token = re.search(r"/import/([0-9a-f]{32})/status", first.text).group(1)
    status = wait_for_parse(client, demo_id, token)
    assert status.status_code == 422 and "truncated_trace.json.gz, byte" in status.text
    assert counts(app) == before


def test_without_a_step_time_the_regime_measured_one_is_used(client, app, demo_id):
    client.post(f"/api/campaigns/{demo_id}/measurements", json={"regime": "batch 1", "metric": "tpot_ms", "value": 11.44})
    preview = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", steps="6")
    assert 'data-bucket="host_overhead">83.6%' in preview.text
    assert "step time from the newest tpot_ms of batch 1" in preview.text
