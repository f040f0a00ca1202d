"""Effects that name kernels: on the kernels a regime's trace named, their share alone; said at the field where no
kernel matches."""

import html
import re

from tests.web.test_imports import confirm, token_of, upload

HTMX = {"HX-Request": "true"}


def test_an_effect_on_named_kernels_acts_on_their_share_of_the_trace(client, demo_id):
    """batch 1's own eager trace (11.44 ms a step, H200): the nvjet_sm90_tst_64x8 GEMMs are two of its dense_gemm
    kernels. A 2x effect on them alone moves batch 1 less than 2x on the whole bucket, and the form says what share
    of the step they take; concurrency 16 has no trace, so nothing there matches and the form says so."""
    own = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44")
    assert confirm(client, demo_id, token_of(own.text)).status_code == 204
    form = {"intervention_id": "1", "kind": "bucket", "bucket": "dense_gemm", "kernels": "nvjet_sm90_tst_64x8",
            "speedup_low": "2", "speedup_likely": "2", "speedup_high": "2", "provenance": "assumed"}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 204, response.text
    page = html.unescape(client.get(response.headers["HX-Redirect"]).text)
    warning = re.search(r'<p class="warning" id="warning-kernels">(.*?)</p>', page, re.S).group(1)
    share = float(re.search(r"they take ([0-9.]+)% of batch 1's step", warning).group(1)) / 100
    assert 0 < share < 0.05  # two GEMM kernels of an eager step that idles 87% of its time
    assert "no dense_gemm kernel matches 'nvjet_sm90_tst_64x8' in concurrency 16 (its profile names no kernels" in warning
    effects = client.get(f"/api/campaigns/{demo_id}/effects").json()
    mine = next(e for e in effects if e["kernels"] == "nvjet_sm90_tst_64x8")
    assert mine["bucket"] == "dense_gemm"
    plan = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "dense_gemm kernels matching 'nvjet_sm90_tst_64x8' 2x faster in every regime" in plan


def test_a_pattern_re2_cannot_match_in_linear_time_is_refused_at_its_field(client, demo_id):
    form = {"intervention_id": "1", "kind": "bucket", "bucket": "attention", "kernels": "(a)\\1",
            "speedup_low": "2", "speedup_likely": "2", "speedup_high": "2", "provenance": "assumed"}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 422
    assert "is not a pattern tierplan can match in linear time" in html.unescape(response.text)
    api = client.post(f"/api/campaigns/{demo_id}/effects", json={**form, "intervention_id": 1, "kernels": "split~k",
                                                                  "speedup_low": 2, "speedup_likely": 2,
                                                                  "speedup_high": 2})
    assert api.status_code == 422 and "kernels" in api.text


def test_only_a_bucket_speedup_keeps_a_kernel_pattern(client, demo_id):
    """A step effect's form may still hold the pattern typed while it was a bucket speedup: it is not kept."""
    form = {"intervention_id": "1", "kind": "step", "kernels": "gemm", "speedup_low": "2", "speedup_likely": "2",
            "speedup_high": "2", "provenance": "assumed", "regime_ids": ["1"]}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 204, response.text
    effects = client.get(f"/api/campaigns/{demo_id}/effects").json()
    assert [e["kernels"] for e in effects if e["kind"] == "step"] == ["", ""]
