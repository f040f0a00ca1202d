"""Editors for effects (with their regimes) and for a regime's profile."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from app.db import repo
from app.db.tables import Effect, EffectRegime, Intervention, Profile, ProfileShare, Regime
from app.planning.model import SHARE_TOLERANCE
from app.services.editing import Editor, _options, _set, register
from app.services.errors import FormInvalid
from app.services.formatting import plain
from app.services.forms import PROVENANCE_OPTIONS, Field, check, three_point_errors

KIND_OPTIONS = (
    ("bucket", "speedup of one bucket"),
    ("step", "whole-step multiplier (measured in named regimes)"),
    ("time_saved", "milliseconds saved a step (named regimes)"),
    ("spec_decode", "speculative decoding"),
    ("launch_overhead", "launch overhead removed (CUDA graphs)"),
    ("launch_count", "launches a step changed (a fused or SDPA path)"),
)
THREE_POINTS = {
    "speedup": ("Speedup", "x"),
    "saved_ms": ("Time saved", "ms a step"),
    "acceptance": ("Acceptance rate", "0..1"),
    "draft_cost": ("Draft cost c", "of a step"),
    "removed": ("Share of per-launch host cost removed", "0..1"),
    "launches": ("Launches a step added", "negative: removed"),
}


SHOW_FOR = {"speedup": ("bucket", "step"), "saved_ms": ("time_saved",), "acceptance": ("spec_decode",),
            "draft_cost": ("spec_decode",), "removed": ("launch_overhead",), "launches": ("launch_count",)}
HELP = {
    "draft_cost_likely": "all three blank: the hardware model gives the cost of verifying g + 1 tokens a sequence "
                         "(it grows with concurrency)",
    "removed_likely": "CUDA graphs replay a step with one launch: most of each launch's host cost goes (0.9-0.99)",
    "launches_likely": "GPU kernels, memcpys and memsets a step, as the regime's trace counts them: SDPA instead of "
                       "eager attention removes about 9 a layer",
}


def _triple(prefix: str) -> tuple[Field, ...]:
    label, unit = THREE_POINTS[prefix]
    return tuple(
        Field(f"{prefix}_{point}", f"{label} {point} ({unit})", kind="float", required=False,
              minimum=None if prefix == "launches" else 0.0, exclusive_minimum=prefix == "speedup",
              show_for=SHOW_FOR[prefix], help=HELP.get(f"{prefix}_{point}", ""))
        for point in ("low", "likely", "high")
    )
PROVENANCES = {key for key, _ in PROVENANCE_OPTIONS}


def _effect_fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    interventions = repo.interventions_of(session, campaign_id=campaign_id)
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    return (
        Field("intervention_id", "Intervention", kind="select",
              options=_options(interventions, lambda i: f"{i.key}: {i.title}")),
        Field("kind", "Kind", kind="select", options=KIND_OPTIONS),
        Field("bucket", "Bucket", required=False, max_length=100, placeholder="attention",
              help="bucket speedup: the profile bucket it makes faster; time saved: the bucket it comes off "
                   "(blank: the whole step)", show_for=("bucket", "time_saved")),
        *_triple("speedup"),
        *_triple("saved_ms"),
        Field("draft_tokens", "Draft length g", kind="int", minimum=1, required=False, show_for=("spec_decode",)),
        *_triple("acceptance"),
        Field("acceptance_per_position", "Per-position acceptance", required=False, max_length=500,
              placeholder="0.82, 0.61, 0.43",
              help="instead of one rate: vLLM's spec_decode_per_position_acceptance_rates, one a draft position",
              show_for=("spec_decode",)),
        *_triple("draft_cost"),
        *_triple("removed"),
        *_triple("launches"),
        Field("regime_ids", "Regimes", kind="multiselect", required=False, options=_options(regimes),
              help="none chosen: every regime (not for whole-step or time-saved effects)"),
        Field("provenance", "Estimate comes from", kind="select", options=PROVENANCE_OPTIONS),
        Field("note", "Note", required=False, max_length=2000),
    )


def effect_initial(session: Session, row: Effect) -> dict[str, Any]:
    links = session.exec(select(EffectRegime).where(EffectRegime.effect_id == row.id)).all()
    values = {
        "intervention_id": str(row.intervention_id), "kind": row.kind, "bucket": row.bucket or "",
        "regime_ids": [str(link.regime_id) for link in links], "provenance": row.provenance, "note": row.note,
        "draft_tokens": "" if row.draft_tokens is None else str(row.draft_tokens),
        "acceptance_per_position": row.acceptance_per_position,
    }
    for prefix in THREE_POINTS:
        for point in ("low", "likely", "high"):
            value = getattr(row, f"{prefix}_{point}")
            values[f"{prefix}_{point}"] = "" if value is None else plain(value)
    return values


def _check_triples(values: dict[str, Any], prefixes: tuple[str, ...]) -> dict[str, str]:
    errors: dict[str, str] = {}
    for prefix in prefixes:
        names = tuple(f"{prefix}_{p}" for p in ("low", "likely", "high"))
        missing = [n for n in names if values[n] is None]
        if missing:
            errors |= dict.fromkeys(missing, "required for this kind of effect")
        else:
            errors |= three_point_errors(values, names, THREE_POINTS[prefix][0].lower())
    return errors


def _spec_errors(values: dict[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    if values["draft_tokens"] is None:
        errors["draft_tokens"] = "required for speculative decoding"
    if any(values[f"draft_cost_{p}"] is not None for p in ("low", "likely", "high")):
        errors |= _check_triples(values, ("draft_cost",))
    text = values["acceptance_per_position"]
    if text:
        try:
            rates = [float(part) for part in text.replace(";", ",").split(",") if part.strip()]
        except ValueError:
            return errors | {"acceptance_per_position": "comma-separated numbers between 0 and 1"}
        if any(not 0 <= r <= 1 for r in rates):
            errors["acceptance_per_position"] = "each rate lies between 0 and 1"
        elif any(b > a for a, b in zip(rates, rates[1:], strict=False)):
            errors["acceptance_per_position"] = "rates cannot rise with the position (position i+1 needs i accepted)"
        elif values["draft_tokens"] is not None and len(rates) != values["draft_tokens"]:
            errors["acceptance_per_position"] = f"give {values['draft_tokens']} rates, one a draft position"
    else:
        errors |= _check_triples(values, ("acceptance",))
        if not errors and not 0 <= values["acceptance_low"] <= values["acceptance_high"] <= 1:
            errors["acceptance_likely"] = "an acceptance rate lies between 0 and 1"
    return errors


KIND_INPUTS = {"bucket": ("speedup",), "step": ("speedup",), "time_saved": ("saved_ms",),
               "spec_decode": ("acceptance", "draft_cost"), "launch_overhead": ("removed",),
               "launch_count": ("launches",)}


def _effect_apply(session, campaign_id, row, values):
    kind = values["kind"]
    errors = _spec_errors(values) if kind == "spec_decode" else _check_triples(values, KIND_INPUTS[kind])
    if kind == "bucket" and not values["bucket"]:
        errors["bucket"] = "a bucket speedup needs the bucket it speeds up"
    if kind == "launch_overhead" and not errors and not 0 <= values["removed_low"] <= values["removed_high"] <= 1:
        errors["removed_likely"] = "a share of the launch cost lies between 0 and 1"
    if kind in ("step", "time_saved") and not values["regime_ids"]:
        errors["regime_ids"] = "this effect holds only where it was measured: name its regimes"
    if errors:
        return row, errors
    row = row or Effect(intervention_id=0)
    _set(row, values, ("kind", "provenance", "note"), {"note": ""})
    for prefix in THREE_POINTS:  # only the inputs of this kind are kept
        for point in ("low", "likely", "high"):
            name = f"{prefix}_{point}"
            setattr(row, name, values[name] if prefix in KIND_INPUTS[kind] else None)
    per_position = kind == "spec_decode" and values["acceptance_per_position"]
    row.acceptance_per_position = values["acceptance_per_position"] if per_position else ""
    if per_position:
        row.acceptance_low = row.acceptance_likely = row.acceptance_high = None
    row.draft_tokens = values["draft_tokens"] if kind == "spec_decode" else None
    row.intervention_id = int(values["intervention_id"])
    row.bucket = values["bucket"] if kind in ("bucket", "time_saved") and values["bucket"] else None
    session.add(row)
    session.flush()
    for link in session.exec(select(EffectRegime).where(EffectRegime.effect_id == row.id)).all():
        session.delete(link)
    session.flush()
    for regime_id in values["regime_ids"]:
        session.add(EffectRegime(effect_id=row.id, regime_id=int(regime_id)))
    return row, {}


def _campaign_of_effect(session: Session, effect: Effect) -> int:
    return session.get(Intervention, effect.intervention_id).campaign_id


EFFECT_EDITOR = register(
    Editor("effects", "effect", Effect, _effect_fields, effect_initial, _effect_apply, _campaign_of_effect)
)

# profiles: each save adds a new profile, so earlier splits stay on record

PROFILE_FIELDS = (
    Field("shares", "Shares of step time", kind="textarea",
          help="one bucket a line: name, share (0.63 or 63%), and optionally where it comes from "
               "(measured, imported, reported, assumed; default assumed). "
               "Shares below 100% leave the rest to 'other'."),
    Field("source", "Source", required=False, max_length=300, placeholder="nsys run of 2026-11-20, commit abc123"),
)
LINE = re.compile(r"^\s*(?P<bucket>[^\s:=,]+)\s*[:=,]?\s*(?P<share>[-+0-9.eE]+)\s*(?P<pct>%)?\s*(?P<prov>\w+)?\s*$")


def profile_initial(session: Session, regime: Regime) -> dict[str, Any]:
    profile = repo.newest_profiles(session, regime_ids=[regime.id]).get(regime.id)
    if profile is None:
        return {"shares": "", "source": ""}
    shares = repo.shares_of(session, profile_ids=[profile.id])[profile.id]
    return {
        "shares": "\n".join(f"{s.bucket} {plain(s.share * 100)}% {s.provenance}" for s in shares),
        "source": profile.source,
    }


def parse_shares(text: str) -> list[tuple[str, float, str]]:
    """Parse "bucket share [provenance]" lines; raises ValueError naming the line."""
    parsed: list[tuple[str, float, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = LINE.match(line)
        if not match:
            raise ValueError(f"line {number}: expected 'bucket share [provenance]', got {line.strip()!r}")
        try:
            share = float(match["share"]) / (100 if match["pct"] else 1)
        except ValueError:
            raise ValueError(f"line {number}: {match['share']!r} is not a number") from None
        if not 0 <= share <= 1:
            raise ValueError(f"line {number}: a share must lie between 0 and 1 (or 0% and 100%)")
        provenance = (match["prov"] or "assumed").lower()
        if provenance not in PROVENANCES:
            raise ValueError(f"line {number}: {provenance!r} is not one of {', '.join(sorted(PROVENANCES))}")
        if any(bucket == match["bucket"] for bucket, _, _ in parsed):
            raise ValueError(f"line {number}: bucket {match['bucket']!r} appears twice")
        parsed.append((match["bucket"], share, provenance))
    if not parsed:
        raise ValueError("give at least one bucket")
    total = sum(share for _, share, _ in parsed)
    if total > 1 + SHARE_TOLERANCE:
        raise ValueError(f"shares sum to {total * 100:.1f}%, more than 100%")
    return parsed


def save_profile(session: Session, regime: Regime, data: Mapping[str, Any], *, now: datetime) -> Profile:
    """Store a new profile of the regime; the remainder below 100% goes to 'other' (assumed)."""
    values = check(PROFILE_FIELDS, data)
    try:
        shares = parse_shares(values["shares"])
    except ValueError as exc:
        raise FormInvalid({"shares": str(exc)}) from None
    remainder = 1 - sum(share for _, share, _ in shares)
    if remainder > SHARE_TOLERANCE:
        other = next((i for i, s in enumerate(shares) if s[0] == "other"), None)
        if other is None:
            shares.append(("other", remainder, "assumed"))
        else:
            bucket, share, provenance = shares[other]
            shares[other] = (bucket, share + remainder, provenance)
    profile = Profile(regime_id=regime.id, source=values["source"] or "form", created_at=now)
    session.add(profile)
    session.flush()
    for bucket, share, provenance in shares:
        session.add(ProfileShare(profile_id=profile.id, bucket=bucket, share=share, provenance=provenance))
    session.commit()
    return profile
