"""Users, logins and API tokens: who may change the plan once anyone is registered.

Passwords are hashed with argon2id (argon2-cffi's defaults); API tokens are random and only their SHA-256 is
stored. Five failed logins for one name within 15 minutes make the next ones wait out that window. A login is a
session kept in the database (its cookie holds a random token, only its SHA-256 is kept), so a logout ends it.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from tierplan.db import accounts, links
from tierplan.db.account_tables import ApiToken, LoginFailure, LoginSession, User
from tierplan.db.engine import Sessions
from tierplan.db.tables import Campaign
from tierplan.models.errors import FormInvalid, NotFound

HASHER = PasswordHasher()
MAX_FAILURES, FAILURE_WINDOW = 5, timedelta(minutes=15)
MIN_PASSWORD, MAX_PASSWORD = 10, 1024


class TooManyFailures(RuntimeError):
    """Logins for this name are paused after repeated failures."""


def add_user(session: Session, name: str, password: str, *, now: datetime) -> str:
    """Register a user; their name as stored. FormInvalid for a taken or empty name or a short password. One
    commit."""
    name = name.strip()
    if not name or len(name) > 100 or not name.isprintable():
        raise FormInvalid({"name": "1 to 100 printable characters"})
    user = User(name=name, password_hash=_new_hash(password, field="password"), created_at=now)
    session.add(user)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise FormInvalid({"name": f"there is already a user called {name!r}"}) from None
    return user.name


def log_in(sessions: Sessions, name: str, password: str, *, now: datetime, user_agent: str = "") -> str:
    """A new login session's token (for its cookie) if the password is the user's; FormInvalid (the same message
    whether the name exists or not), or TooManyFailures. No lock is held while the password is checked: the
    attempt is counted first (one short write, one name at a time), so parallel guesses cannot outrun the
    pause, and a success takes it back as it starts the session (a second short write)."""
    with sessions.writer() as session:
        links.hold_name(session, name=f"login:{name}")  # one attempt of a name at a time
        if accounts.failures_since(session, name=name, since=now - FAILURE_WINDOW) >= MAX_FAILURES:
            raise TooManyFailures(f"too many failed logins for {name!r}: try again in "
                                  f"{FAILURE_WINDOW.seconds // 60} minutes")
        attempt = LoginFailure(name=name[:100], at=now)
        session.add(attempt)
        user = accounts.user_named(session, name=name)
        user_id, password_hash = (user.id, user.password_hash) if user else (None, None)
        session.commit()
        attempt_id = attempt.id
    if user_id is None or not password_matches(password_hash, password):
        raise FormInvalid({"password": "that name and password do not match"})
    text = "ts_" + secrets.token_urlsafe(32)
    with sessions.writer() as session:
        failure = session.get(LoginFailure, attempt_id)
        if failure is not None:
            session.delete(failure)
        session.add(LoginSession(user_id=user_id, token_sha256=_sha256(text), created_at=now,
                                 user_agent=user_agent[:200]))
        session.commit()
    return text


def password_matches(password_hash: str | None, password: str) -> bool:
    """Whether `password` is the one hashed (argon2id: about as slow for a missing user as for a real one)."""
    try:
        if password_hash is None:
            HASHER.verify(HASHER.hash("timing"), "not it")  # as slow as a real check, so no name is revealed
            return False
        return bool(HASHER.verify(password_hash, password))
    except (VerificationError, InvalidHashError):
        return False


def user_of_session(session: Session, text: str) -> tuple[str | None, int | None]:
    """The name of the user of a live login session (its cookie's token), and the session's id."""
    found = accounts.session_with(session, sha256=_sha256(text))
    user = session.get(User, found.user_id) if found is not None and found.ended_at is None else None
    return (user.name, found.id) if user is not None and found is not None else (None, None)


def log_out(session: Session, text: str, *, now: datetime) -> None:
    """End the login session of this token (one commit); nothing when it has ended already."""
    found = accounts.session_with(session, sha256=_sha256(text))
    if found is not None and found.ended_at is None:
        accounts.end_sessions(session, user_id=found.user_id, at=now, only_id=found.id)
        session.commit()


def end_session(session: Session, user_name: str, session_id: int, *, now: datetime) -> None:
    """End one of the user's live sessions (one commit); NotFound when it is not theirs or not live."""
    user = _user(session, user_name)
    if not accounts.end_sessions(session, user_id=user.id or 0, at=now, only_id=session_id):
        session.rollback()
        raise NotFound(f"no live session {session_id} of {user_name!r}")
    session.commit()


def end_all_sessions(session: Session, user_name: str, *, now: datetime) -> int:
    """End every live session of the user (one commit); how many ended."""
    user = _user(session, user_name)
    ended = accounts.end_sessions(session, user_id=user.id or 0, at=now)
    session.commit()
    return ended


def change_password(sessions: Sessions, user_name: str, current: str, new: str, *, now: datetime,
                    keep_session_id: int | None) -> int:
    """Set a new password after checking the current one, and end the user's other sessions; how many ended.
    FormInvalid at the field. The hashing happens before the write."""
    with sessions.reader() as session:
        user = _user(session, user_name)
        user_id, password_hash = user.id or 0, user.password_hash
    if not password_matches(password_hash, current):
        raise FormInvalid({"current": "that is not your current password"})
    new_hash = _new_hash(new, field="new")
    with sessions.writer() as session:
        found = session.get(User, user_id)
        if found is None:
            raise NotFound(f"no user {user_name!r}")
        found.password_hash = new_hash
        session.add(found)
        ended = accounts.end_sessions(session, user_id=user_id, at=now, keep_id=keep_session_id)
        session.commit()
    return ended


def set_password(session: Session, user_name: str, new: str, *, now: datetime) -> int:
    """An administrator's password change (`tierplan user passwd`): every session of the user ends; how many.
    One commit."""
    new_hash = _new_hash(new, field="password")
    user = _user(session, user_name)
    user.password_hash = new_hash
    session.add(user)
    ended = accounts.end_sessions(session, user_id=user.id or 0, at=now)
    session.commit()
    return ended


def remove_user(session: Session, user_name: str) -> None:
    """Remove a user with their tokens and sessions (one commit); what they recorded keeps their name."""
    user = _user(session, user_name)
    for row in (*accounts.tokens_of(session, user_id=user.id or 0), *accounts.all_sessions_of(session,
                                                                                              user_id=user.id or 0)):
        session.delete(row)
    session.delete(user)
    session.commit()


def _user(session: Session, name: str) -> User:
    user = accounts.user_named(session, name=name)
    if user is None:
        raise NotFound(f"no user {name!r}")
    return user


def _new_hash(password: str, *, field: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise FormInvalid({field: f"at least {MIN_PASSWORD} characters"})
    if len(password) > MAX_PASSWORD:
        raise FormInvalid({field: f"at most {MAX_PASSWORD} characters"})
    return str(HASHER.hash(password))


def add_token(session: Session, user_name: str, token_name: str, *, now: datetime,
              campaign_id: int | None = None) -> tuple[int, str]:
    """A new API token for the user, and its text (shown once; only its hash is kept); scoped to `campaign_id`
    when given: its id and its text. One commit."""
    user = accounts.user_named(session, name=user_name)
    if user is None:
        raise NotFound(f"no user {user_name!r}")
    if campaign_id is not None and session.get(Campaign, campaign_id) is None:
        raise NotFound(f"no campaign {campaign_id}")
    text = "tp_" + secrets.token_urlsafe(32)
    token = ApiToken(user_id=user.id or 0, name=token_name[:100], token_sha256=_sha256(text), created_at=now,
                     campaign_id=campaign_id)
    session.add(token)
    session.commit()
    return token.id or 0, text


def revoke_token(session: Session, token_id: int, *, now: datetime) -> None:
    """Revoke the token (one commit; once revoked it stays so, at the first time); NotFound for none."""
    token = session.get(ApiToken, token_id)
    if token is None:
        raise NotFound(f"no token {token_id}")
    token.revoked_at = token.revoked_at or now
    session.add(token)
    session.commit()


def user_of_token(session: Session, text: str) -> tuple[str | None, int | None]:
    """The name of the user a live (not revoked) token belongs to, and the campaign it is scoped to (None: any)."""
    token = accounts.token_with(session, sha256=_sha256(text))
    user = session.get(User, token.user_id) if token is not None and token.revoked_at is None else None
    return (user.name, token.campaign_id) if user is not None and token is not None else (None, None)


def token_allows(campaign_id: int | None, method: str, path: str) -> bool:
    """Whether a token scoped to `campaign_id` may make this request: its campaign's paths only (not deleting
    the campaign itself); an unscoped token may make any."""
    if campaign_id is None:
        return True
    own = f"/api/campaigns/{campaign_id}"
    if path == own:
        return method != "DELETE"
    return path.startswith(own + "/")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
