"""A campaign's every row as one JSON-ready document, and back: the backup `tierplan export --json` writes and
`tierplan import-campaign` restores. Keyword-only; nothing here commits.

The document lists each table's rows with every column. Ids are renumbered 1, 2, ... a table (in id order)
and foreign keys follow, so a campaign exported, restored and exported again gives the same document.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlmodel import Session, SQLModel, col, select

from tierplan.db import history
from tierplan.db.snapshot_tables import PlanSnapshot
from tierplan.db.tables import (
    Campaign,
    Effect,
    EffectEstimate,
    EffectRegime,
    Gate,
    HardwareSpec,
    ImportRecord,
    Intervention,
    KernelRule,
    Measurement,
    MeasurementInclude,
    ModelSpec,
    Prerequisite,
    Profile,
    ProfileKernel,
    ProfileShare,
    PrototypeRun,
    Regime,
    Slo,
    Tier,
)
from tierplan.planning.model import EffectKind

FORMAT = "tierplan-campaign"
FORMAT_VERSION = 2  # 2: an effect's three-point inputs are rows of effect_estimate (1: columns of effect)
READS = (1, 2)
ESTIMATES_OF_VERSION_1 = ("speedup", "saved_ms", "acceptance", "draft_cost", "removed", "launches")
# each table, and the column that ties its rows to rows already in the document (parents come first)
TABLES: tuple[tuple[type[SQLModel], str], ...] = (
    (Campaign, "id"),
    (HardwareSpec, "campaign_id"),
    (ModelSpec, "campaign_id"),
    (Regime, "campaign_id"),
    (Tier, "campaign_id"),
    (Intervention, "campaign_id"),
    (Prerequisite, "intervention_id"),
    (Effect, "intervention_id"),
    (EffectRegime, "effect_id"),
    (EffectEstimate, "effect_id"),
    (Gate, "tier_id"),
    (ImportRecord, "campaign_id"),
    (Measurement, "regime_id"),
    (MeasurementInclude, "measurement_id"),
    (Profile, "regime_id"),
    (ProfileShare, "profile_id"),
    (ProfileKernel, "profile_id"),
    (PrototypeRun, "intervention_id"),
    (KernelRule, "campaign_id"),
    (Slo, "campaign_id"),
    (PlanSnapshot, "campaign_id"),
)


KIND_VALUES = tuple(kind.value for kind in EffectKind)

# columns written from other rows (tierplan/db/history.py), built again on restore rather than kept
DERIVED = {"measurement": ("includes_key",)}


class BadDocument(ValueError):
    """The document is not a campaign backup this version reads; the message says where."""


def _table(model: type[SQLModel]) -> Any:
    return model.__table__  # type: ignore[attr-defined]


def _references(model: type[SQLModel]) -> dict[str, str]:
    """Foreign-key column -> the table it points at."""
    return {fk.parent.name: fk.column.table.name for fk in _table(model).foreign_keys}


def _kind(column: Any) -> type | None:
    """The Python type of a column's values (None when the type does not say)."""
    kind = getattr(column.type, "impl", column.type)  # a TypeDecorator (sqlmodel's UTCDateTime) says it by its impl
    try:
        return kind.python_type
    except NotImplementedError:
        return None


def _fits(column: Any, value: Any) -> bool:
    """Whether a JSON value suits the column's type (a whole number where a float goes, too)."""
    kind = _kind(column)
    if kind is None:
        return True
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31
    if kind is str:
        limit = getattr(column.type, "length", None)
        return isinstance(value, str) and "\x00" not in value and (limit is None or len(value) <= limit)
    return isinstance(value, kind)


def dump_campaign(session: Session, *, campaign_id: int) -> dict[str, Any]:
    """Every row of the campaign, ids renumbered a table."""
    kept: dict[str, list[Any]] = {}
    new_ids: dict[str, dict[int, int]] = {}
    for model, link in TABLES:
        name = _table(model).name
        parent = "campaign" if link in ("id", "campaign_id") else _references(model)[link]
        wanted = [campaign_id] if parent == "campaign" else list(new_ids.get(parent, {}))
        rows: Sequence[Any] = []
        if wanted:
            rows = session.exec(select(model).where(col(getattr(model, link)).in_(wanted))).all()
        has_id = "id" in _table(model).columns
        rows = sorted(rows, key=lambda r: r.id if has_id else tuple(getattr(r, c.name) for c in _table(model).primary_key))
        if has_id:
            new_ids[name] = {row.id: n for n, row in enumerate(rows, start=1)}
        kept[name] = rows
    tables = {}
    for model, _ in TABLES:
        name, refs = _table(model).name, _references(model)
        out = []
        for row in kept[name]:
            values = {}
            for column in _table(model).columns:
                if column.name in DERIVED.get(name, ()):
                    continue
                value = getattr(row, column.name)
                if column.name == "id":
                    value = new_ids[name][value]
                elif column.name in refs and value is not None:
                    value = new_ids[refs[column.name]][value]
                values[column.name] = value.isoformat() if isinstance(value, date) else value  # datetimes too
            out.append(values)
        tables[name] = out
    return {"format": FORMAT, "version": FORMAT_VERSION, "tables": tables}


