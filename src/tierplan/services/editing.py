"""Create, update and delete the rows of a plan: one Editor per kind of row, registered explicitly.

An editor names its models (`XCreate`, `XUpdate`, `XPublic` of tierplan/models), the choices of its id fields (the
campaign's tiers, regimes...), the values a stored row has, and how checked values are stored (`apply`, which
also makes the checks that need the database: uniqueness, cycles). Forms and the JSON API call the same
`save`, which commits once or raises FormInvalid and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session, SQLModel

from tierplan.db import history, links
from tierplan.db.tables import ChangeLog, Intervention, Submission, pk
from tierplan.models.errors import AgainstCampaign, Conflicting, FormInvalid, NotFound, Stale, conflicting, refusal
from tierplan.models.fields import Options, check_options, form_fields, parse_form, plain_values, validated
from tierplan.models.forms import Field, Form, idempotency_key, version_of
from tierplan.services.change_text import change_text
from tierplan.services.snapshots import keep_snapshot
from tierplan.text.formatting import datetime_input, input_number

Apply = Callable[[Session, int, Any, dict[str, Any], datetime], tuple[Any, dict[str, str]]]


Applied = tuple[Any, dict[str, str]]  # an editor's row with the values set, and the messages by field


@dataclass(frozen=True)
class Editor:
    kind: str  # URL segment: "regimes", "tiers", ...
    noun: str  # "regime", shown in titles
    table: type[SQLModel]
    create: type[BaseModel]
    update: type[BaseModel]
    public: type[BaseModel]
    apply: Apply  # store checked values on a row (None: a new one); returns the row and domain errors
    campaign_of: Callable[[Session, Any], int]
    options: Callable[[Session, int], Options] = lambda session, campaign_id: {}
    current: Callable[[Session, Any], dict[str, Any]] = lambda session, row: {}  # values beyond the row's columns
    warnings: Callable[[Session, int, Any], dict[str, str]] = lambda session, campaign_id, row: {}  # of a saved row
    label: Callable[[Session, Any], str] | None = None  # the row in the change log (None: its key, name or id)
    deletable: bool = True
    own_rows: str | None = None  # a field whose options are rows of this very table (prerequisites)

    def fields(self, session: Session, campaign_id: int, row_id: int | None = None) -> tuple[Field, ...]:
        """The form's fields; the row being edited is not offered as an option of itself."""
        options = self.options(session, campaign_id)
        own = self.own_rows
        if row_id is not None and own is not None and own in options:
            options = {**options, own: tuple(o for o in options[own] if o[0] != str(row_id))}
        return form_fields(self.create, options)

    def values_of(self, session: Session, row: Any) -> dict[str, Any]:
        """The row's values as its create model reads them."""
        own = {name: getattr(row, name) for name in self.create.model_fields if hasattr(row, name)}
        return own | self.current(session, row)

    def public_of(self, session: Session, row: Any) -> BaseModel:
        return self.public.model_validate({"id": row.id, **_columns(row), **self.values_of(session, row)})


def _columns(row: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(row).items() if not k.startswith("_")}


def read_row(session: Session, editor: Editor, campaign_id: int, row_id: int) -> BaseModel:
    """The row as its public model, if it exists and belongs to the campaign; NotFound otherwise."""
    return editor.public_of(session, _load_row(session, editor, campaign_id, row_id))


def warnings_of(session: Session, editor: Editor, campaign_id: int, row_id: int) -> dict[str, str]:
    """What is worth knowing about a saved row, by field (an effect on a bucket no profile has, say)."""
    return editor.warnings(session, campaign_id, _load_row(session, editor, campaign_id, row_id))


def _load_row(session: Session, editor: Editor, campaign_id: int, row_id: int) -> Any:
    """The row, if it exists and belongs to the campaign; NotFound otherwise."""
    row = session.get(editor.table, row_id)
    if row is None or editor.campaign_of(session, row) != campaign_id:
        raise NotFound(f"no {editor.noun} {row_id} in campaign {campaign_id}")
    return row


