"""The field types rows share, and the two ways a model is filled: from a form (`parse_form`) or a JSON body.

A field's title is its form label, its description the help under it; `json_schema_extra` carries what only a
form needs (`widget`, `placeholder`, `show_for`). Every message a user sees for a bad field is written here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from enum import Enum
from types import NoneType, UnionType
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import AfterValidator, AllowInfNan, BaseModel, ConfigDict, ValidationError, create_model, field_validator
from pydantic import Field as PydanticField
from pydantic_core import ErrorDetails
from sqlmodel import Field as SQLField
from sqlmodel._compat import SQLModelConfig

from tierplan.models.errors import Conflicting, FormInvalid
from tierplan.models.forms import Field

INT32_MAX = 2**31 - 1  # PostgreSQL's integer: larger whole numbers are refused at the field, not by the database
TEXT_MAX = 20_000  # free text (notes, descriptions, sources)


EARLIEST, LATEST = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)


def _as_utc(value: datetime | None) -> datetime | None:
    if value is None:  # an update model's field left out
        return value
    if not EARLIEST.year <= value.year < LATEST.year:  # "-1" parses as a Unix time in 1969
        raise ValueError(f"must lie between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


UtcDatetime = Annotated[datetime, AfterValidator(_as_utc)]
"""A date and time; one typed without a zone is UTC."""
DATE_PATTERN = f"^({'|'.join(str(c) for c in range(EARLIEST.year // 100, LATEST.year // 100))})[0-9]{{2}}-"
"""What the document says of a UtcDatetime: its year (as typed) lies in EARLIEST.year..LATEST.year - 1."""
LARGEST, SMALLEST = 1e9, 1e-9  # no quantity tierplan stores (tok/s, ms, GB/s, days, bytes) lies outside these


def _physical(value: float | None) -> float | None:
    if value is None:  # an update model's field left out
        return value
    if abs(value) > LARGEST:
        raise ValueError(f"must be at most {LARGEST:,.0f} in size: no quantity tierplan plans with is that large")
    if value != 0 and abs(value) < SMALLEST:
        raise ValueError(f"must be 0 or at least {SMALLEST:g} in size: a value that small is a typing slip")
    return value


Number = Annotated[float, AllowInfNan(False), AfterValidator(_physical)]
"""A finite number of physical size: 0, or between 1e-9 and 1e9 in size (5e-324 or 1e308 is a slip, and the
arithmetic of the plan and its charts must not meet it)."""
Int = Annotated[int, PydanticField(le=INT32_MAX)]
"""A whole number that fits the databases' integer column."""
M = TypeVar("M", bound=BaseModel)


def described(examples: Sequence[Mapping[str, Any]] = ()) -> Callable[[dict[str, Any], type[Any]], None]:
    """The `json_schema_extra` of an Input: its bounds in JSON Schema's words, and its examples. The document
    says exactly what a field takes (API clients and schemathesis read it), where pydantic would leave a bound
    on an optional field as a bare `ge`, and cannot see what `Number` and `UtcDatetime` refuse."""

    def extra(schema: dict[str, Any], model: type[Any]) -> None:
        for name, prop in schema.get("properties", {}).items():
            schema["properties"][name] = _in_json_schema(prop)
        if examples:
            schema["examples"] = [dict(e) for e in examples]
    return extra


_KEYWORDS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}


def _in_json_schema(node: dict[str, Any]) -> dict[str, Any]:
    if "anyOf" in node:
        options = [_in_json_schema(option) for option in node["anyOf"]]
        node["anyOf"] = [flat for option in options
                         for flat in (option["anyOf"] if option.keys() == {"anyOf"} else [option])]
        return node
    if isinstance(node.get("items"), dict):
        node["items"] = _in_json_schema(node["items"])
    for bare, keyword in _KEYWORDS.items():
        if bare in node:
            node[keyword] = node.pop(bare)
    if node.get("type") == "number":
        return _physical_schema(node)
    if node.get("type") == "string" and node.get("format") == "date-time":
        node["pattern"] = DATE_PATTERN
    elif node.get("type") == "string" and "enum" not in node:
        node["pattern"] = "^[^\\x00]*$"  # Input._no_nul
    return node


