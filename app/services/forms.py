"""What the field macro renders: a form's fields (made from a model by app/models/fields.py), the values typed
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

    @classmethod
    def rejected(cls, fields: Sequence[Field], data: Mapping[str, Any], exc: Any) -> Form:
        """The form again after a FormInvalid: what the user typed, and the messages by field."""
        return cls(fields, raw_values(fields, data), exc.errors, confirmable=exc.confirmable)

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
