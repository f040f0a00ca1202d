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