def _physical_schema(node: dict[str, Any]) -> dict[str, Any]:
    """A number node as `_physical` takes it: 0, or between SMALLEST and LARGEST in size, within its own bounds
    (its title, help and default stay on the node)."""
    low, above = node.pop("minimum", None), node.pop("exclusiveMinimum", None)
    high = min(node.pop("maximum", LARGEST), LARGEST)
    node.pop("type")
    if above is not None and above > 0:
        ranges = [{"type": "number", "exclusiveMinimum": above, "maximum": high}]
    else:
        ranges = [{"type": "number", "minimum": max(SMALLEST, low or 0), "maximum": high}]
        floor = low if low is not None else above
        if floor is None or floor < 0 or low == 0:
            ranges.insert(0, {"type": "number", "enum": [0]})
        if floor is None or floor < 0:
            least = {"exclusiveMinimum": above} if above is not None else {"minimum": max(-LARGEST, low or -LARGEST)}
            ranges.append({"type": "number", **least, "maximum": -SMALLEST})
    return node | ranges[0] if len(ranges) == 1 else node | {"anyOf": ranges}


class Input(BaseModel):
    """A body a user fills, through a form or as JSON. No text of it may hold a NUL character: PostgreSQL
    refuses them, so SQLite must not take them either."""

    model_config = ConfigDict(json_schema_extra=described())

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        texts = value if isinstance(value, list) else [value]
        if any(isinstance(text, str) and "\x00" in text for text in texts):
            raise ValueError("holds a NUL character (\\0): remove it")
        return value


def field(title: str, *, help: str = "", widget: str = "", placeholder: str = "", show_for: Sequence[str] = (),
          labels: Mapping[str, str] | None = None, choices: Sequence[str] = (), **constraints: Any) -> Any:
    """A field with its form label (`title`), help text and constraints (pydantic's ge, gt, max_length...), and,
    where a table stores it, its column (SQLModel's foreign_key, index, sa_type...): the one declaration the table
    and its create, update and public models share. `choices`: the only values a text field takes, fixed by
    tierplan (a metric's name), not by the campaign's rows; the document lists them."""
    extra: dict[str, Any] = {k: v for k, v in (("widget", widget), ("placeholder", placeholder),
                                               ("show_for", list(show_for)), ("enum", list(choices))) if v}
    if labels:
        extra["labels"] = dict(labels)
    schema = {"json_schema_extra": extra} if extra else {}
    return SQLField(title=title, description=help or None, schema_extra=schema, **constraints)


def example(**values: Any) -> SQLModelConfig:
    """A model's example body, as /docs shows it (tests/web/test_api_examples.py checks each one validates); a
    config that suits a plain model and one with a table's fields."""
    return SQLModelConfig(json_schema_extra=described([values]))


def update_model(create: type[BaseModel], name: str, changes: dict[str, Any]) -> type[BaseModel]:
    """The XUpdate of an XCreate: the same fields, constraints and help, every one optional (a PATCH body);
    `changes` is its example."""
    fields: dict[str, Any] = {}
    for field_name, info in create.model_fields.items():
        copy = info._copy()  # keeps title, description and constraints
        copy.default, copy.default_factory = None, None
        annotation: Any = info.annotation
        fields[field_name] = (annotation | None, copy)
    model = create_model(name, __base__=Input, __doc__=f"Changes to some fields of a {create.__name__}.", **fields)
    model.model_config["json_schema_extra"] = described([changes])
    model.model_rebuild(force=True)
    return model


# forms

def form_fields(model: type[BaseModel], options: Mapping[str, Sequence[tuple[str, str]]] | None = None
                ) -> tuple[Field, ...]:
    """The form fields of `model`, in its order; `options` gives the choices of id fields (tiers, regimes...)."""
    options = options or {}
    out = []
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        kind, choices = _kind(info.annotation, extra, name in options)
        constraints = _constraints(info)
        always_set = kind == "select" and info.default is not None and not info.is_required()
        out.append(Field(
            name=name, label=info.title or name, kind=kind, required=info.is_required() or always_set,
            minimum=constraints.get("ge", constraints.get("gt")), exclusive_minimum="gt" in constraints,
            options=tuple(options.get(name, choices)), help=info.description or "",
            max_length=constraints.get("max_length"), placeholder=str(extra.get("placeholder", "")),
            show_for=tuple(extra.get("show_for", ())),  # type: ignore[arg-type]
        ))
    return tuple(out)


def _constraints(info) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for meta in info.metadata:
        for key in ("ge", "gt", "le", "max_length"):
            if getattr(meta, key, None) is not None:
                found[key] = getattr(meta, key)
    return found


