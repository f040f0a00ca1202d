"""Queries of users, API tokens, failed logins and the signing secret. Keyword-only; nothing here commits."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, func, select

from app.db.account_tables import ApiToken, AppSecret, LoginFailure, User


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


def secret(session: Session) -> AppSecret | None:
    return session.get(AppSecret, 1)
