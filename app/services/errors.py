"""Errors the web layer turns into 4xx responses."""

from __future__ import annotations


class NotFound(LookupError):
    """The campaign, regime or other row named in the URL does not exist."""


class FormInvalid(ValueError):
    """Input failed validation; `errors` maps a field name to its message.

    `confirmable`: every message is a warning the user may override by confirming in the same form.
    """

    def __init__(self, errors: dict[str, str], confirmable: bool = False):
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors
        self.confirmable = confirmable


class Stale(RuntimeError):
    """The row was saved by someone else after the form (or the API's If-Match) saw it. `version` is its
    version now; nothing was written."""

    def __init__(self, noun: str, version: int):
        super().__init__(f"this {noun} was changed by someone else since you opened it (it is at version {version})")
        self.noun = noun
        self.version = version
