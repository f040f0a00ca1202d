"""The layering the README draws, read from the source: who may import whom, no cycle between packages, only
services commit, SQL only in tierplan/db, and services hand back values, never database rows."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import tierplan

ROOT = Path(tierplan.__file__).parent
PACKAGE = ROOT.name
DATABASE = ("sqlalchemy", "sqlmodel", "psycopg", "alembic")
WEB = ("fastapi", "starlette", "jinja2", "uvicorn", "httpx")

# package -> what it must never import (its own modules and the standard library aside)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "planning": ("db", "models", "services", "views", "text", "importers", "exporters", "web", "cli", "main",
                 "config", *DATABASE, *WEB),
    "text": ("db", "models", "services", "views", "importers", "exporters", "web", "cli", "main", *DATABASE, *WEB),
    "importers": ("db", "services", "views", "exporters", "web", "cli", "main", *DATABASE, *WEB),
    "exporters": ("db", "web", "cli", "main", *DATABASE, *WEB),
    "views": ("db", "web", "cli", "main", *DATABASE, *WEB),
    "models": ("db", "services", "views", "exporters", "web", "cli", "main", *WEB),
    "db": ("services", "views", "exporters", "importers", "web", "cli", "main", *WEB),
    "services": ("views", "exporters", "web", "cli", "main", *WEB),
}


def modules() -> Iterator[tuple[Path, str]]:
    """Every module of the package, with the top-level package it belongs to ("main" for main.py); the
    migrations are Alembic's scripts, run by it, not a layer."""
    for path in sorted(ROOT.rglob("*.py")):
        if path.relative_to(ROOT).parts[0] != "migrations":
            yield path, path.relative_to(ROOT).parts[0].removesuffix(".py")


def imports_of(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) of every import of the file, relative ones made absolute; imports under TYPE_CHECKING
    included (a type is still a dependency of the reader)."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(parts[: len(parts) - node.level]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            yield node.lineno, module
            # from tierplan import views / from tierplan.text import formatting: the name may be a module
            yield from ((node.lineno, f"{module}.{alias.name}") for alias in node.names)


def target(module: str) -> str:
    """The layer an import reaches: one of the package's own (db, views...) or a third-party top-level name."""
    head, _, rest = module.partition(".")
    return rest.split(".")[0] if head == PACKAGE and rest else head


def test_no_layer_imports_what_it_must_not():
    offenders = [f"{path.relative_to(ROOT.parent)}:{line} imports {module}"
                 for path, layer in modules() for line, module in imports_of(path)
                 if target(module) in FORBIDDEN.get(layer, ()) and target(module) != layer]
    assert offenders == []


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    own = {layer for _, layer in modules()}
    for path, layer in modules():
        for _, module in imports_of(path):
            reached = target(module)
            if module.startswith(PACKAGE + ".") and reached in own and reached != layer:
                graph.setdefault(layer, set()).add(reached)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one package (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_packages_import_each_other_even_through_others():
    assert cycles(package_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_only_services_commit():
    offenders = [f"{path.relative_to(ROOT.parent)}:{node.lineno}"
                 for path, layer in modules() if layer != "services"
                 for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and node.func.attr in ("commit", "begin") and not _is_cli_or_lifespan(path)]
    assert offenders == []


def _is_cli_or_lifespan(path: Path) -> bool:
    """The CLI's own commands (migrate, users) run outside any request and may end their work themselves."""
    return path.relative_to(ROOT).parts[0] == "cli"


STATEMENTS = {"select", "insert", "update", "delete", "text", "func", "union", "union_all", "exists"}


def test_sql_is_written_only_in_app_db():
    offenders = [f"{path.relative_to(ROOT.parent)}:{node.lineno} imports {alias.name} from {node.module}"
                 for path, layer in modules() if layer != "db"
                 for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("sqlalchemy", "sqlmodel")
                 for alias in node.names if alias.name in STATEMENTS]
    assert offenders == []


def table_names() -> set[str]:
    """Every table class, each module of tierplan/db imported first so that all are registered."""
    import importlib
    import pkgutil

    from sqlmodel import SQLModel

    for found in pkgutil.iter_modules([str(ROOT / "db")]):
        importlib.import_module(f"{PACKAGE}.db.{found.name}")
    return {mapper.class_.__name__ for mapper in SQLModel._sa_registry.mappers}


def test_services_hand_back_values_never_rows():
    """A public service function's return type names no table class (a row would carry its session along and
    let a page lazy-load the database). Every public function states its return type."""
    tables = table_names()
    assert {"Campaign", "User", "ImportJob", "PlanSnapshot"} <= tables
    offenders = []
    for path in sorted((ROOT / "services").glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                named = set(re.findall(r"(?<![\w.])[A-Z]\w*", ast.unparse(node.returns))) if node.returns else {"?"}
                if named & tables or named == {"?"}:
                    offenders.append(f"{path.name}:{node.name} -> "
                                     f"{ast.unparse(node.returns) if node.returns else 'no annotation'}")
    assert offenders == []


def test_the_planning_core_reads_no_clock_and_does_no_io():
    banned = re.compile(r"\b(datetime\.now|datetime\.utcnow|date\.today|time\.time|open)\(")
    offenders = [f"{path.name}:{number}" for path, layer in modules() if layer == "planning"
                 for number, line in enumerate(path.read_text().splitlines(), 1) if banned.search(line)]
    assert offenders == []


def test_requests_read_the_injected_clock():
    """Pages, the API and the services take the time from tierplan.state.clock (tests move it), never the wall clock;
    only utc_now, the clock create_app is given by default, reads it (the import jobs' times, written by other
    processes, are the database layer's wall_clock)."""
    offenders = [f"{path.relative_to(ROOT.parent)}:{call.lineno}"
                 for path, layer in modules() if layer in ("web", "services", "views", "models", "text")
                 for function in ast.walk(ast.parse(path.read_text()))
                 if isinstance(function, ast.FunctionDef) and function.name != "utc_now"
                 for call in ast.walk(function)
                 if isinstance(call, ast.Call) and ast.unparse(call.func) in ("datetime.now", "datetime.utcnow")]
    assert offenders == []


def test_the_import_reader_sees_every_kind_of_import():
    views = ROOT / "views" / "gates.py"
    found = {module for _, module in imports_of(views)}
    assert {f"{PACKAGE}.text.formatting", f"{PACKAGE}.services.plan", "pydantic"} <= found
    assert target(f"{PACKAGE}.db.tables") == "db" and target("sqlalchemy.orm") == "sqlalchemy"


def test_views_and_the_export_read_values_never_the_plan_rows():
    offenders = [f"{path.relative_to(ROOT.parent)}:{node.lineno}"
                 for path, layer in modules() if layer in ("views", "exporters")
                 for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Attribute) and node.attr == "rows" and isinstance(node.value, ast.Name)
                 and node.value.id == "plan"]
    assert offenders == []
