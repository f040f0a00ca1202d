"""Editors for effects (with their regimes) and for a regime's profile."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session

from tierplan.db import links, repo
from tierplan.db.mappers import to_core, to_core_effect
from tierplan.db.tables import Effect, Intervention, pk
from tierplan.models.effects import (
    ESTIMATES,
    KIND_INPUTS,
    POINTS,
    EffectCreate,
    EffectPublic,
    EffectUpdate,
    flat,
    point_name,
)
from tierplan.models.fields import Options
from tierplan.planning import model as core
from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.kernel_targets import kernel_share
from tierplan.planning.model import EffectKind, PlanningError, Provenance
from tierplan.planning.step_changes import missing_bucket
from tierplan.services.editing import Applied, Editor, _set
from tierplan.services.row_labels import effect_label

PROVENANCES = {p.value for p in Provenance}
POINT_NAMES = {name: tuple(point_name(name, p) for p in POINTS) for name in ESTIMATES}
FORM_FIELDS = {"per_position": "acceptance_per_position", "regimes": "regime_ids"}  # core input -> form field


def _effect_options(session: Session, campaign_id: int) -> Options:
    interventions = repo.interventions_of(session, campaign_id=campaign_id)
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    return {"intervention_id": tuple((str(i.id), f"{i.key}: {i.title}") for i in interventions),
            "regime_ids": tuple((str(r.id), r.name) for r in regimes)}


def _effect_current(session: Session, row: Effect) -> dict[str, Any]:
    return {"regime_ids": repo.effect_regime_ids(session, effect_ids=[pk(row)])[pk(row)],
            "bucket": row.bucket, "kernels": row.kernels, **flat(repo.effect_estimates(session, effect_ids=[pk(row)])[pk(row)])}


def _partial_points(values: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """A three-point estimate is typed into three inputs: all of them or none (the core judges the values)."""
    errors: dict[str, str] = {}
    for name in names:
        blank = [n for n in POINT_NAMES[name] if values[n] is None]
        if 0 < len(blank) < len(POINTS):
            label = ESTIMATES[name].label.lower()
            errors |= dict.fromkeys(blank, f"give the {label} low, likely and high, or none of them")
    return errors


def _core_errors(exc: PlanningError, estimates: Mapping[str, Any]) -> dict[str, str]:
    """The core's objection, on the form field it names (a three-point: its blank points, else its likely one)."""
    name = exc.field or "kind"
    if name in POINT_NAMES:
        if name not in estimates and str(exc).endswith("is missing"):  # need(): this kind has to have it
            return dict.fromkeys(POINT_NAMES[name], "required for this kind of effect")
        return {point_name(name, "likely"): str(exc)}
    return {FORM_FIELDS.get(name, name): str(exc)}


def _estimates_given(values: dict[str, Any], names: tuple[str, ...]) -> dict[str, tuple[float, float, float]]:
    """The three-point inputs of `names` that the values give all three points of."""
    given = {name: tuple(values[n] for n in POINT_NAMES[name]) for name in names}
    return {name: (points[0], points[1], points[2]) for name, points in given.items() if None not in points}


def _effect_apply(session: Session, campaign_id: int, row: Any, values: dict[str, Any], now: datetime) -> Applied:
    kind = values["kind"]
    row = row or Effect(intervention_id=0)
    _set(row, values, ("kind", "provenance", "note"))
    per_position = kind == "spec_decode" and values["acceptance_per_position"]
    row.acceptance_per_position = values["acceptance_per_position"] if per_position else ""
    row.draft_tokens = values["draft_tokens"] if kind == "spec_decode" else None
    row.bucket = values["bucket"] if rule_of(EffectKind(kind)).on_bucket and values["bucket"] else None
    # a pattern over kernel names is a bucket speedup's alone (a hidden field of another kind is not kept)
    row.kernels = values["kernels"].strip() if kind == EffectKind.BUCKET.value else ""
    # only the inputs of this kind are kept (per-position rates replace the one acceptance rate)
    names = tuple(n for n in KIND_INPUTS[kind] if not (per_position and n == "acceptance"))
    estimates = _estimates_given(values, names)
    errors = _partial_points(values, names)
    if not errors:
        try:  # the core's rules for an effect of this kind, checked where the plan relies on them
            to_core_effect(row, frozenset(str(i) for i in values["regime_ids"]), estimates)
        except PlanningError as exc:
            errors = _core_errors(exc, estimates)
    if errors:
        return row, errors
    row.intervention_id = int(values["intervention_id"])
    session.add(row)
    session.flush()
    links.replace_effect_regimes(session, effect_id=row.id, regime_ids=values["regime_ids"])
    links.replace_effect_estimates(session, effect_id=row.id, estimates=estimates)
    return row, {}


def _campaign_of_effect(session: Session, effect: Effect) -> int:
    intervention = session.get(Intervention, effect.intervention_id)
    return intervention.campaign_id if intervention is not None else -1


def _effect_warnings(session: Session, campaign_id: int, effect: Effect) -> dict[str, str]:
    """A bucket effect that no profile of its regimes has a share for applies nowhere: say so at its bucket."""
    if not rule_of(EffectKind(effect.kind)).on_bucket or not effect.bucket:
        return {}
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    if rows is None:
        return {}
    chosen = set(repo.effect_regime_ids(session, effect_ids=[pk(effect)])[pk(effect)])
    ids = {r.name: r.id for r in rows.regimes}
    regimes = [r for r in to_core(rows).regimes if not chosen or ids[r.name] in chosen]
    missing = [r for r in regimes if missing_bucket(r.profile, effect.bucket)]
    if not missing and effect.kernels:
        return _kernel_warnings(regimes, effect)
    if not missing:
        return {}
    where = "; ".join(f"{r.name} has no profile" if r.profile is None else
                      f"{r.name}'s profile has {', '.join(b for b, _ in r.profile.shares)}" for r in missing)
    names = ", ".join(r.name for r in missing)
    if len(missing) == len(regimes):
        head = f"none of its regimes ({names}) has step time in a {effect.bucket!r} bucket: this effect changes nothing"
    else:
        verb = "has" if len(missing) == 1 else "have"
        head = f"{names} {verb} no step time in a {effect.bucket!r} bucket: this effect changes nothing there"
    return {"bucket": f"{head} ({where}); import a profile that has it, or pick a bucket listed"}


EFFECT_EDITOR = (
    Editor("effects", "effect", Effect, EffectCreate, EffectUpdate, EffectPublic, _effect_apply, _campaign_of_effect,
           options=_effect_options, current=_effect_current, warnings=_effect_warnings, label=effect_label)
)


def _kernel_warnings(regimes: list[core.Regime], effect: Effect) -> dict[str, str]:
    """An effect on named kernels: the share of each regime's step they take, and where no kernel matches."""
    target = core.Effect(EffectKind.BUCKET, bucket=effect.bucket, kernels=effect.kernels,
                         speedup=core.ThreePoint(1, 1, 1))
    shares = [(r, kernel_share(r.profile, target)) for r in regimes]
    found = [f"{share:.1%} of {r.name}'s step" for r, share in shares if share > 0]
    missing = [f"{r.name} ({why})" for r, share in shares if share <= 0 for why in (
        "none of its kernels match" if r.profile is not None and r.profile.kernels
        else "its profile names no kernels: import a trace or kernel table",)]
    if not missing:
        return {}
    said = f"they take {', '.join(found)}; " if found else ""
    return {"kernels": f"{said}no {effect.bucket} kernel matches {effect.kernels!r} in {'; '.join(missing)}: the "
                       "effect changes nothing there"}
