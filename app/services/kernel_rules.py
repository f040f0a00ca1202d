"""A campaign's kernel -> bucket rules, edited as "pattern => bucket" lines."""

from __future__ import annotations

import re

from sqlmodel import Session

from app.db import links
from app.importers.buckets import backtracking_risk
from app.models.fields import form_fields
from app.models.measurements import KernelRulesForm
from app.services.errors import FormInvalid
from app.services.imports import rules_of

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
            re.compile(match["pattern"])
        except re.error as exc:
            raise ValueError(f"line {number}: {match['pattern']!r} is not a regular expression ({exc})") from None
        risk = backtracking_risk(match["pattern"])
        if risk:
            raise ValueError(f"line {number}: {match['pattern']!r}: {risk}")
        rules.append((match["pattern"], match["bucket"]))
    return rules


def save_rules(session: Session, campaign_id: int, values: KernelRulesForm) -> None:
    """Replace the campaign's rules (none: the defaults) in one commit; FormInvalid writes nothing."""
    try:
        rules = parse_rules(values.rules)
    except ValueError as exc:
        raise FormInvalid({"rules": str(exc)}) from None
    links.replace_kernel_rules(session, campaign_id=campaign_id, rules=rules)
    session.commit()


