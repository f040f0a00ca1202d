"""Two people editing one row: the later save of an older form is refused with 409 and loses nothing."""

import html
import re

HTMX = {"HX-Request": "true"}


def opened(client, path: str) -> dict[str, str]:
    """The form's inputs as a browser would send them back unchanged (text inputs and the hidden version)."""
    page = client.get(path).text
    values = dict(re.findall(r'<input[^>]*name="(\w+)"[^>]*value="([^"]*)"', page))
    values |= {name: html.unescape(v) for name, v in re.findall(
        r'<select[^>]*name="(\w+)"[^>]*>.*?<option value="([^"]*)" selected', page, re.S)}
    values |= {name: html.unescape(v) for name, v in re.findall(r'<textarea[^>]*name="(\w+)"[^>]*>([^<]*)</textarea>', page)}
    return {k: html.unescape(v) for k, v in values.items()}


def test_the_later_of_two_saves_from_one_version_is_refused_and_shows_both(client, demo_id):
    path = f"/campaigns/{demo_id}/regimes/1/edit"
    ana, ben = opened(client, path), opened(client, path)
    assert ana["version"] == ben["version"] == "1"
    assert client.post(path, data=ana | {"target_tok_s": "1200"}, headers=HTMX).status_code == 204
    refused = client.post(path, data=ben | {"target_tok_s": "900", "notes": "ben's note"}, headers=HTMX)
    assert refused.status_code == 409
    text = html.unescape(refused.text)
    assert "Someone saved this after you opened it" in text
    assert re.search(r"<td>Target output tok/s</td><td>1200</td><td>900</td>", text)
    assert 'name="version" value="2"' in refused.text and 'value="900"' in refused.text  # yours, at the new version
    regime = client.get(f"/api/campaigns/{demo_id}/regimes/1").json()
    assert regime["target_tok_s"] == 1200 and regime["notes"] != "ben's note"  # nothing of ben's was written
    again = dict(ben | {"target_tok_s": "900", "version": "2"})
    assert client.post(path, data=again, headers=HTMX).status_code == 204  # reapplying puts ben's over ana's
    assert client.get(f"/api/campaigns/{demo_id}/regimes/1").json()["target_tok_s"] == 900


def test_a_rejected_form_keeps_the_version_it_was_opened_at(client, demo_id):
    path = f"/campaigns/{demo_id}/tiers/1/edit"
    form = opened(client, path)
    invalid = client.post(path, data=form | {"key": ""}, headers=HTMX)
    assert invalid.status_code == 422 and f'name="version" value="{form["version"]}"' in invalid.text


def test_the_api_takes_if_match_and_answers_412_for_an_older_version(client, demo_id):
    url = f"/api/campaigns/{demo_id}/interventions/1"
    read = client.get(url)
    etag = read.headers["etag"]
    assert etag == f'"{read.json()["version"]}"'
    saved = client.patch(url, json={"title": "first"}, headers={"If-Match": etag})
    assert saved.status_code == 200 and saved.headers["etag"] != etag
    stale = client.patch(url, json={"title": "second"}, headers={"If-Match": etag})
    assert stale.status_code == 412 and stale.json()["version"] == saved.json()["version"]
    assert client.get(url).json()["title"] == "first"
    assert client.patch(url, json={"title": "no precondition"}).status_code == 200  # without If-Match: last wins
    campaign = client.get(f"/api/campaigns/{demo_id}")
    assert client.patch(f"/api/campaigns/{demo_id}", json={"notes": "x"}, headers={"If-Match": '"999"'}).status_code == 412
    assert client.patch(f"/api/campaigns/{demo_id}", json={"notes": "x"},
                        headers={"If-Match": campaign.headers["etag"]}).status_code == 200


def test_a_spec_form_saved_over_a_newer_spec_is_refused(client, demo_id):
    path = f"/campaigns/{demo_id}/specs/hardware"
    ana, ben = opened(client, path), opened(client, path)
    assert ana["version"]
    assert client.post(path, data=ana | {"memory_gb": "80"}, headers=HTMX).status_code == 204
    refused = client.post(path, data=ben | {"memory_gb": "141"}, headers=HTMX)
    assert refused.status_code == 409 and "Someone saved this" in html.unescape(refused.text)
    assert client.get(f"/api/campaigns/{demo_id}/specs/hardware").json()["memory_gb"] == 80


