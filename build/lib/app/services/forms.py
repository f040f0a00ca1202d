"""Declarative form fields: one spec renders the form and validates what comes back."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.services.errors import FormInvalid

PROVENANCE_OPTIONS = (
    ("measured", "measured"),
    ("imported", "imported from a file"),
    ("reported", "reported (upstream or by the team)"),
    ("assumed", "assumed"),
)


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

    def value(self, name: str) -> Any:
        return self.raw.get(name, [] if self._field(name).kind == "multiselect" else "")

    def _field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)


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


def validate(fields: Sequence[Field], raw: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Parse `raw` by `fields`: the clean values, and an error message for each bad field."""
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for f in fields:
        try:
            values[f.name] = _parse(f, raw.get(f.name))
        except ValueError as exc:
            errors[f.name] = str(exc)
    return values, errors


def check(fields: Sequence[Field], data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate or raise FormInvalid with every field's message."""
    values, errors = validate(fields, raw_values(fields, data))
    if errors:
        raise FormInvalid(errors)
    return values


def _parse(f: Field, raw: Any) -> Any:
    if f.kind == "checkbox":
        return str(raw or "").strip().lower() in ("on", "yes", "true", "1")
    if f.kind == "multiselect":
        chosen = [v for v in (raw or []) if v != ""]
        allowed = {key for key, _ in f.options}
        unknown = [v for v in chosen if v not in allowed]
        if unknown:
            raise ValueError(f"unknown choice: {', '.join(unknown)}")
        if f.required and not chosen:
            raise ValueError("choose at least one")
        return chosen
    text = "" if raw is None else str(raw).strip()
    if text == "":
        if f.required:
            raise ValueError("required")
        return None
    if f.max_length is not None and len(text) > f.max_length:
        raise ValueError(f"at most {f.max_length} characters")
    if f.kind in ("int", "float"):
        return _number(f, text)
    if f.kind == "select":
        if text not in {key for key, _ in f.options}:
            raise ValueError(f"unknown choice {text!r}")
        return text
    if f.kind == "datetime":
        return _datetime(text)
    return text


def _number(f: Field, text: str) -> float | int:
    try:
        number: float | int = int(text) if f.kind == "int" else float(text)
    except ValueError:
        raise ValueError("must be a whole number" if f.kind == "int" else "must be a number") from None
    if not math.isfinite(number):
        raise ValueError("must be a finite number")
    if f.minimum is not None:
        if f.exclusive_minimum and number <= f.minimum:
            raise ValueError(f"must be greater than {f.minimum:g}")
        if not f.exclusive_minimum and number < f.minimum:
            raise ValueError(f"must be at least {f.minimum:g}")
    return number


def _datetime(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("must be a date and time like 2026-12-01T14:30") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def three_point_errors(values: Mapping[str, Any], names: tuple[str, str, str], what: str) -> dict[str, str]:
    """Messages when a low / likely / high triple is out of order (attached to `likely`)."""
    low, likely, high = (values.get(n) for n in names)
    if None in (low, likely, high):
        return {}
    if not low <= likely <= high:
        return {names[1]: f"{what} must satisfy low <= likely <= high"}
    return {}