def _inner(annotation: Any) -> Any:
    """`int` of `int | None`, of `Annotated[int, ...]` and of `Annotated[int, ...] | None`."""
    if get_origin(annotation) in (Union, UnionType):
        args = [a for a in get_args(annotation) if a is not NoneType]
        annotation = args[0] if len(args) == 1 else annotation
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _kind(annotation: Any, extra: Mapping[str, Any], has_options: bool) -> tuple[str, tuple[tuple[str, str], ...]]:
    inner = _inner(annotation)
    labels = extra.get("labels", {})
    if get_origin(inner) is list:
        return "multiselect", ()
    if isinstance(inner, type) and issubclass(inner, Enum):
        return "select", tuple((m.value, labels.get(m.value, m.value)) for m in inner)
    if has_options:
        return "select", ()
    if inner is bool:
        return "checkbox", ()
    if inner is int:
        return "int", ()
    if inner is float:
        return "float", ()
    if inner is datetime:
        return "datetime", ()
    return str(extra.get("widget") or "text"), ()


def form_data(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
    """What a form sent for `model`, as the model reads it: blank optional fields left out, lists for selects."""
    out: dict[str, Any] = {}
    for f in form_fields(model):
        if f.kind == "multiselect":
            values = data.getlist(f.name) if hasattr(data, "getlist") else data.get(f.name) or []
            out[f.name] = [v for v in (values if isinstance(values, list | tuple) else [values]) if str(v).strip()]
            continue
        if f.kind == "checkbox":
            out[f.name] = str(data.get(f.name) or "").strip().lower() in ("on", "yes", "true", "1")
            continue
        value = data.get(f.name)
        text = "" if value is None else str(value).strip()
        if text != "":
            out[f.name] = text
        elif model.model_fields[f.name].is_required() and f.kind not in ("text", "textarea"):
            out[f.name] = None  # "required", not "must be a number"; a blank field with a default takes it
    return out


Options = Mapping[str, Sequence[tuple[str, str]]]


def parse_form(model: type[M], data: Mapping[str, Any]) -> M:
    """Fill `model` from a submitted form, or raise FormInvalid with a message for every bad field."""
    return validated(model, form_data(model, data))


def validated(model: type[M], values: Mapping[str, Any]) -> M:
    """`model` filled from `values` (a form's or a JSON body's), or FormInvalid naming each bad field."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as exc:
        raise FormInvalid(field_errors(exc.errors())) from None


def check_options(parsed: BaseModel, options: Options) -> None:
    """Nothing, when every id field names one of its `options` (the campaign's tiers, regimes...). Otherwise
    FormInvalid when a field's choices are fixed (a metric: the request can never succeed), Conflicting when
    they are the campaign's rows (it can once the campaign has that row)."""
    errors = {}
    for name, choices in options.items():
        allowed = {key for key, _ in choices}
        chosen = getattr(parsed, name, None)
        unknown = [str(v) for v in (chosen if isinstance(chosen, list) else [chosen])
                   if v is not None and str(v) not in allowed]
        if unknown:
            errors[name] = f"unknown choice: {', '.join(unknown)}"
    if any(_fixed(type(parsed), name) for name in errors):
        raise FormInvalid(errors)
    if errors:
        raise Conflicting(errors)


def _fixed(model: type[BaseModel], name: str) -> bool:
    extra = model.model_fields[name].json_schema_extra if name in model.model_fields else None
    return isinstance(extra, dict) and "enum" in extra


def plain_values(model: BaseModel) -> dict[str, Any]:
    """The model's values for a row: enums as their stored strings."""
    return {k: v.value if isinstance(v, Enum) else v for k, v in model}


def field_errors(errors: Sequence[ErrorDetails]) -> dict[str, str]:
    """pydantic's errors as one plain message a field (the first where a field has several)."""
    out: dict[str, str] = {}
    for error in errors:
        loc = [part for part in error["loc"] if part not in ("body", "query", "path")]
        name = str(loc[0]) if loc else "__all__"
        out.setdefault(name, message(error))
    return out


def message(error: ErrorDetails) -> str:
    """The message a user reads for one pydantic error."""
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in ("missing", "string_too_short") or (kind.endswith("_type") and error.get("input") is None):
        return "required"
    if kind in ("int_parsing", "int_from_float", "int_type"):
        return "must be a whole number"
    if kind in ("float_parsing", "float_type"):
        return "must be a number"
    if kind == "finite_number":
        return "must be a finite number"
    if kind == "greater_than":
        return f"must be greater than {ctx['gt']:g}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']:g}"
    if kind == "less_than_equal":
        return f"at most {ctx['le']:,g}" if isinstance(ctx["le"], float) else f"at most {ctx['le']:,}"
    if kind == "string_too_long":
        return f"at most {ctx['max_length']:,} characters"
    if kind in ("enum", "literal_error"):
        return f"unknown choice {error.get('input')!r}"
    if kind.startswith("datetime"):
        return "must be a date and time like 2026-12-01T14:30"
    if kind in ("bool_parsing", "bool_type"):
        return "must be yes or no"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    return error["msg"]
