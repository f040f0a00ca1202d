"""Users, logins and API tokens: who may change the plan once anyone is registered.

Passwords are hashed with argon2id (argon2-cffi's defaults); API tokens are random and only their SHA-256 is
stored. Five failed logins for one name within 15 minutes make the next ones wait out that window.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.db import accounts
from app.db.account_tables import ApiToken, AppSecret, LoginFailure, User
from app.db.tables import Campaign
from app.services.errors import FormInvalid, NotFound

HASHER = PasswordHasher()
MAX_FAILURES, FAILURE_WINDOW = 5, timedelta(minutes=15)
MIN_PASSWORD = 10


class TooManyFailures(RuntimeError):
    """Logins for this name are paused after repeated failures."""


def add_user(session: Session, name: str, password: str, *, now: datetime) -> User:
    """Register a user; FormInvalid for a taken or empty name or a short password. One commit."""
    name = name.strip()
    if not name or len(name) > 100 or not name.isprintable():
        raise FormInvalid({"name": "1 to 100 printable characters"})
    if len(password) < MIN_PASSWORD:
        raise FormInvalid({"password": f"at least {MIN_PASSWORD} characters"})
    user = User(name=name, password_hash=HASHER.hash(password), created_at=now)
    session.add(user)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise FormInvalid({"name": f"there is already a user called {name!r}"}) from None
    session.refresh(user)
    return user


def log_in(session: Session, name: str, password: str, *, now: datetime) -> User:
    """The user, if the password is theirs; FormInvalid (the same message whether the name exists or not), or
    TooManyFailures. A failure is recorded (one commit)."""
    if accounts.failures_since(session, name=name, since=now - FAILURE_WINDOW) >= MAX_FAILURES:
        raise TooManyFailures(f"too many failed logins for {name!r}: try again in {FAILURE_WINDOW.seconds // 60} "
                              "minutes")
    user = accounts.user_named(session, name=name)
    try:
        if user is None:
            HASHER.verify(HASHER.hash("timing"), "not it")  # as slow as a real check, so no name is revealed
        else:
            HASHER.verify(user.password_hash, password)
            return user
    except (VerificationError, InvalidHashError):
        pass
    session.add(LoginFailure(name=name[:100], at=now))
    session.commit()
    raise FormInvalid({"password": "that name and password do not match"})


def add_token(session: Session, user_name: str, token_name: str, *, now: datetime,
              campaign_id: int | None = None) -> tuple[ApiToken, str]:
    """A new API token for the user, and its text (shown once; only its hash is kept); scoped to `campaign_id`
    when given. One commit."""
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
    session.refresh(token)
    return token, text


def revoke_token(session: Session, token_id: int, *, now: datetime) -> ApiToken:
    token = session.get(ApiToken, token_id)
    if token is None:
        raise NotFound(f"no token {token_id}")
    token.revoked_at = token.revoked_at or now
    session.add(token)
    session.commit()
    return token


def user_of_token(session: Session, text: str) -> tuple[User | None, int | None]:
    """The user a live (not revoked) token belongs to, and the campaign it is scoped to (None: any)."""
    token = accounts.token_with(session, sha256=_sha256(text))
    if token is None or token.revoked_at is not None:
        return None, None
    return session.get(User, token.user_id), token.campaign_id


def token_allows(campaign_id: int | None, method: str, path: str) -> bool:
    """Whether a token scoped to `campaign_id` may make this request: its campaign's paths only (not deleting
    the campaign itself); an unscoped token may make any."""
    if campaign_id is None:
        return True
    own = f"/api/campaigns/{campaign_id}"
    if path == own:
        return method != "DELETE"
    return path.startswith(own + "/")


def signing_secret(session: Session) -> str:
    """The cookie-signing secret, made (and committed) on first use."""
    found = accounts.secret(session)
    if found is not None:
        return found.value
    session.add(AppSecret(id=1, value=secrets.token_urlsafe(48)))
    try:
        session.commit()
    except IntegrityError:  # another worker made it at the same moment
        session.rollback()
    found = accounts.secret(session)
    assert found is not None
    return found.value


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
