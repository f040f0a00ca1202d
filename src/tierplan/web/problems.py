"""The error shapes every API operation documents: 400 and 404, and 409 and 422 with a message a field."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Problem(BaseModel):
    """What was not found (a campaign, a row of it, a page)."""

    detail: str = Field(examples=["no campaign 7"])


class Invalid(BaseModel):
    """Every 422: one message a field, nothing written. With `confirmable` the messages are warnings the same
    request with `confirm: true` overrides."""

    detail: str = Field(examples=["invalid input"])
    errors: dict[str, str] = Field(examples=[{"value": "must be a number", "regime": "unknown regime 'batch 9'"}])
    confirmable: bool = False


class Conflict(BaseModel):
    """An If-Match naming a version the row has moved past: someone saved it since; nothing was written."""

    detail: str = Field(examples=["this regime was changed by someone else since you opened it (it is at version 4)"])
    version: int = Field(examples=[4])


STALE_RESPONSES: dict[int | str, dict[str, Any]] = {
    412: {"model": Conflict, "description": "If-Match names an older version: read the row again, then retry"},
}

PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "The body could not be read: not JSON, or not UTF-8"},
    404: {"model": Problem, "description": "The campaign or row named in the path does not exist"},
    409: {"model": Invalid, "description": (
        "Well formed, but at odds with what the campaign holds now: a regime, tier or intervention it does not "
        "have, a key or name another row has, a run already retracted or gone, a change that breaks a rule with "
        "the row's other values, or values flagged against the history (`confirmable`: send them again with "
        "`confirm: true`). A message for each field; nothing was written")},
    422: {"model": Invalid, "description": (
        "Invalid input, whatever the campaign holds: a message for each field; nothing was written")},
}
