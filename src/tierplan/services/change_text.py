"""What an edit changed, in words, for the change log and the plan's history: "Speedup likely (x) 1.5 → 2,
Estimate comes from assumed → measured". Long texts are named, not quoted."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel

MAX_SHOWN = 3  # fields spelled out; the rest are counted
LONG_TEXT = 40  # characters: a longer text is said to have changed, not quoted


def shown(value: Any) -> str:
    """A field's value as the change line writes it."""
    if value is None or value == "" or value == []:
        return "blank"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float | int):
        return f"{value:,.6g}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value)
    return str(value)


def change_text(model: type[BaseModel], before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """The fields of `model` whose values differ, each with its label, old and new value."""
    parts = []
    for name, info in model.model_fields.items():
        old, new = before.get(name), after.get(name)
        if shown(old) == shown(new):
            continue
        label = info.title or name
        if len(shown(old)) > LONG_TEXT or len(shown(new)) > LONG_TEXT or "\n" in shown(old) + shown(new):
            parts.append(f"{label} changed")
        else:
            parts.append(f"{label} {shown(old)} → {shown(new)}")
    more = len(parts) - MAX_SHOWN
    return ", ".join(parts[:MAX_SHOWN]) + (f" and {more} more" if more > 0 else "")