def save_form(session: Session, editor: Editor, campaign_id: int, row_id: int | None, data: Mapping[str, Any], *,
              now: datetime, by: str = "") -> BaseModel:
    """Create (row_id None) or update the row from a submitted form; commits once; the row as saved. The form's
    hidden `version` is the version it was opened at: Stale if the row was saved since."""
    row = None if row_id is None else _load_row(session, editor, campaign_id, row_id)
    values = parse_form(editor.create, data)
    return _save(session, editor, campaign_id, row, values, now=now, seen_version=version_of(data.get("version")),
                 by=by, key=idempotency_key(data.get("idempotency_key")) if row is None else None)


def save_changes(session: Session, editor: Editor, campaign_id: int, row_id: int, changes: BaseModel, *,
                 now: datetime, seen_version: int | None = None, by: str = "") -> BaseModel:
    """Apply an XUpdate (the fields it sets) to the row; commits once; the row as saved."""
    row = _load_row(session, editor, campaign_id, row_id)
    merged = editor.values_of(session, row) | changes.model_dump(exclude_unset=True)
    try:  # each field was checked on its own; what fails now is a rule with the row's other values
        values = validated(editor.create, merged)
        return _save(session, editor, campaign_id, row, values, now=now, seen_version=seen_version, by=by)
    except FormInvalid as exc:
        raise conflicting(exc) from None


def create(session: Session, editor: Editor, campaign_id: int, values: BaseModel, *, now: datetime, by: str = "",
           key: str | None = None) -> BaseModel:
    """Store a new row of checked values (the API's create); commits once; the row as saved."""
    return _save(session, editor, campaign_id, None, values, now=now, by=by, key=key)


def _save(session: Session, editor: Editor, campaign_id: int, row: Any, values: BaseModel, *, now: datetime,
          seen_version: int | None = None, by: str = "", key: str | None = None) -> BaseModel:
    """Store checked values on the row (None: a new row); commits once, or FormInvalid and nothing written.

    Saving over a row moves its version, compare-and-set: Stale, and nothing written, when it is no longer at
    `seen_version` (the version the form or the API client saw; None: the version loaded now). `key`: a new
    row's idempotency key; the same key again (a doubled or retried submit) writes nothing and returns the row
    the first stored."""
    if row is None and key:
        links.hold_name(session, name=f"idempotency:{key}")  # the same key twice at once: one after the other
        if campaign_id:
            links.lock_campaign(session, campaign_id=campaign_id)
        earlier = _created_with(session, editor, campaign_id, key)
        if earlier is not None:
            return editor.public_of(session, earlier)
    check_options(values, editor.options(session, campaign_id))
    before = editor.values_of(session, row) if row is not None else None
    if row is not None:
        claim(session, editor.table, row, editor.noun, seen_version)
    stored, errors = editor.apply(session, campaign_id, row, plain_values(values), now)
    if errors:
        session.rollback()
        raise refusal(errors)
    session.add(stored)
    session.flush()
    detail = change_text(editor.create, before, editor.values_of(session, stored)) if before is not None else ""
    line = log_change(session, campaign_id or stored.id, editor, stored, "created" if row is None else "updated", now,
                      by, detail)
    if row is None and key:
        session.add(Submission(key=key, kind=editor.kind[:20], result_id=stored.id, created_at=now))
    keep_snapshot(session, campaign_id or stored.id, line, now=now, by=by)
    session.commit()
    session.refresh(stored)
    return editor.public_of(session, stored)


def _created_with(session: Session, editor: Editor, campaign_id: int, key: str) -> Any:
    """The row an earlier create with this idempotency key stored (None: none, or it is gone)."""
    found = links.submission(session, key=key)
    if found is None:
        return None
    if found.kind != editor.kind[:20]:
        raise Conflicting({"__all__": "that idempotency key was used for something else: send a new one"})
    earlier = session.get(editor.table, found.result_id)
    if earlier is not None and campaign_id and getattr(earlier, "campaign_id", campaign_id) != campaign_id:
        raise NotFound("that idempotency key belongs to another campaign's row")
    return earlier