def rebuild_history(session: Session, *, campaign_id: int) -> None:
    """The states of a restored campaign's runs, and its history's summaries (derived: no backup holds them)."""
    regime_ids = list(session.exec(select(Regime.id).where(Regime.campaign_id == campaign_id)).all())
    measurement_ids = list(session.exec(select(Measurement.id).where(col(Measurement.regime_id).in_(regime_ids))).all())
    history.rekey(session, [i for i in measurement_ids if i is not None])
    history.rebuild(session, [i for i in regime_ids if i is not None])


def _estimates_as_rows(tables: dict[str, Any]) -> dict[str, Any]:
    """A version-1 document's tables as version 2 has them: each effect's `<input>_low/_likely/_high` columns
    become an effect_estimate row (where all three are given); anything else is left for the checks below."""
    effects, estimates = [], []
    for values in tables.get("effect") or []:
        if not isinstance(values, dict):
            effects.append(values)
            continue
        kept = dict(values)
        for name in ESTIMATES_OF_VERSION_1:
            points = [kept.pop(f"{name}_{point}", None) for point in ("low", "likely", "high")]
            if None not in points:
                estimates.append({"effect_id": values.get("id"), "input": name,
                                  "low": points[0], "likely": points[1], "high": points[2]})
        effects.append(kept)
    return {**tables, "effect": effects, "effect_estimate": estimates}


def load_campaign(session: Session, *, document: Any) -> Campaign:
    """Insert the document's rows as a new campaign (new ids); BadDocument names what is wrong. Flushes only."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BadDocument(f"not a tierplan campaign backup (expected \"format\": \"{FORMAT}\")")
    if document.get("version") not in READS:
        raise BadDocument(f"backup format version {document.get('version')!r}; this tierplan reads "
                          f"{', '.join(str(v) for v in READS)}")
    tables = document.get("tables")
    if not isinstance(tables, dict) or len(tables.get("campaign") or []) != 1:
        raise BadDocument("the backup must hold \"tables\" with exactly one campaign")
    if document["version"] == 1:
        tables = _estimates_as_rows(tables)
    new_ids: dict[str, dict[int, int]] = {}
    campaign: Campaign | None = None
    for model, _ in TABLES:
        name, refs, columns = _table(model).name, _references(model), _table(model).columns
        rows = tables.get(name, [])
        if not isinstance(rows, list):
            raise BadDocument(f"{name}: expected a list of rows")
        mapping = new_ids.setdefault(name, {})
        for number, values in enumerate(rows, start=1):
            where = f"{name} row {number}"
            if not isinstance(values, dict):
                raise BadDocument(f"{where}: expected an object")
            unknown = sorted(set(values) - set(columns.keys()))
            if unknown:
                raise BadDocument(f"{where}: unknown column {unknown[0]!r}")
            fields = {}
            for column in columns:
                if column.name == "id" or column.name not in values or column.name in DERIVED.get(name, ()):
                    continue
                value = values[column.name]
                if column.name in refs and value is not None:
                    if value not in new_ids.get(refs[column.name], {}):
                        raise BadDocument(f"{where}: {column.name} {value} names no {refs[column.name]} row before it")
                    value = new_ids[refs[column.name]][value]
                elif _kind(column) in (datetime, date) and isinstance(value, str):
                    try:
                        value = (datetime if _kind(column) is datetime else date).fromisoformat(value)
                    except ValueError:
                        raise BadDocument(f"{where}: {column.name} {value!r} is not a date and time") from None
                elif value is not None and not _fits(column, value):
                    raise BadDocument(f"{where}: {column.name} {value!r} does not fit the column (type, length or range)")
                fields[column.name] = value
            if model is Effect and fields.get("kind") not in KIND_VALUES:
                raise BadDocument(f"{where}: kind {fields.get('kind')!r} is not one of {', '.join(KIND_VALUES)}")
            row = model(**fields)
            session.add(row)
            session.flush()
            if "id" in columns:
                old = values.get("id")
                if not isinstance(old, int) or old in mapping:
                    raise BadDocument(f"{where}: id must be a whole number no earlier {name} row has")
                mapping[old] = row.id  # type: ignore[attr-defined]
            if isinstance(row, Campaign):
                campaign = row
    assert campaign is not None
    return campaign