def test_a_profile_saved_since_the_form_was_opened_is_not_overwritten(client, demo_id):
    path = f"/campaigns/{demo_id}/regimes/1/profile"
    ana, ben = opened(client, path), opened(client, path)
    assert ana["version"] == ben["version"] != ""
    assert client.post(path, data=ana | {"shares": "attention 50%\nmoe 50%"}, headers=HTMX).status_code == 204
    refused = client.post(path, data=ben | {"shares": "attention 20%\nmoe 80%"}, headers=HTMX)
    assert refused.status_code == 409 and "Someone saved this after you opened it" in html.unescape(refused.text)
    assert "moe 80%" in refused.text  # what ben typed is still in the form
    newest = client.get(f"/api/campaigns/{demo_id}/regimes/1/profile")
    assert {s["bucket"]: s["share"] for s in newest.json()["shares"]}["attention"] == 0.5
    stale = client.post(f"/api/campaigns/{demo_id}/regimes/1/profile", json={"shares": "attention 10%"},
                        headers={"If-Match": f'"{ana["version"]}"'})
    assert stale.status_code == 412
    fresh = client.post(f"/api/campaigns/{demo_id}/regimes/1/profile", json={"shares": "attention 10%"},
                        headers={"If-Match": newest.headers["etag"]})
    assert fresh.status_code == 201 and fresh.headers["etag"] != newest.headers["etag"]


def test_kernel_rules_saved_since_the_form_was_opened_are_not_overwritten(client, demo_id):
    path = f"/campaigns/{demo_id}/import/rules"
    ana, ben = opened(client, path), opened(client, path)
    assert client.post(path, data=ana | {"rules": "gemm => gemm\n"}, headers=HTMX).status_code == 204
    refused = client.post(path, data=ben | {"rules": "attn => attention\n"}, headers=HTMX)
    assert refused.status_code == 409 and "attn =&gt; attention" in refused.text
    assert opened(client, path)["rules"].strip() == "gemm => gemm"
    again = client.post(path, data=ben | {"rules": "attn => attention\n", "version": opened(client, path)["version"]},
                        headers=HTMX)
    assert again.status_code == 204 and opened(client, path)["rules"].strip() == "attn => attention"


def test_spec_profile_and_kernel_rule_saves_are_in_the_change_log(client, demo_id):
    spec = opened(client, f"/campaigns/{demo_id}/specs/hardware")
    assert client.post(f"/campaigns/{demo_id}/specs/hardware", data=spec, headers=HTMX).status_code == 204
    profile = opened(client, f"/campaigns/{demo_id}/regimes/1/profile")
    assert client.post(f"/campaigns/{demo_id}/regimes/1/profile", data=profile, headers=HTMX).status_code == 204
    rules = opened(client, f"/campaigns/{demo_id}/import/rules")
    assert client.post(f"/campaigns/{demo_id}/import/rules", data=rules, headers=HTMX).status_code == 204
    raw = client.get(f"/campaigns/{demo_id}/changes").text
    page = html.unescape(raw)
    for line in ("updated kernel rules", "created profile of batch 1", "updated hardware spec"):
        assert line in page
    links = re.findall(r'<td><a href="([^"]+)">', raw)
    assert len(links) == 2 and all(client.get(link).status_code == 200 for link in links)  # rules, specs


def test_a_new_row_sent_twice_with_its_key_is_stored_once(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}/tiers/new").text
    assert 'name="idempotency_key"' in page and 'name="version"' not in page
    form = {"key": "D", "name": "later", "position": "4", "idempotency_key": "k" * 32}
    first = client.post(f"/campaigns/{demo_id}/tiers/new", data=form, headers=HTMX)
    again = client.post(f"/campaigns/{demo_id}/tiers/new", data=form, headers=HTMX)  # a double click, a retry
    assert first.status_code == again.status_code == 204
    assert [t["key"] for t in client.get(f"/api/campaigns/{demo_id}/tiers").json()].count("D") == 1
    body = {"tier_id": 1, "regime_id": 1, "metric": "output_tok_s", "comparator": ">=", "threshold": 30}
    key = {"Idempotency-Key": "g" * 32}
    one = client.post(f"/api/campaigns/{demo_id}/gates", json=body, headers=key)
    two = client.post(f"/api/campaigns/{demo_id}/gates", json=body, headers=key)
    assert one.status_code == two.status_code == 201 and one.json()["id"] == two.json()["id"]
    made = client.post("/api/campaigns", json={"name": "once", "gpu_count": 1}, headers={"Idempotency-Key": "c" * 32})
    assert client.post("/api/campaigns", json={"name": "once", "gpu_count": 1},
                       headers={"Idempotency-Key": "c" * 32}).json()["id"] == made.json()["id"]


def test_a_malformed_version_is_refused_as_stale_never_saved_blind(client, demo_id):
    path = f"/campaigns/{demo_id}/regimes/1/edit"
    form = opened(client, path)
    for version in ("nan", "x" * 10_000, "-3", "1.5"):
        refused = client.post(path, data=form | {"target_tok_s": "900", "version": version}, headers=HTMX)
        assert refused.status_code == 409, version
    assert client.get(f"/api/campaigns/{demo_id}/regimes/1").json()["target_tok_s"] == 1000
    url = f"/api/campaigns/{demo_id}/interventions/1"
    for header in ("garbage", '"1", "2"', 'W/"abc"'):
        assert client.patch(url, json={"title": "blind"}, headers={"If-Match": header}).status_code == 412, header
    assert client.patch(url, json={"title": "any"}, headers={"If-Match": "*"}).status_code == 200
    assert client.get(url).json()["title"] == "any"
