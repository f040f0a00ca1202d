"""`tierplan user ...` and `tierplan token ...`: who may change the plan, and their tokens for scripts."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.table import Table

from tierplan.cli import _migrate, app, fail, out
from tierplan.config import get_settings

users_app = typer.Typer(help="Users: once one exists, changing the plan needs a login.", no_args_is_help=True)
tokens_app = typer.Typer(help="API tokens (Authorization: Bearer ...), one a script or CI job.", no_args_is_help=True)
app.add_typer(users_app, name="user")
app.add_typer(tokens_app, name="token")


def _session():
    from tierplan.db.engine import make_engine, new_session

    url = get_settings().database_url
    _migrate(url)
    engine = make_engine(url)
    return engine, new_session(engine, write=True)


@users_app.command("add")
def user_add(
    name: Annotated[str, typer.Argument(help="The name to log in with.")],
    password_stdin: Annotated[bool, typer.Option("--password-stdin", help="Read the password from standard input "
                                                                          "(for scripts) instead of asking.")] = False,
) -> None:
    """Add a user (the password is asked twice, or read from standard input)."""
    from tierplan.models.errors import FormInvalid
    from tierplan.services.accounts import add_user

    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    engine, session = _session()
    try:
        with session:
            user = add_user(session, name, password, now=datetime.now(UTC))
    except FormInvalid as exc:
        raise fail("; ".join(exc.errors.values())) from None
    finally:
        engine.dispose()
    out.print(f"added user {user!r}: changing the plan now needs a login")


@users_app.command("list")
def user_list() -> None:
    """The users, with their tokens."""
    from tierplan.db import accounts

    engine, session = _session()
    try:
        with session:
            table = Table("user", "since", "tokens")
            for user in accounts.users(session):
                tokens = accounts.tokens_of(session, user_id=user.id or 0)
                live = [f"{t.id}: {t.name}" + (f" (campaign {t.campaign_id})" if t.campaign_id else "") for t in tokens
                    if t.revoked_at is None]
                table.add_row(user.name, f"{user.created_at:%Y-%m-%d}", ", ".join(live) or "none")
    finally:
        engine.dispose()
    out.print(table)


@tokens_app.command("add")
def token_add(
    user: Annotated[str, typer.Argument(help="The user the token acts as.")],
    name: Annotated[str, typer.Argument(help="What the token is for, e.g. ci-nightly.")],
    campaign: Annotated[int | None, typer.Option(help="Scope it to this campaign: it may change that campaign's "
                                                      "data and nothing else (a CI token).")] = None,
) -> None:
    """Make an API token; it is shown once, only its hash is kept."""
    from tierplan.models.errors import NotFound
    from tierplan.services.accounts import add_token

    engine, session = _session()
    try:
        with session:
            token_id, text = add_token(session, user, name, now=datetime.now(UTC), campaign_id=campaign)
    except NotFound as exc:
        raise fail(str(exc)) from None
    finally:
        engine.dispose()
    scope = f", campaign {campaign} only" if campaign is not None else ""
    out.print(f"token {token_id} for {user!r} ({name}{scope}); send it as Authorization: Bearer {text}")


@tokens_app.command("revoke")
def token_revoke(token_id: Annotated[int, typer.Argument(help="The token's number (`tierplan user list`).")]) -> None:
    """Revoke a token: requests with it are refused from now on."""
    from tierplan.models.errors import NotFound
    from tierplan.services.accounts import revoke_token

    engine, session = _session()
    try:
        with session:
            revoke_token(session, token_id, now=datetime.now(UTC))
    except NotFound as exc:
        raise fail(str(exc)) from None
    finally:
        engine.dispose()
    out.print(f"revoked token {token_id}")


def _password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\n")
    return typer.prompt("New password", hide_input=True, confirmation_prompt=True)


@users_app.command("passwd")
def user_passwd(
    name: Annotated[str, typer.Argument(help="The user whose password changes.")],
    password_stdin: Annotated[bool, typer.Option("--password-stdin", help="Read the new password from standard "
                                                                          "input instead of asking.")] = False,
) -> None:
    """Set a user's password; every session of theirs ends (their tokens go on: revoke them apart)."""
    from tierplan.models.errors import FormInvalid, NotFound
    from tierplan.services.accounts import set_password

    password = _password(password_stdin)
    engine, session = _session()
    try:
        with session:
            ended = set_password(session, name, password, now=datetime.now(UTC))
    except (FormInvalid, NotFound) as exc:
        raise fail("; ".join(exc.errors.values()) if isinstance(exc, FormInvalid) else str(exc)) from None
    finally:
        engine.dispose()
    out.print(f"changed the password of {name!r}; {ended} session(s) ended")


@users_app.command("remove")
def user_remove(name: Annotated[str, typer.Argument(help="The user to remove.")]) -> None:
    """Remove a user, their tokens and their sessions at once; what they recorded keeps their name."""
    from tierplan.models.errors import NotFound
    from tierplan.services.accounts import remove_user

    engine, session = _session()
    try:
        with session:
            remove_user(session, name)
    except NotFound as exc:
        raise fail(str(exc)) from None
    finally:
        engine.dispose()
    out.print(f"removed user {name!r} with their tokens and sessions")


@users_app.command("sessions")
def user_sessions(name: Annotated[str, typer.Argument(help="The user whose login sessions to list.")]) -> None:
    """A user's live login sessions (end one with `tierplan user end-session NAME ID`)."""
    from tierplan.db import accounts

    engine, session = _session()
    try:
        with session:
            user = accounts.user_named(session, name=name)
            if user is None:
                raise fail(f"no user {name!r}")
            table = Table("#", "since", "browser")
            for login in accounts.sessions_of(session, user_id=user.id or 0):
                table.add_row(str(login.id), f"{login.created_at:%Y-%m-%d %H:%M}", login.user_agent or "unknown")
    finally:
        engine.dispose()
    out.print(table)


@users_app.command("end-session")
def user_end_session(
    name: Annotated[str, typer.Argument(help="The user.")],
    session_id: Annotated[int | None, typer.Argument(help="The session's number (`tierplan user sessions`); "
                                                          "leave it out to end them all.")] = None,
) -> None:
    """End one of a user's login sessions, or all of them."""
    from tierplan.models.errors import NotFound
    from tierplan.services.accounts import end_all_sessions, end_session

    engine, session = _session()
    try:
        with session:
            if session_id is not None:
                end_session(session, name, session_id, now=datetime.now(UTC))
                ended = 1
            else:
                ended = end_all_sessions(session, name, now=datetime.now(UTC))
    except NotFound as exc:
        raise fail(str(exc)) from None
    finally:
        engine.dispose()
    out.print(f"ended {ended} session(s) of {name!r}")
