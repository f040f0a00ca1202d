"""Every editor, by the URL segment of its kind of row (listed here, not registered by importing a module)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlmodel import Session

from tierplan.db import repo
from tierplan.db.tables import ids, pk
from tierplan.models.errors import NotFound
from tierplan.services.editing import Editor
from tierplan.services.editing_effects import EFFECT_EDITOR
from tierplan.services.editing_rows import (
    CAMPAIGN_EDITOR,
    GATE_EDITOR,
    INTERVENTION_EDITOR,
    REGIME_EDITOR,
    SLO_EDITOR,
    TIER_EDITOR,
)

EDITORS: dict[str, Editor] = {
    e.kind: e for e in (REGIME_EDITOR, TIER_EDITOR, INTERVENTION_EDITOR, EFFECT_EDITOR, GATE_EDITOR, SLO_EDITOR,
                        CAMPAIGN_EDITOR)
}
ROW_EDITORS = tuple(e for e in EDITORS.values() if e.kind != "campaign")  # the rows inside a campaign


def editor_of(kind: str) -> Editor:
    """The editor of `kind` ("regimes", "effects", ...); NotFound for anything else."""
    if kind not in EDITORS:
        raise NotFound(f"nothing called {kind!r} to edit")
    return EDITORS[kind]


def list_rows(session: Session, editor: Editor, campaign_id: int) -> list[BaseModel]:
    """Every row of the editor's kind in the campaign, in plan order, as its public model."""
    return [editor.public_of(session, row) for row in _rows_of(session, editor, campaign_id)]


def _rows_of(session: Session, editor: Editor, campaign_id: int) -> list[Any]:
    if editor.kind == "regimes":
        return repo.regimes_of(session, campaign_id=campaign_id)
    if editor.kind == "tiers":
        return repo.tiers_of(session, campaign_id=campaign_id)
    interventions = repo.interventions_of(session, campaign_id=campaign_id)
    if editor.kind == "interventions":
        return interventions
    if editor.kind == "effects":
        return repo.effects_of(session, intervention_ids=ids(interventions))
    if editor.kind == "slos":
        return repo.slos_of(session, campaign_id=campaign_id)
    if editor.kind == "gates":
        return repo.gates_of(session, tier_ids=[pk(t) for t in repo.tiers_of(session, campaign_id=campaign_id)])
    raise NotFound(f"no list of {editor.kind}")
