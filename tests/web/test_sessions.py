"""Logins are sessions kept on the server: a logout, a password change or an administrator ends them for good."""

import os
import re
import subprocess
import sys
import threading

import pytest
from fastapi.testclient import TestClient
from sqlmodel import func, select

from tests.web.test_login import BODY, register
from tierplan.db.account_tables import LoginFailure, LoginSession
from tierplan.db.engine import Sessions, make_engine, new_session
from tierplan.models.errors import FormInvalid
from tierplan.services.accounts import MAX_FAILURES, TooManyFailures, add_token, add_user, log_in

PASSWORD = "correct horse battery"


def logged_in(app, name="ana", password=PASSWORD, agent="browser one") -> TestClient:
    client = TestClient(app, raise_server_exceptions=False)
    answer = client.post("/login", data={"name": name, "password": password}, headers={"User-Agent": agent},
                         follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return client


def can_write(client, campaign_id) -> bool:
    return client.post(f"/api/campaigns/{campaign_id}/measurements", json=BODY).status_code == 201


def test_a_logout_ends_the_session_so_the_same_cookie_no_longer_writes(app, clock, demo_id):
    register(app, clock)
    client = logged_in(app)
    cookie = client.cookies["tierplan_session"]
    assert can_write(client, demo_id)
    assert client.post("/logout", follow_redirects=False).status_code == 303
    client.cookies.set("tierplan_session", cookie)  # replayed after the logout
    assert not can_write(client, demo_id)


def test_the_header_says_who_is_logged_in_or_offers_a_login(client, app, clock, demo_id):
    assert "Log in" not in client.get("/").text  # no users: nobody logs in
    register(app, clock)
    app.state.users_seen = None
    assert '>Log in</a>' in client.get("/").text
    ana = logged_in(app)
    page = ana.get(f"/campaigns/{demo_id}").text
    assert 'class="who"' in page and ">ana</a>" in page and "Log out" in page
    assert ">ana</a>" not in client.get(f"/campaigns/{demo_id}").text  # the cached plan page is per user


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(app, clock, demo_id):
    register(app, clock)
    here, there = logged_in(app, agent="laptop"), logged_in(app, agent="phone")
    account = here.get("/account")
    assert "logged in as <strong>ana</strong>" in account.text
    assert "laptop" in account.text and "phone" in account.text and "this one" in account.text
    wrong = here.post("/account/password", data={"current": "not it at all", "new": "a new long password",
                                                 "again": "a new long password"})
    assert wrong.status_code == 422 and "not your current password" in wrong.text
    differ = here.post("/account/password", data={"current": PASSWORD, "new": "a new long password",
                                                  "again": "another long one"})
    assert differ.status_code == 422 and "the two new passwords differ" in differ.text
    changed = here.post("/account/password", data={"current": PASSWORD, "new": "a new long password",
                                                   "again": "a new long password"})
    assert changed.status_code == 200 and "Password changed; 1 other session ended." in changed.text
    assert can_write(here, demo_id) and not can_write(there, demo_id)
    assert logged_in(app, password="a new long password")


def test_a_session_is_ended_from_the_account_page(app, clock, demo_id):
    register(app, clock)
    here, there = logged_in(app, agent="laptop"), logged_in(app, agent="phone")
    other = re.search(r"<tr><td>(\d+)</td><td>phone", here.get("/account").text).group(1)
    assert here.post(f"/account/sessions/{other}/end", follow_redirects=False).status_code == 303
    assert not can_write(there, demo_id) and can_write(here, demo_id)
    assert here.post(f"/account/sessions/{other}/end").status_code == 404  # ended already


def test_a_campaign_token_is_refused_the_tokens_page_with_403(client, app, clock, demo_id):
    register(app, clock)
    with new_session(app.state.engine) as session:
        _, text = add_token(session, "ana", "ci", now=clock(), campaign_id=demo_id)
    refused = client.get("/tokens", headers={"Authorization": f"Bearer {text}"})
    assert refused.status_code == 403 and f"this token is for campaign {demo_id} only" in refused.text


def test_passwd_remove_and_sessions_from_the_command_line(app, clock, demo_id, sqlite_url):
    register(app, clock)
    client = logged_in(app, agent="laptop")
    env = {**os.environ, "TIERPLAN_DATABASE_URL": sqlite_url}

    def cli(*args, stdin=""):
        return subprocess.run([sys.executable, "-m", "tierplan.cli", "user", *args], env=env, input=stdin,
                              capture_output=True, text=True, timeout=60)

    listed = cli("sessions", "ana")
    assert listed.returncode == 0 and "laptop" in listed.stdout
    changed = cli("passwd", "ana", "--password-stdin", stdin="another long password\n")
    assert changed.returncode == 0 and "1 session(s) ended" in changed.stdout
    assert not can_write(client, demo_id)
    client = logged_in(app, password="another long password")
    assert cli("end-session", "ana").stdout.startswith("ended 1 session(s)") and not can_write(client, demo_id)
    assert cli("passwd", "nobody", "--password-stdin", stdin="long enough pass\n").returncode == 1
    removed = cli("remove", "ana")
    assert removed.returncode == 0 and "removed user 'ana'" in removed.stdout
    with new_session(app.state.engine) as session:
        assert session.exec(select(func.count()).select_from(LoginSession)).one() == 0
    assert cli("remove", "ana").returncode == 1


@pytest.mark.postgres
def test_parallel_guesses_cannot_outrun_the_pause_on_postgresql(postgres_url):
    """40 wrong passwords at once: each is counted before its check, one name at a time, so exactly five are
    checked and the rest are paused."""
    engine = make_engine(postgres_url, pool_size=20, max_overflow=30)
    try:
        from datetime import UTC, datetime

        now = datetime.now(UTC)
        with new_session(engine) as session:
            add_user(session, "ana", PASSWORD, now=now)
        outcomes: list[str] = []
        lock = threading.Lock()

        def guess() -> None:
            try:
                log_in(Sessions(engine), "ana", "a wrong guess!", now=now)
                outcome = "in"
            except FormInvalid:
                outcome = "checked"
            except TooManyFailures:
                outcome = "paused"
            with lock:
                outcomes.append(outcome)

        threads = [threading.Thread(target=guess) for _ in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert outcomes.count("checked") == MAX_FAILURES and outcomes.count("paused") == 40 - MAX_FAILURES
        with new_session(engine) as session:
            assert session.exec(select(func.count()).select_from(LoginFailure)).one() == MAX_FAILURES
    finally:
        engine.dispose()
