"""Errors the web layer turns into 4xx responses."""

from __future__ import annotations


class NotFound(LookupError):
    """The campaign, regime or other row named in the URL does not exist."""


class FormInvalid(ValueError):
    """Input failed validation; `errors` maps a field name to its message."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors
