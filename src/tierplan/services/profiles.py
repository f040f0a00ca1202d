"""A regime's profile (where its step time goes): read, shown in a form and stored. Each save adds a new profile,
so earlier splits stay on record. The web layer names the regime by id; these find it in the campaign (NotFound
otherwise) and hand back public models."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from tierplan.db import links, repo
from tierplan.db.repo import CampaignRows
from tierplan.db.tables import Profile, ProfileShare, Regime, pk
from tierplan.models.effects import ProfileCreate, ProfilePublic
from tierplan.models.errors import FormInvalid, NotFound, Stale
from tierplan.models.fields import form_fields, parse_form
from tierplan.models.forms import Form, version_of
from tierplan.planning.model import SHARE_TOLERANCE, Provenance
from tierplan.services.editing import note_change
from tierplan.services.records import profile_public
from tierplan.services.snapshots import keep_snapshot
from tierplan.text.formatting import input_number

PROVENANCES = {p.value for p in Provenance}

PROFILE_FIELDS = form_fields(ProfileCreate)
LINE = re.compile(r"^\s*(?P<bucket>[^\s:=,]+)\s*[:=,]?\s*(?P<share>[-+0-9.eE]+)\s*(?P<pct>%)?\s*[,;]?\s*(?P<prov>\w+)?\s*$")


def _initial(session: Session, regime: Regime) -> dict[str, Any]:
    profile = repo.newest_profiles(session, regime_ids=[pk(regime)]).get(pk(regime))
    if profile is None:
        return {"shares": "", "source": ""}
    shares = repo.shares_of(session, profile_ids=[pk(profile)])[pk(profile)]
    return {
        "shares": "\n".join(f"{s.bucket} {input_number(s.share * 100)}% {s.provenance}" for s in shares),
        "source": profile.source,
    }


def parse_shares(text: str) -> list[tuple[str, float, str]]:
    """Parse "bucket share [provenance]" lines; raises ValueError naming every line that is wrong, not only the
    first."""
    parsed: list[tuple[str, float, str]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        problem, share = _share_line(line, number, parsed)
        if problem:
            problems.append(problem)
        elif share is not None:
            parsed.append(share)
    if problems:
        raise ValueError("; ".join(problems))
    if not parsed:
        raise ValueError("give at least one bucket")
    total = sum(share for _, share, _ in parsed)
    if total > 1 + SHARE_TOLERANCE:
        raise ValueError(f"shares sum to {total * 100:.1f}%, more than 100%")
    return parsed


def _share_line(line: str, number: int, parsed: list[tuple[str, float, str]]
                ) -> tuple[str, tuple[str, float, str] | None]:
    """One line of the shares: what is wrong with it ("" when nothing), else its bucket, share and provenance."""
    match = LINE.match(line)
    if not match:
        return f"line {number}: expected 'bucket share [provenance]', got {line.strip()!r}", None
    try:
        share = float(match["share"]) / (100 if match["pct"] else 1)
    except ValueError:
        return f"line {number}: {match['share']!r} is not a number", None
    if not 0 <= share <= 1:
        return f"line {number}: a share must lie between 0 and 1 (or 0% and 100%)", None
    provenance = (match["prov"] or "assumed").lower()
    if provenance not in PROVENANCES:
        return f"line {number}: {provenance!r} is not one of {', '.join(sorted(PROVENANCES))}", None
    if any(bucket == match["bucket"] for bucket, _, _ in parsed):
        return f"line {number}: bucket {match['bucket']!r} appears twice", None
    return "", (match["bucket"], share, provenance)


def _version(session: Session, regime: Regime) -> int:
    """Profiles are append-only: the version a profile form saw is the id of the regime's newest (0: none)."""
    newest = repo.newest_profiles(session, regime_ids=[pk(regime)]).get(pk(regime))
    return pk(newest) if newest is not None else 0