def log_change(session: Session, campaign_id: int, editor: Editor, row: Any, action: str, now: datetime,
               by: str, detail: str = "") -> str:
    """Note the edit in the campaign's change log, in the edit's own transaction; returns its line ("updated
    intervention A1: Status proposed → landed")."""
    name = (editor.label(session, row) if editor.label else None) or getattr(row, "key", None) or \
        getattr(row, "name", None) or f"#{row.id}"
    label = f"{editor.noun} {name}" + (f": {detail}" if detail else "")
    return note_change(session, campaign_id, editor.kind, row.id, action, label, now, by)


def note_change(session: Session, campaign_id: int, kind: str, row_id: int, action: str, label: str,
                now: datetime, by: str) -> str:
    """One line of the campaign's change log (any saved edit: editors, specs, profiles, kernel rules), added to
    the edit's own transaction; returns it in words ("updated intervention A1"), the cause of the plan's
    snapshot."""
    label = label if len(label) <= 200 else label[:199] + "…"
    session.add(ChangeLog(campaign_id=campaign_id, at=now, by=by, kind=kind[:20], row_id=row_id, action=action,
                          label=label))
    return f"{action} {label}"


def claim(session: Session, table: Any, row: Any, noun: str, seen_version: int | None) -> None:
    """Move the row to its next version before writing it, or Stale (rolled back) if someone saved it first."""
    seen = row.version if seen_version is None else seen_version
    if seen != row.version or not links.claim_version(session, table=table, row_id=row.id, seen=seen):
        session.rollback()
        session.refresh(row)
        raise Stale(noun, row.version)
    row.version = seen + 1


def delete(session: Session, editor: Editor, campaign_id: int, row_id: int, *, now: datetime | None = None,
           by: str = "") -> None:
    """Delete the row and, through ON DELETE CASCADE, what hangs on it; one commit."""
    if not editor.deletable:
        raise NotFound(f"{editor.noun} rows cannot be deleted")
    row = _load_row(session, editor, campaign_id, row_id)
    line = ""
    if editor.kind != "campaign" and now is not None:  # a deleted campaign takes its log with it
        line = log_change(session, campaign_id, editor, row, "deleted", now, by)
    affected = history.before_intervention_deleted(session, pk(row)) if isinstance(row, Intervention) else None
    session.delete(row)
    if affected is not None:  # the runs that included it are in another state now
        session.flush()
        history.after_intervention_deleted(session, affected)
    if line and now is not None:
        keep_snapshot(session, campaign_id, line, now=now, by=by)
    session.commit()


def form_of(session: Session, editor: Editor, campaign_id: int, row_id: int | None = None,
            defaults: Mapping[str, Any] | None = None) -> Form:
    """The form of a row (or of a new one, with `defaults`), every value as the inputs show it."""
    row = None if row_id is None else _load_row(session, editor, campaign_id, row_id)
    fields = editor.fields(session, campaign_id, row_id)
    if row is not None:
        values = editor.values_of(session, row)
    else:
        values = {name: info.get_default(call_default_factory=True) for name, info in editor.create.model_fields.items()
                  if not info.is_required()} | dict(defaults or {})
        if editor.kind == "tiers" and "position" not in (defaults or {}):  # a new tier comes after the others
            values["position"] = links.count_of(session, table=editor.table, campaign_id=campaign_id)
    return Form(fields, raw={f.name: input_text(values.get(f.name)) for f in fields},
                version=row.version if row is not None else None,
                warnings=editor.warnings(session, campaign_id, row) if row is not None else {})


def input_text(value: Any) -> Any:
    """A stored value as a form input shows it."""
    if value is None:
        return ""
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float):
        return input_number(value)
    if isinstance(value, datetime):
        return datetime_input(value)
    return str(value)


def _set(row: Any, values: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        setattr(row, name, values[name])


def _unique(session: Session, table: type[SQLModel], campaign_id: int, row: Any, column: str, value: str,
            noun: str) -> dict[str, str]:
    for other in links.find_by(session, table=table, campaign_id=campaign_id, column=column, value=value):
        if row is None or other.id != row.id:
            return {column: AgainstCampaign(f"{value!r} is already the {column} of another {noun}")}
    return {}
