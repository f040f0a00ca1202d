"""Once a user exists, changing anything needs a login (pages) or a token (API); with none, nothing changes."""

import re
import subprocess
import sys

from tierplan.db.engine import new_session
from tierplan.services.accounts import MAX_FAILURES, add_token, add_user, revoke_token

HTMX = {"HX-Request": "true"}
BODY = {"regime": "batch 1", "metric": "output_tok_s", "value": 11, "kind": "gate check"}


def register(app, clock, name="ana", password="correct horse battery"):
    with new_session(app.state.engine) as session:
        add_user(session, name, password, now=clock())


def test_with_no_user_nothing_needs_a_login(client, demo_id):
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY).status_code == 201


def test_once_a_user_exists_a_change_needs_a_login_and_reads_do_not(client, app, clock, demo_id):
    register(app, clock)
    assert client.get(f"/campaigns/{demo_id}").status_code == 200
    page = client.post(f"/campaigns/{demo_id}/measurements", data={**BODY, "value": "11"}, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].startswith("/login?next=")
    htmx = client.post(f"/campaigns/{demo_id}/measurements", data={**BODY, "value": "11"}, headers=HTMX)
    assert htmx.status_code == 401 and htmx.headers["hx-redirect"].startswith("/login")
    api = client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY)
    assert api.status_code == 401 and "Bearer" in api.headers["www-authenticate"]
    wrong = client.post("/login", data={"name": "ana", "password": "not it at all", "next": "/"})
    assert wrong.status_code == 422 and "do not match" in wrong.text
    login = client.post("/login", data={"name": "ana", "password": "correct horse battery",
                                        "next": f"/campaigns/{demo_id}"}, follow_redirects=False)
    assert login.status_code == 303 and login.headers["location"] == f"/campaigns/{demo_id}"
    cookie = login.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY).status_code == 201  # the cookie
    assert client.post("/logout", follow_redirects=False).status_code == 303
    client.cookies.clear()
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY).status_code == 401


def test_a_forged_or_foreign_cookie_is_no_login(client, app, clock, demo_id):
    register(app, clock)
    client.cookies.set("tierplan_session", "eyJ1IjoxfQ.forged.signature")
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY).status_code == 401


def test_an_api_token_works_until_it_is_revoked(client, app, clock, demo_id):
    register(app, clock)
    with new_session(app.state.engine) as session:
        token_id, text = add_token(session, "ana", "ci", now=clock())
    bearer = {"Authorization": f"Bearer {text}"}
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY, headers=bearer).status_code == 201
    with new_session(app.state.engine) as session:
        revoke_token(session, token_id, now=clock())
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY, headers=bearer).status_code == 401
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY,
                       headers={"Authorization": "Bearer tp_guess"}).status_code == 401


def test_a_token_scoped_to_a_campaign_changes_that_campaign_only(client, app, clock, demo_id):
    register(app, clock)
    other = client.post("/api/campaigns", json={"name": "other", "gpu_count": 1},
                        headers={"Authorization": f"Bearer {_token(app, clock)}"}).json()["id"]
    with new_session(app.state.engine) as session:
        _, text = add_token(session, "ana", "ci", now=clock(), campaign_id=demo_id)
    bearer = {"Authorization": f"Bearer {text}"}
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY, headers=bearer).status_code == 201
    refused = client.post(f"/api/campaigns/{other}/regimes", headers=bearer, json={
        "name": "c1", "concurrency": 1, "input_tokens": 1, "output_tokens": 1, "target_tok_s": 1})
    assert refused.status_code == 403 and refused.json()["detail"] == f"this token is for campaign {demo_id} only"
    assert client.post("/api/campaigns", json={"name": "x", "gpu_count": 1}, headers=bearer).status_code == 403
    assert client.delete(f"/api/campaigns/{demo_id}", headers=bearer).status_code == 403


def _token(app, clock) -> str:
    with new_session(app.state.engine) as session:
        return add_token(session, "ana", "admin", now=clock())[1]


def test_repeated_failed_logins_are_paused(client, app, clock):
    register(app, clock)
    for _ in range(MAX_FAILURES):
        assert client.post("/login", data={"name": "ana", "password": "guess guess"}).status_code == 422
    paused = client.post("/login", data={"name": "ana", "password": "correct horse battery"})
    assert paused.status_code == 429 and "too many failed logins" in paused.text


def test_login_goes_only_to_this_sites_pages(client, app, clock):
    register(app, clock)
    login = client.post("/login", data={"name": "ana", "password": "correct horse battery",
                                        "next": "//evil.example/x"}, follow_redirects=False)
    assert login.headers["location"] == "/"