def save_profile(session: Session, campaign_id: int, regime_id: int, data: Mapping[str, Any], *, now: datetime,
                 by: str = "") -> ProfilePublic:
    """Store a new profile of the regime from its form; the remainder below 100% goes to 'other' (assumed). Stale
    when another profile was stored since the form was opened (its hidden version)."""
    return store_profile(session, campaign_id, regime_id, parse_form(ProfileCreate, data), now=now, by=by,
                         seen_version=version_of(data.get("version")))


def store_profile(session: Session, campaign_id: int, regime_id: int, values: ProfileCreate, *, now: datetime,
                  by: str = "", seen_version: int | None = None) -> ProfilePublic:
    """Store a checked profile (form or API) as the regime's newest; one commit, in the change log; the profile
    as stored."""
    regime = _regime(session, campaign_id, regime_id)
    links.lock_campaign(session, campaign_id=regime.campaign_id)  # two saves at once: the second sees the first
    current = _version(session, regime)
    if seen_version is not None and seen_version != current:
        session.rollback()
        raise Stale("profile", current)
    try:
        shares = parse_shares(values.shares)
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
    profile = Profile(regime_id=pk(regime), source=values.source or "form", created_at=now)
    session.add(profile)
    session.flush()
    for bucket, share, provenance in shares:
        session.add(ProfileShare(profile_id=pk(profile), bucket=bucket, share=share, provenance=provenance))
    line = note_change(session, regime.campaign_id, "profiles", pk(profile), "created", f"profile of {regime.name}",
                       now, by)
    keep_snapshot(session, regime.campaign_id, line, now=now, by=by)
    session.commit()
    return read_profile(session, campaign_id, regime_id)


def _regime(session: Session, campaign_id: int, regime_id: int) -> Regime:
    regime = session.get(Regime, regime_id)
    if regime is None or regime.campaign_id != campaign_id:
        raise NotFound(f"no regime {regime_id} in campaign {campaign_id}")
    return regime


def regime_name(session: Session, campaign_id: int, regime_id: int) -> str:
    """The name of the campaign's regime; NotFound when the campaign has no such regime."""
    return _regime(session, campaign_id, regime_id).name


def profile_form(session: Session, campaign_id: int, regime_id: int) -> Form:
    """The profile form at the regime's newest profile, with the version it was opened at."""
    regime = _regime(session, campaign_id, regime_id)
    return Form(PROFILE_FIELDS, raw=_initial(session, regime), version=_version(session, regime))


def read_profile(session: Session, campaign_id: int, regime_id: int) -> ProfilePublic:
    """The regime's newest profile; NotFound when it has none yet."""
    regime = _regime(session, campaign_id, regime_id)
    profile = repo.newest_profiles(session, regime_ids=[pk(regime)]).get(pk(regime))
    if profile is None:
        raise NotFound(f"regime {regime.name!r} has no profile yet")
    return profile_public(profile, regime.name, repo.shares_of(session, profile_ids=[pk(profile)])[pk(profile)])


@dataclass(frozen=True)
class KernelShare:
    """A kernel a regime's profile named: its share of the step, launches a step (None: not counted) and how it
    launched, in words where Nsight Compute said, its mean blocks per SM where torch.profiler did."""

    name: str
    bucket: str
    share: float
    calls_a_step: float | None
    launch: str
    blocks_per_sm: float | None = None


def largest_kernels(rows: CampaignRows, regime_id: int, limit: int) -> list[KernelShare]:
    """The `limit` largest kernels of the regime's newest profile by share of the step; empty where it named none
    (entered shares, an import from before kernels were kept)."""
    profile = rows.profiles.get(regime_id)
    if profile is None:
        return []
    bucket_share = {s.bucket: s.share for s in rows.shares.get(pk(profile), [])}
    kernels = [KernelShare(k.name, k.bucket, k.fraction * bucket_share.get(k.bucket, 0.0), k.calls_a_step, k.launch,
                           k.blocks_per_sm) for k in rows.kernels.get(pk(profile), [])]
    return sorted(kernels, key=lambda k: -k.share)[:limit]
