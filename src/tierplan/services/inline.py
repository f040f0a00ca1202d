"""Inline editing: one value of a row (an intervention's status or effort, an effect's estimate, a gate's or an
objective's threshold, a regime's target) changed where the plan shows it. The other fields keep their stored
values, and the save is the editor's own (`save_form` of `merged_data`): the same checks, the same 422
messages, the same version check, one commit."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from sqlmodel import Session

from tierplan.models.effects import POINTS, point_name
from tierplan.models.errors import NotFound
from tierplan.models.forms import Form
from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.metrics import metric_label, metric_unit
from tierplan.planning.model import EffectKind
from tierplan.services.editing import Editor, form_of, read_row


def _estimate(row: Any) -> tuple[str, ...]:
    name = rule_of(EffectKind(row.kind)).headline  # an effect's three-point estimate, by its kind
    return (*(point_name(name, point) for point in POINTS), "provenance")


def _threshold(row: Any) -> tuple[str, ...]:
    return ("relative_pct" if getattr(row, "relative_pct", None) is not None else "threshold", "provenance")


# (kind of row, value) -> the fields the inline form shows, from the row
GROUPS: dict[tuple[str, str], Callable[[Any], tuple[str, ...]]] = {
    ("interventions", "status"): lambda row: ("status",),
    ("interventions", "effort"): lambda row: ("effort_low_days", "effort_likely_days", "effort_high_days",
                                              "effort_provenance"),
    ("effects", "estimate"): _estimate,
    ("gates", "threshold"): _threshold,
    ("slos", "threshold"): _threshold,
    ("regimes", "target"): lambda row: ("target_tok_s", "target_provenance"),
}


def cell_id(kind: str, row_id: int, group: str) -> str:
    """The element id of an inline value on the plan page, shown or being edited."""
    return f"inline-{kind}-{row_id}-{group}"


def group_fields(editor: Editor, group: str, row: Any) -> tuple[str, ...]:
    """The fields of `group` on this row; NotFound when the kind has no such inline value."""
    names = GROUPS.get((editor.kind, group))
    if names is None:
        raise NotFound(f"no inline {group!r} on {editor.noun} rows")
    return names(row)


def inline_form(session: Session, editor: Editor, campaign_id: int, row_id: int, group: str) -> Form:
    """The form of the group's fields alone, at the row's stored values and version."""
    whole = form_of(session, editor, campaign_id, row_id)
    return for_value(whole, editor, group, read_row(session, editor, campaign_id, row_id))


def for_value(whole: Form, editor: Editor, group: str, row: Any) -> Form:
    """The row's whole form cut down to the group's fields; a threshold's label says what it is compared with
    and in which unit ("Threshold: output throughput >=, in tok/s"), since the small form shows nothing else."""
    form = restricted(whole, group_fields(editor, group, row))
    if group == "threshold" and getattr(row, "metric", None):
        unit = metric_unit(row.metric)
        label = f"Threshold: {metric_label(row.metric)} {row.comparator}" + (f", in {unit}" if unit else "")
        form.fields = [replace(f, label=label) if f.name == "threshold" else f for f in form.fields]
    return form


def restricted(form: Form, names: tuple[str, ...]) -> Form:
    """`form` showing only `names`; a message on any other field is said at the top (it needs the full form)."""
    fields = [f for f in form.fields if f.name in names]
    errors = {k: v for k, v in form.errors.items() if k in names}
    elsewhere = [f"{_label(form, k)}: {v}" for k, v in form.errors.items() if k not in names and k != "__all__"]
    if "__all__" in form.errors or elsewhere:
        errors["__all__"] = " ".join([form.errors.get("__all__", ""), *elsewhere]).strip()
    return Form(fields, {k: v for k, v in form.raw.items() if k in names}, errors, version=form.version,
                conflict=[c for c in form.conflict if c[0] in {f.label for f in fields}],
                warnings={k: v for k, v in form.warnings.items() if k in names})


def _label(form: Form, name: str) -> str:
    return next((f.label for f in form.fields if f.name == name), name)


def merged_data(session: Session, editor: Editor, campaign_id: int, row_id: int, group: str,
                data: Mapping[str, Any]) -> dict[str, Any]:
    """The whole form as the row stands, with the group's fields as submitted (and the version the inline form
    was opened at)."""
    values = dict(form_of(session, editor, campaign_id, row_id).raw)
    row = read_row(session, editor, campaign_id, row_id)
    values |= {name: data.get(name, "") for name in group_fields(editor, group, row)}
    values["version"] = data.get("version", "")
    return values

