"""The tables of who may change the plan: users, their API tokens, failed logins and the cookie-signing secret."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel


class User(SQLModel, table=True):
    """Someone who may change the plan once users exist (`tierplan user add`)."""

    __tablename__ = "user_account"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    password_hash: str = Field(max_length=200)  # argon2id
    created_at: datetime


class ApiToken(SQLModel, table=True):
    """A user's token for scripts and CI (`Authorization: Bearer ...`); only its SHA-256 is kept."""

    __tablename__ = "api_token"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", ondelete="CASCADE", index=True)
    name: str = Field(max_length=100)
    token_sha256: str = Field(max_length=64, unique=True)
    created_at: datetime
    revoked_at: datetime | None = None
    campaign_id: int | None = Field(default=None, foreign_key="campaign.id", ondelete="CASCADE")  # None: any


class LoginFailure(SQLModel, table=True):
    """A failed login, kept a while so repeated guesses are slowed (every worker counts the same rows)."""

    __tablename__ = "login_failure"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, index=True)
    at: datetime


class AppSecret(SQLModel, table=True):
    """The key session cookies are signed with: made on first use, shared by every worker through the database."""

    __tablename__ = "app_secret"

    id: int = Field(primary_key=True)
    value: str = Field(max_length=100)
