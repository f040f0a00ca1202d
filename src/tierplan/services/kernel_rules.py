"""A campaign's kernel -> bucket rules, edited as "pattern => bucket" lines."""

from __future__ import annotations

import re
from datetime import datetime

from sqlmodel import Session

from tierplan.db import links, repo
from tierplan.db.tables import Campaign, pk
from tierplan.importers.buckets import compile_pattern
from tierplan.models.errors import FormInvalid, NotFound, Stale
from tierplan.models.fields import form_fields
from tierplan.models.forms import Form
from tierplan.models.measurements import KernelRulesForm
from tierplan.services.editing import note_change
from tierplan.services.imports import rules_of

RULE_FIELDS = form_fields(KernelRulesForm)
LINE = re.compile(r"^(?P<pattern>.+?)\s*=>\s*(?P<bucket>[\w.-]+)\s*$")


def rules_text(session: Session, campaign_id: int) -> str:
    return "\n".join(f"{pattern} => {bucket}" for pattern, bucket in rules_of(session, campaign_id))


def parse_rules(text: str) -> list[tuple[str, str]]:
    """Parse the lines; raises ValueError naming the line."""
    rules = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = LINE.match(line.strip())
        if not match:
            raise ValueError(f"line {number}: expected 'pattern => bucket', got {line.strip()!r}")
        try:
            compile_pattern(match["pattern"])
        except ValueError as exc:
            raise ValueError(f"line {number}: {exc}") from None
        rules.append((match["pattern"], match["bucket"]))
    return rules


def rules_form(session: Session, campaign_id: int) -> Form:
    """The kernel-rules form, filled with the campaign's rules at their version now."""
    campaign = _campaign(session, campaign_id)
    return Form(RULE_FIELDS, raw={"rules": rules_text(session, campaign_id)}, version=campaign.kernel_rules_version)


def _campaign(session: Session, campaign_id: int) -> Campaign:
    campaign = repo.get_campaign(session, campaign_id=campaign_id)
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    return campaign


def save_rules(session: Session, campaign_id: int, values: KernelRulesForm, *, seen_version: int | None,
               now: datetime, by: str = "") -> None:
    """Replace the campaign's rules (none: the defaults) in one commit, in the change log; FormInvalid writes
    nothing, Stale when they were saved since the form was opened."""
    try:
        rules = parse_rules(values.rules)
    except ValueError as exc:
        raise FormInvalid({"rules": str(exc)}) from None
    campaign = _campaign(session, campaign_id)
    seen = campaign.kernel_rules_version if seen_version is None else seen_version
    if not links.claim_version(session, table=Campaign, row_id=pk(campaign), seen=seen, column="kernel_rules_version"):
        session.rollback()
        session.refresh(campaign)
        raise Stale("kernel rules", campaign.kernel_rules_version)
    links.replace_kernel_rules(session, campaign_id=pk(campaign), rules=rules)
    note_change(session, pk(campaign), "kernel rules", pk(campaign), "updated", f"kernel rules ({len(rules)})", now, by)
    session.commit()