def test_reading_needs_a_login_when_the_setting_says_so(client, app, clock, demo_id):
    register(app, clock)
    app.state.settings.login_to_read = True
    assert client.get(f"/campaigns/{demo_id}", follow_redirects=False).status_code == 303
    assert client.get(f"/api/campaigns/{demo_id}/plan").status_code == 401
    assert client.get("/healthz").status_code == 200 and client.get("/login").status_code == 200


def test_serving_beyond_loopback_with_no_user_is_refused_and_user_add_makes_one(sqlite_url, tmp_path):
    import os

    env = {**os.environ, "TIERPLAN_DATABASE_URL": sqlite_url}
    refused = subprocess.run([sys.executable, "-m", "tierplan.cli", "serve", "--host", "0.0.0.0", "--port", "9"],
                             env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "tierplan user add" in refused.stderr
    added = subprocess.run([sys.executable, "-m", "tierplan.cli", "user", "add", "ben", "--password-stdin"], env=env,
                           input="a long enough password\n", capture_output=True, text=True, timeout=60)
    assert added.returncode == 0 and "added user 'ben'" in added.stdout
    short = subprocess.run([sys.executable, "-m", "tierplan.cli", "user", "add", "cy", "--password-stdin"], env=env,
                           input="short\n", capture_output=True, text=True, timeout=60)
    assert short.returncode == 1 and "at least 10 characters" in short.stderr


def test_a_refused_change_comes_back_to_its_page_after_the_login(client, app, clock, demo_id):
    register(app, clock)
    edit = f"/campaigns/{demo_id}/regimes/1/edit"
    refused = client.post(edit, data={"name": "x"}, headers={"Referer": f"http://testserver{edit}"},
                          follow_redirects=False)
    assert refused.headers["location"] == "/login?next=" + edit.replace("/", "%2F")


def test_the_history_says_who_recorded_each_measurement(client, app, clock, demo_id):
    register(app, clock)
    client.post("/login", data={"name": "ana", "password": "correct horse battery"})
    saved = client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY)
    assert saved.status_code == 201 and saved.json()["recorded_by"] == "ana"
    history = client.get(f"/campaigns/{demo_id}/regimes/1").text
    assert f'data-measurement="{saved.json()["id"]}"' in history and "by ana" in history


def test_the_changes_page_says_who_saved_each_edit(client, app, clock, demo_id):
    register(app, clock)
    client.post("/login", data={"name": "ana", "password": "correct horse battery"})
    assert client.patch(f"/api/campaigns/{demo_id}/regimes/1", json={"target_tok_s": 1200}).status_code == 200
    assert client.delete(f"/api/campaigns/{demo_id}/gates/1").status_code == 204
    created = client.post(f"/api/campaigns/{demo_id}/tiers", json={"key": "D", "name": "later", "position": 4})
    assert created.status_code == 201
    page = client.get(f"/campaigns/{demo_id}/changes")
    assert page.status_code == 200
    rows = re.findall(r"<tr><td class=\"nowrap\">[^<]*</td><td>([^<]*)</td>\s*<td>(?:<a [^>]*>)?([^<]*)", page.text)
    assert rows[:3] == [("ana", "created tier D"),
                        ("ana", "deleted gate of tier A on batch 1 (output throughput &gt;= 40.0 tok/s)"),
                        ("ana", "updated regime batch 1: Target output tok/s 1,000 → 1,200")]


def test_tokens_are_made_scoped_and_revoked_in_the_app(client, app, clock, demo_id):
    assert "has no users, so nothing needs a token" in client.get("/tokens").text
    register(app, clock)
    assert client.get("/tokens", follow_redirects=False).headers["location"] == "/login?next=%2Ftokens"
    client.post("/login", data={"name": "ana", "password": "correct horse battery"})
    blank = client.post("/tokens", data={"name": "", "campaign_id": str(demo_id)})
    assert blank.status_code == 422 and 'aria-invalid="true"' in blank.text
    made = client.post("/tokens", data={"name": "ci-nightly", "campaign_id": str(demo_id)})
    assert made.status_code == 201
    text = re.search(r"<code class=\"token\" data-token>(tp_[^<]+)</code>", made.text).group(1)
    assert "ci-nightly" in made.text and "DeepSeek-V4-Flash" in made.text
    client.cookies.clear()
    bearer = {"Authorization": f"Bearer {text}"}
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY, headers=bearer).status_code == 201
    assert client.post("/api/campaigns", json={"name": "x", "gpu_count": 1}, headers=bearer).status_code == 403
    client.post("/login", data={"name": "ana", "password": "correct horse battery"})
    token_id = re.search(r'/tokens/(\d+)/revoke', client.get("/tokens").text).group(1)
    assert client.post(f"/tokens/{token_id}/revoke", follow_redirects=False).status_code == 303
    assert "revoked" in client.get("/tokens").text
    client.cookies.clear()
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY, headers=bearer).status_code == 401
