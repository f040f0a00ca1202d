"""AIPerf and GuideLLM reports through the import page: found without being told, each run in its regime by
concurrency (a new regime for one none has, when asked), repeated trials kept as separate runs."""

import html
import json
from pathlib import Path

from tests.web.test_imports import confirm, token_of

DATA = Path(__file__).resolve().parent.parent / "data"
HTMX = {"HX-Request": "true"}


def upload(client, campaign_id, *names, **fields):
    files = [("files", (Path(name).name, (DATA / name).read_bytes())) for name in names]
    return client.post(f"/campaigns/{campaign_id}/import", files=files, data=fields, headers=HTMX)


def report_of(name):
    return json.loads((DATA / name).read_text())


def runs_of(client, campaign_id, regime):
    runs = client.get(f"/api/campaigns/{campaign_id}/measurements", params={"limit": 500}).json()
    return [r for r in runs if r["regime"] == regime and r["source"].startswith("import")]


def test_aiperf_trials_are_three_runs_of_concurrency_16(client, demo_id, clock):
    clock.advance(days=7)  # the tools ran on 2026-12-07; the tests' clock starts on 2026-12-01
    names = [f"aiperf/profile_export_aiperf_c16_trial{n}.json" for n in (1, 2, 3)]
    preview = upload(client, demo_id, *names)
    text = html.unescape(preview.text)
    assert preview.status_code == 200, text
    assert "The files name: model stub-model" in text  # not the campaign's model: said before anything is written
    assert confirm(client, demo_id, token_of(preview.text), confirm="yes").status_code == 204
    throughput = [r for r in runs_of(client, demo_id, "concurrency 16") if r["metric"] == "output_tok_s"]
    reported = [json.loads((DATA / name).read_text())["output_token_throughput"]["avg"] for name in names]
    assert sorted(r["value"] for r in throughput) == sorted(reported)  # to the last digit
    assert all("aiperf, max concurrency 16" in r["note"] and "AIPerf 0.13.0" in r["note"] for r in throughput)
    assert {r["measured_at"][:10] for r in throughput} == {"2026-12-07"}


def test_a_guidellm_sweep_adds_the_regime_none_has(client, demo_id, clock):
    clock.advance(days=7)
    plain = upload(client, demo_id, "guidellm/benchmarks.json")
    assert "a run at concurrency 4 matches no regime by concurrency" in html.unescape(plain.text)
    preview = upload(client, demo_id, "guidellm/benchmarks.json", add_regimes="on")
    text = html.unescape(preview.text)
    assert "adds the regime concurrency 4 (concurrency 4)" in text
    assert confirm(client, demo_id, token_of(preview.text), confirm="yes").status_code == 204
    regimes = {r["name"]: r for r in client.get(f"/api/campaigns/{demo_id}/regimes").json()}
    assert regimes["concurrency 4"]["concurrency"] == 4
    # its workload as the report states it: the server's prompt tokens, the 64 output tokens asked for
    first = report_of("guidellm/benchmarks.json")["benchmarks"][0]["metrics"]
    assert regimes["concurrency 4"]["input_tokens"] == round(first["prompt_token_count"]["successful"]["mean"])
    assert regimes["concurrency 4"]["output_tokens"] == 64
    sixteen = [r for r in runs_of(client, demo_id, "concurrency 16") if r["metric"] == "output_tok_s"]
    report = json.loads((DATA / "guidellm" / "benchmarks.json").read_text())
    assert [r["value"] for r in sixteen] == [
        report["benchmarks"][1]["metrics"]["output_tokens_per_second"]["successful"]["mean"]]


def test_an_aiperf_aggregate_without_a_date_asks_for_one(client, demo_id, clock):
    clock.advance(days=7)
    preview = upload(client, demo_id, "aiperf/profile_export_aiperf_sweep.json", add_regimes="on")
    assert preview.status_code == 200
    refused = confirm(client, demo_id, token_of(preview.text), confirm="yes")
    assert refused.status_code == 422 and "give the time it was measured" in html.unescape(refused.text)


def test_a_vllm_iterations_decode_sweep_puts_each_batch_s_step_in_its_regime(client, demo_id, clock):
    clock.advance(days=7)
    preview = upload(client, demo_id, "vllm/iterations/decode_results.json", add_regimes="on")
    text = html.unescape(preview.text)
    assert preview.status_code == 200, text
    assert "adds the regime concurrency 64 (concurrency 64)" in text
    assert confirm(client, demo_id, token_of(preview.text), confirm="yes").status_code == 204
    written = report_of("vllm/iterations/decode_results.json")
    for regime, result in zip(("batch 1", "concurrency 16", "concurrency 64"), written["results"], strict=True):
        steps = [r for r in runs_of(client, demo_id, regime) if r["metric"] == "tpot_ms"]
        assert [r["value"] for r in steps] == [result["server_latency_per_iter_ms"]]  # to the last digit
        assert steps[0]["measured_at"][:19] == written["timestamp"].replace(" ", "T")  # the client's local time
        assert "vllm_iterations" in steps[0]["note"]


def test_a_run_of_another_workload_than_its_regime_s_is_said_before_it_is_written(client, demo_id, clock):
    clock.advance(days=7)
    preview = upload(client, demo_id, "vllm/iterations/prefill_results.json")
    text = html.unescape(preview.text)
    assert preview.status_code == 200, text
    # the demo's batch 1 is 1,024 tokens in: the 1,024-token prefill is its workload, the 4,096-token one is not
    assert ("prefill_results.json, result 2: 4,096 tokens in, where batch 1 is 1,024: its figures are of another "
            "workload than the regime's") in text
    assert "result 1: 1,024 tokens in" not in text
