"""The tables of who may change the plan: users, their API tokens, failed logins and login sessions."""

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


class LoginSession(SQLModel, table=True):
    """A login from a browser: its cookie holds a random token (only the SHA-256 is kept here). It ends at a logout,
    a password change (the others), `tierplan user passwd`, `tierplan user remove` or from the account page."""

    __tablename__ = "login_session"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", ondelete="CASCADE", index=True)
    token_sha256: str = Field(max_length=64, unique=True)
    created_at: datetime
    ended_at: datetime | None = None
    user_agent: str = Field(default="", max_length=200)  # what the browser said it was, to tell sessions apart
