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
from app.services.forms import PROVENANCE_OPTIONS, Field, check, three_point_errors
from app.services.formatting import plain

KIND_OPTIONS = (("bucket", "speedup of one bucket"), ("step", "whole-step multiplier"))
PROVENANCES = {key for key, _ in PROVENANCE_OPTIONS}


def _effect_fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    interventions = repo.interventions_of(session, campaign_id=campaign_id)
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    return (
        Field("intervention_id", "Intervention", kind="select",
              options=_options(interventions, lambda i: f"{i.key}: {i.title}")),
        Field("kind", "Kind", kind="select", options=KIND_OPTIONS),
        Field("bucket", "Bucket", required=False, max_length=100, placeholder="attention",
              help="for a bucket speedup: the profile bucket it makes faster"),
        Field("speedup_low", "Speedup low (x)", kind="float", minimum=0, exclusive_minimum=True),
        Field("speedup_likely", "Speedup likely (x)", kind="float", minimum=0, exclusive_minimum=True),
        Field("speedup_high", "Speedup high (x)", kind="float", minimum=0, exclusive_minimum=True),
        Field("regime_ids", "Regimes", kind="multiselect", required=False, options=_options(regimes),
              help="none chosen: every regime (bucket speedups only)"),
        Field("provenance", "Estimate comes from", kind="select", options=PROVENANCE_OPTIONS),
        Field("note", "Note", required=False, max_length=2000),
    )


def effect_initial(session: Session, row: Effect) -> dict[str, Any]:
    links = session.exec(select(EffectRegime).where(EffectRegime.effect_id == row.id)).all()
    regime_ids = [link.regime_id for link in links]
    return {
        "intervention_id": str(row.intervention_id), "kind": row.kind, "bucket": row.bucket or "",
        "speedup_low": plain(row.speedup_low), "speedup_likely": plain(row.speedup_likely),
        "speedup_high": plain(row.speedup_high), "regime_ids": [str(r) for r in regime_ids],
        "provenance": row.provenance, "note": row.note,
    }


def _effect_apply(session, campaign_id, row, values):
    errors = three_point_errors(values, ("speedup_low", "speedup_likely", "speedup_high"), "speedup")
    if values["kind"] == "bucket" and not values["bucket"]:
        errors["bucket"] = "a bucket speedup needs the bucket it speeds up"
    if values["kind"] == "step" and not values["regime_ids"]:
        errors["regime_ids"] = "a whole-step multiplier holds only where it was measured: name its regimes"
    if errors:
        return row, errors
    row = row or Effect(intervention_id=0, speedup_low=1, speedup_likely=1, speedup_high=1)
    _set(row, values, ("kind", "speedup_low", "speedup_likely", "speedup_high", "provenance", "note"), {"note": ""})
    row.intervention_id = int(values["intervention_id"])
    row.bucket = values["bucket"] if values["kind"] == "bucket" else None
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
