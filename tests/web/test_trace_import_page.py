"""A trace imported through the page: its decode steps become the regime's profile, with its launch counts and the
host's own time a step."""

import html
import re

from tests.web.test_imports import DATA, confirm, counts, token_of, upload


def test_a_trace_becomes_the_decode_profile_with_the_idle_share(client, app, demo_id):
    preview = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44")
    text = re.sub(r"<[^>]+>", "", html.unescape(preview.text))
    # 6 decode steps of 11.44 ms, the prefill left out: 87% of the step is host / launch overhead
    assert 'data-bucket="host_overhead">87%' in preview.text
    assert "6 decode steps kept (aten::embedding at the start of each pass (7 found)); 21% of the trace's GPU " \
           "time left out (prefill and other passes)" in text
    assert "689 launch calls for 689 GPU work items" in text
    assert preview.text.count('data-role="prefill"') == 1 and preview.text.count('data-role="decode"') == 6
    # what it changes, before it changes it
    assert "replaces the batch 1 profile of 2026-11-02 (DOMAIN.md: batch-1 profile" in text
    assert "effect of B1 on bucket attention would then apply to 0.1% of the step (63% before)" in text
    assert "the file names GPU 'NVIDIA H200', the campaign's hardware spec is 'NVIDIA RTX PRO 6000 Blackwell'" in text
    confirm(client, demo_id, token_of(preview.text))
    regime = client.get(f"/campaigns/{demo_id}/regimes/1").text
    assert "host_overhead" in regime and "87%" in regime and "imported" in regime
    assert "689 launch calls and 689 GPU work items a step of 11.44 ms" in regime


def test_a_graph_replay_s_trace_gives_the_host_time_its_step_hides(client, app, demo_id):
    """tests/data/graphs' graph path at batch 8: 3 launch calls a step, the host 26% of the traced step apart from
    waits for the GPU; stored as that share of the measured step, the regime's step is GPU-bound."""
    preview = upload(client, demo_id, DATA / "graphs" / "trace_graphs_b8.json.gz", regime="batch 1", step_ms="2.9973")
    text = re.sub(r"<[^>]+>", "", html.unescape(preview.text))
    assert "3 launch calls for 320 GPU work items; host time apart from waits for the GPU 26% of the traced step " \
           "(0.769 ms of the measured one), what a GPU-bound step hides" in text
    confirm(client, demo_id, token_of(preview.text))
    regime = re.sub(r"<[^>]+>", "", html.unescape(client.get(f"/campaigns/{demo_id}/regimes/1").text))
    assert "3 launch calls and 320 GPU work items a step of 2.997 ms; host 256.4 µs a launch (its trace's host " \
           "time, 0.769 ms a step apart from waits for the GPU)" in regime and ": GPU-bound" in regime


def test_without_a_step_time_the_regime_measured_one_is_used(client, app, demo_id):
    client.post(f"/api/campaigns/{demo_id}/measurements", json={"regime": "batch 1", "metric": "tpot_ms", "value": 11.44})
    preview = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1")
    assert 'data-bucket="host_overhead">87%' in preview.text
    assert "step time from the newest mean time per output token of batch 1" in preview.text


def test_steps_given_that_the_trace_does_not_split_into_are_refused_at_the_field(client, app, demo_id):
    """The real eager trace splits into a prefill and 6 decode steps; saying it holds 60 is refused at the steps
    field, naming what was found, and nothing is written."""
    before = counts(app)
    response = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44", steps="60")
    assert response.status_code == 422
    said = html.unescape(response.text)
    assert "the trace holds 60 decode steps, you say, but it splits into 6" in said and "689 GPU items" in said
    assert counts(app) == before
