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


class Conflicting(FormInvalid):
    """Input well formed by itself that disagrees with what the campaign holds now: a regime, tier or
    intervention it does not have, a key or name another row has, a run already retracted or gone, a value far
    from the regime's history (confirmable), a change that breaks a rule with the row's other values. The API
    answers 409 (the same request can succeed once the campaign changes); FormInvalid itself is 422 (the body
    can never succeed)."""


def conflicting(exc: FormInvalid) -> Conflicting:
    """The same messages, as a conflict with the campaign's state."""
    return exc if isinstance(exc, Conflicting) else Conflicting(exc.errors, exc.confirmable)


class AgainstCampaign(str):
    """A message about what the campaign holds (a key another row has, a prerequisite cycle), not about the
    input by itself."""


def refusal(errors: dict[str, str]) -> FormInvalid:
    """Conflicting when every message is against the campaign, FormInvalid otherwise."""
    if all(isinstance(message, AgainstCampaign) for message in errors.values()):
        return Conflicting(errors)
    return FormInvalid(errors)


class Stale(RuntimeError):
    """The row was saved by someone else after the form (or the API's If-Match) saw it. `version` is its
    version now; nothing was written."""

    def __init__(self, noun: str, version: int):
        super().__init__(f"this {noun} was changed by someone else since you opened it (it is at version {version})")
        self.noun = noun
        self.version = version
