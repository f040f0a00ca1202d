"""The planning core imports no web, database or template code."""

import ast
from pathlib import Path

import app.planning

FORBIDDEN = ("fastapi", "starlette", "sqlmodel", "sqlalchemy", "jinja2", "httpx", "app.db", "app.web", "app.services")


def imported_modules(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_the_planning_core_imports_no_adapters():
    root = Path(app.planning.__file__).parent
    offenders = [
        f"{path.name}: {name}"
        for path in root.rglob("*.py")
        for name in imported_modules(path)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    ]
    assert offenders == []


def test_the_views_and_the_export_read_values_never_rows_or_the_database():
    import app.exporters
    import app.views

    roots = [Path(app.views.__file__).parent, Path(app.exporters.__file__).parent]
    banned = ("fastapi", "starlette", "sqlmodel", "sqlalchemy", "app.db", "app.web")
    offenders = [
        f"{path.name}: {name}"
        for root in roots
        for path in root.rglob("*.py")
        for name in imported_modules(path)
        if any(name == bad or name.startswith(bad + ".") for bad in banned)
    ]
    rows_read = [
        f"{path.name}:{node.lineno}"
        for root in roots
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "rows" and isinstance(node.value, ast.Name)
        and node.value.id == "plan"
    ]
    assert offenders == [] and rows_read == []


def test_sql_is_written_only_in_app_db():
    root = Path(app.planning.__file__).parent.parent
    offenders = [str(path.relative_to(root)) for path in root.rglob("*.py")
                 if "select(" in path.read_text() and path.relative_to(root).parts[0] != "db"]
    assert offenders == []
