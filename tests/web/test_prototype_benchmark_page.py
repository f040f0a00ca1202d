"""A benchmark of a CUDA-graph prototype where the graph step is GPU-bound: the GPU work the path adds, measured in
the benchmark's regime and carried to the other, said on the preview, the plan and the export; a second benchmark in
the other regime settles the carry."""

import html

from tests.web.test_imports import APPEND, DATA, confirm, token_of, upload, wait_for_parse


def traced_graphs_campaign(client, demo_id) -> None:
    """The demo's two regimes with eager H100 traces of their own (tests/data/graphs_batches at batches 1 and 32),
    and A3, CUDA graphs entered as 90/97/99% of each launch's host cost removed."""
    for name, regime, step_ms in (("trace_eager_b1.json.gz", "batch 1", "43.2566"),
                                  ("trace_eager_b32.json.gz", "concurrency 16", "46.7922")):
        own = upload(client, demo_id, DATA / "graphs_batches" / name, regime=regime, step_ms=step_ms)
        own = wait_for_parse(client, demo_id, token_of(own.text)) if "Parsing" in own.text else own
        assert confirm(client, demo_id, token_of(own.text)).status_code == 204, html.unescape(own.text)
    intervention = client.post(f"/api/campaigns/{demo_id}/interventions", json={
        "key": "A3", "title": "CUDA graphs", "tier_id": 1, "effort_low_days": 1, "effort_likely_days": 2,
        "effort_high_days": 4})
    assert intervention.status_code == 201, intervention.text
    effect = client.post(f"/api/campaigns/{demo_id}/effects", json={
        "intervention_id": intervention.json()["id"], "kind": "launch_overhead", "removed_low": 0.9,
        "removed_likely": 0.97, "removed_high": 0.99})
    assert effect.status_code == 201, effect.text


def test_a_graph_prototype_s_benchmark_sizes_the_gpu_work_its_path_adds(client, demo_id, clock):
    """vLLM's bench_serve_append.json as A3's prototype in batch 1: its newest run (63.5 tok/s against the demo's
    10.0) is slower than the launch model's graph step there, so the difference is GPU work the path adds, measured in
    batch 1 and carried to concurrency 16; the launch cost removed holds as entered."""
    clock.advance(days=7)  # vLLM wrote the file on 2026-12-07
    traced_graphs_campaign(client, demo_id)
    preview = upload(client, demo_id, APPEND, regime="batch 1", prototype_of="A3")
    said = html.unescape(preview.text)
    assert preview.status_code == 200, said
    assert "becomes the evidence of A3. Sized by a prototype's benchmark in batch 1 (this benchmark): 15.7 ms a step " \
           "measured, +10.4 ms against the 5.34 ms projected with the launch cost removed as entered" in said
    assert confirm(client, demo_id, token_of(preview.text)).status_code == 204
    page = client.get(f"/campaigns/{demo_id}")
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert "It is carried with the sequences in flight, its band from their square root to their 1.5th power" in text
    assert "a step in batch 1" in text and "a step in concurrency 16" in text
    assert "Entered for it, planned at that size:" in text
    assert "Sized by a prototype's benchmark in batch 1" in client.get(f"/campaigns/{demo_id}/roadmap.md").text

    # a second benchmark, in concurrency 16 (vLLM's bench_serve_c4.json), fits the work through both
    second = upload(client, demo_id, DATA / "vllm" / "bench_serve_c4.json", regime="concurrency 16", prototype_of="A3")
    said = html.unescape(second.text)
    assert second.status_code == 200, said
    assert "Sized by prototype benchmarks in batch 1 (import: bench_serve_append.json, line 2), concurrency 16 (this " \
           "benchmark)" in said
    assert "The GPU work the path adds, fitted through them, is" in said
    assert confirm(client, demo_id, token_of(second.text), confirm="on").status_code == 204
    text = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "concurrency 16 (import: bench_serve_c4.json" in text and "fitted through them" in text


def test_the_api_attaches_a_prototype_s_benchmark_as_the_page_does(client, demo_id, clock):
    """`prototype_of` on the API's import: the same evidence as the page's; an unknown key is refused before a byte
    is stored."""
    clock.advance(days=7)
    traced_graphs_campaign(client, demo_id)
    runs = [("files", ("bench_serve_append.json", APPEND.read_bytes()))]
    refused = client.post(f"/api/campaigns/{demo_id}/imports", data={"regime": "batch 1", "prototype_of": "Z9"},
                          files=runs)
    assert refused.status_code == 409
    assert refused.json()["errors"]["prototype_of"].startswith("no intervention 'Z9' in this campaign (it has A1")
    before = len(client.get(f"/api/campaigns/{demo_id}/measurements").json())
    stored = client.post(f"/api/campaigns/{demo_id}/imports", data={"regime": "batch 1", "prototype_of": "A3"},
                         files=runs)
    assert stored.status_code == 201, stored.text
    assert [sorted(f) for f in stored.json()["preview"]["files"]] == [  # not the server's path of the upload
        ["duplicate_of", "format", "name", "sha256", "size_bytes"]]
    assert len(client.get(f"/api/campaigns/{demo_id}/measurements").json()) == before  # evidence, not the regime's
    text = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "Sized by a prototype's benchmark in batch 1 (import: bench_serve_append.json, line 2): 15.7 ms a step" in text
