"""Every editor, by the URL segment of its kind of row (listed here, not registered by importing a module)."""

from __future__ import annotations

from app.services.editing import (
    CAMPAIGN_EDITOR,
    GATE_EDITOR,
    INTERVENTION_EDITOR,
    REGIME_EDITOR,
    TIER_EDITOR,
    Editor,
)
from app.services.editing_effects import EFFECT_EDITOR
from app.services.errors import NotFound

EDITORS: dict[str, Editor] = {
    e.kind: e for e in (REGIME_EDITOR, TIER_EDITOR, INTERVENTION_EDITOR, EFFECT_EDITOR, GATE_EDITOR, CAMPAIGN_EDITOR)
}
ROW_EDITORS = tuple(e for e in EDITORS.values() if e.kind != "campaign")  # the rows inside a campaign


def editor_of(kind: str) -> Editor:
    """The editor of `kind` ("regimes", "effects", ...); NotFound for anything else."""
    if kind not in EDITORS:
        raise NotFound(f"nothing called {kind!r} to edit")
    return EDITORS[kind]
