"""Queries of users, API tokens, login sessions and failed logins. Keyword-only; nothing here commits."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import Session, col, func, select

from tierplan.db.account_tables import ApiToken, LoginFailure, LoginSession, User


def any_user(session: Session) -> bool:
    return session.exec(select(User.id).limit(1)).first() is not None


def user_named(session: Session, *, name: str) -> User | None:
    return session.exec(select(User).where(User.name == name)).first()


def users(session: Session) -> list[User]:
    return list(session.exec(select(User).order_by(col(User.name))).all())


def token_with(session: Session, *, sha256: str) -> ApiToken | None:
    return session.exec(select(ApiToken).where(ApiToken.token_sha256 == sha256)).first()


def tokens_of(session: Session, *, user_id: int) -> list[ApiToken]:
    return list(session.exec(select(ApiToken).where(ApiToken.user_id == user_id).order_by(col(ApiToken.id))).all())


def failures_since(session: Session, *, name: str, since: datetime) -> int:
    query = select(func.count()).select_from(LoginFailure).where(LoginFailure.name == name, LoginFailure.at >= since)
    return int(session.exec(query).one())


def session_with(session: Session, *, sha256: str) -> LoginSession | None:
    return session.exec(select(LoginSession).where(LoginSession.token_sha256 == sha256)).first()


def sessions_of(session: Session, *, user_id: int) -> list[LoginSession]:
    """A user's live sessions, newest first."""
    query = (select(LoginSession).where(LoginSession.user_id == user_id, col(LoginSession.ended_at).is_(None))
             .order_by(col(LoginSession.id).desc()))
    return list(session.exec(query).all())


def end_sessions(session: Session, *, user_id: int, at: datetime, keep_id: int | None = None,
                 only_id: int | None = None) -> int:
    """End a user's live sessions (all, all but `keep_id`, or `only_id`); how many ended."""
    query = update(LoginSession).where(col(LoginSession.user_id) == user_id, col(LoginSession.ended_at).is_(None))
    if keep_id is not None:
        query = query.where(col(LoginSession.id) != keep_id)
    if only_id is not None:
        query = query.where(col(LoginSession.id) == only_id)
    return int(session.exec(query.values(ended_at=at)).rowcount)  # type: ignore[call-overload]


def all_sessions_of(session: Session, *, user_id: int) -> list[LoginSession]:
    return list(session.exec(select(LoginSession).where(LoginSession.user_id == user_id)).all())
