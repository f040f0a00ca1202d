"""Queries and writes of imports, kernel rules, link rows and uniqueness. Keyword-only; nothing here commits."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import func, update
from sqlmodel import Session, SQLModel, col, select

from tierplan.db.tables import (
    Campaign,
    ChangeLog,
    EffectEstimate,
    EffectRegime,
    ImportRecord,
    KernelRule,
    Measurement,
    Prerequisite,
    Submission,
)


def find_by(session: Session, *, table: type[SQLModel], campaign_id: int, column: str, value: object) -> list:
    """The campaign's rows of `table` whose `column` equals `value` (a uniqueness check)."""
    query = select(table).where(table.campaign_id == campaign_id, getattr(table, column) == value)  # type: ignore[attr-defined]
    return list(session.exec(query).all())


def count_of(session: Session, *, table: type[SQLModel], campaign_id: int) -> int:
    """How many rows of `table` the campaign has."""
    query = select(func.count()).select_from(table).where(table.campaign_id == campaign_id)  # type: ignore[attr-defined]
    return int(session.exec(query).one())


def replace_effect_regimes(session: Session, *, effect_id: int, regime_ids: Iterable[int]) -> None:
    for link in session.exec(select(EffectRegime).where(EffectRegime.effect_id == effect_id)).all():
        session.delete(link)
    session.flush()
    session.add_all(EffectRegime(effect_id=effect_id, regime_id=r) for r in regime_ids)


def replace_effect_estimates(session: Session, *, effect_id: int,
                             estimates: Mapping[str, tuple[float, float, float]]) -> None:
    """The effect's three-point inputs become exactly `estimates` (name -> low, likely, high)."""
    for row in session.exec(select(EffectEstimate).where(EffectEstimate.effect_id == effect_id)).all():
        session.delete(row)
    session.flush()
    session.add_all(EffectEstimate(effect_id=effect_id, input=name, low=low, likely=likely, high=high)
                    for name, (low, likely, high) in estimates.items())


def replace_prerequisites(session: Session, *, intervention_id: int, required_ids: Iterable[int]) -> None:
    for link in session.exec(select(Prerequisite).where(Prerequisite.intervention_id == intervention_id)).all():
        session.delete(link)
    session.flush()
    session.add_all(Prerequisite(intervention_id=intervention_id, requires_id=r) for r in required_ids)


def kernel_rules_of(session: Session, *, campaign_id: int) -> list[KernelRule]:
    query = select(KernelRule).where(KernelRule.campaign_id == campaign_id).order_by(col(KernelRule.position))
    return list(session.exec(query).all())


def replace_kernel_rules(session: Session, *, campaign_id: int, rules: Sequence[tuple[str, str]]) -> None:
    for old in kernel_rules_of(session, campaign_id=campaign_id):
        session.delete(old)
    session.flush()
    session.add_all(KernelRule(campaign_id=campaign_id, position=n, pattern=p, bucket=b)
                    for n, (p, b) in enumerate(rules))


def claim_version(session: Session, *, table: Any, row_id: int, seen: int, column: str = "version") -> bool:
    """Move the row from version `seen` to the next, if it is still at `seen` (compare-and-set: of two saves
    that saw the same version, one moves it and the other finds it moved). The row stays locked until commit.
    `column`: the version column (a campaign's kernel rules have their own)."""
    version = getattr(table, column)
    result = session.execute(update(table).where(table.id == row_id, version == seen).values({column: seen + 1}))
    return bool(getattr(result, "rowcount", 0) == 1)


def submission(session: Session, *, key: str) -> Submission | None:
    return session.get(Submission, key)


def lock_campaign(session: Session, *, campaign_id: int) -> None:
    """Hold the campaign's row until the transaction ends, so writers of one campaign go one at a time
    (PostgreSQL: SELECT ... FOR UPDATE; SQLite: its writer already holds the database's write lock)."""
    session.exec(select(Campaign.id).where(Campaign.id == campaign_id).with_for_update())


def hold_name(session: Session, *, name: str) -> None:
    """Hold `name` until the transaction ends, so two requests about one name (an idempotency key, a user's
    logins) go one after the other even where no row can be locked: a PostgreSQL advisory lock; SQLite's writer
    is one at a time already."""
    if session.get_bind().dialect.name == "postgresql":
        digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)
        session.exec(select(func.pg_advisory_xact_lock(digest)))


def import_with_sha(session: Session, *, campaign_id: int, sha256: str) -> ImportRecord | None:
    query = select(ImportRecord).where(ImportRecord.campaign_id == campaign_id, ImportRecord.sha256 == sha256)
    return session.exec(query).first()


def imports_of_batch(session: Session, *, campaign_id: int, batch: str) -> list[ImportRecord]:
    query = select(ImportRecord).where(ImportRecord.campaign_id == campaign_id, ImportRecord.batch == batch)
    return list(session.exec(query).all())


def regimes_of_imports(session: Session, *, import_ids: Sequence[int]) -> list[int]:
    """The regimes that runs of these imported files belong to."""
    if not import_ids:
        return []
    query = select(Measurement.regime_id).where(col(Measurement.import_id).in_(import_ids)).distinct()
    return sorted(session.exec(query).all())


def imports_of(session: Session, *, campaign_id: int) -> list[ImportRecord]:
    query = (select(ImportRecord).where(ImportRecord.campaign_id == campaign_id)
             .order_by(col(ImportRecord.imported_at).desc(), col(ImportRecord.id)))
    return list(session.exec(query).all())


def changes_of(session: Session, *, campaign_id: int, limit: int = 200) -> list[ChangeLog]:
    """The campaign's newest edits first."""
    query = (select(ChangeLog).where(ChangeLog.campaign_id == campaign_id)
             .order_by(col(ChangeLog.at).desc(), col(ChangeLog.id).desc()).limit(limit))
    return list(session.exec(query).all())
