"""What the field macro renders: a form's fields (made from a model by tierplan/models/fields.py), the values typed
and the messages by field. Checking what comes back is the models' job (`parse_form`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Field:
    """One form field. `kind` is text, textarea, int, float, select, multiselect, datetime or checkbox."""

    name: str
    label: str
    kind: str = "text"
    required: bool = True
    minimum: float | None = None
    exclusive_minimum: bool = False
    options: Sequence[tuple[str, str]] = ()
    help: str = ""
    max_length: int | None = None
    placeholder: str = ""
    show_for: tuple[str, ...] = ()  # values of the form's "kind" field this field belongs to (empty: always)


@dataclass
class Form:
    """A form's fields, the raw values typed (kept on error) and the messages by field."""

    fields: Sequence[Field]
    raw: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    confirmable: bool = False  # the errors are warnings a tick in the form overrides
    version: int | None = None  # the row's version when the form was opened (a hidden input; None: a new row)
    conflict: list[tuple[str, str, str]] = field(default_factory=list)  # field label, saved meanwhile, yours
    warnings: dict[str, str] = field(default_factory=dict)  # by field: saved, but worth knowing (it applies nowhere)

    @classmethod
    def rejected(cls, fields: Sequence[Field], data: Mapping[str, Any], exc: Any) -> Form:
        """The form again after a FormInvalid: what the user typed, and the messages by field."""
        return cls(fields, raw_values(fields, data), exc.errors, confirmable=exc.confirmable,
                   version=version_of(data.get("version")))

    @classmethod
    def stale(cls, current: Form, data: Mapping[str, Any]) -> Form:
        """The form after a Stale save: what the user typed, at the row's version now (saving again applies it),
        and each field where the change saved meanwhile differs from theirs."""
        yours = raw_values(current.fields, data)
        conflict = [(f.label, _shown(f, current.raw.get(f.name)), _shown(f, yours.get(f.name)))
                    for f in current.fields if current.raw.get(f.name) != yours.get(f.name)]
        message = ("Someone saved this after you opened it: their values are beside yours below. Save again to "
                   "put yours over theirs, or cancel to keep theirs.")
        return cls(current.fields, yours, {"__all__": message}, version=current.version, conflict=conflict)

    def value(self, name: str) -> Any:
        return self.raw.get(name, [] if self._field(name).kind == "multiselect" else "")

    def _field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)


def idempotency_key(text: Any) -> str | None:
    """A client's idempotency key (a form's hidden field, an Idempotency-Key header): 8 to 64 letters, digits
    and dashes; anything else is no key."""
    key = str(text or "").strip()
    return key if 8 <= len(key) <= 64 and key.replace("-", "").isalnum() and key.isascii() else None


NO_VERSION = -1  # what a malformed version claims: no row has it, so the save is refused as stale, never blind


def version_of(text: Any) -> int | None:
    """A version as a form or an If-Match header gives it ("3", '"3"', 'W/"3"'); None when there is none (or
    If-Match: *, any current version). Anything else (nan, a 10,000-character string, a list of several tags)
    is NO_VERSION: the save answers 409 (a form) or 412 (the API) instead of overwriting what it never saw."""
    raw = str(text if text is not None else "").strip()
    if raw in ("", "*"):
        return None
    digits = raw.removeprefix("W/").strip().strip('"')
    return int(digits) if digits.isdigit() and len(digits) < 10 else NO_VERSION


def _shown(f: Field, value: Any) -> str:
    """A field's raw value as a person reads it: choices by their labels."""
    labels = dict(f.options)
    if isinstance(value, list):
        return ", ".join(str(labels.get(v, v)) for v in value) or "none"
    if f.kind == "checkbox":
        return "yes" if value else "no"
    return labels.get(value, str(value)) if value not in (None, "") else "blank"


def raw_values(fields: Sequence[Field], data: Mapping[str, Any]) -> dict[str, Any]:
    """The submitted values of `fields`, as strings (lists for multiselects)."""
    raw: dict[str, Any] = {}
    for f in fields:
        if f.kind == "multiselect":
            value = data.getlist(f.name) if hasattr(data, "getlist") else data.get(f.name) or []
            raw[f.name] = [str(v) for v in (value if isinstance(value, list | tuple) else [value])]
        else:
            value = data.get(f.name)
            raw[f.name] = "" if value is None else str(value).strip()
    return raw
