"""Run a benchmark with the project's virtualenv even when started with another Python."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ensure_project_python() -> None:
    """Re-execute under .venv/bin/python when the project's dependencies are not importable here."""
    try:
        import ijson  # noqa: F401
        import numpy  # noqa: F401
        import sqlmodel  # noqa: F401
    except ImportError:
        venv_python = ROOT / ".venv" / "bin" / "python"
        if venv_python.exists() and Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
            os.execv(str(venv_python), [str(venv_python), *sys.argv])
        raise SystemExit("the project's dependencies are missing: run `make bench`, which installs them") from None
    sys.path[:0] = [str(ROOT), str(ROOT / "src")]  # tests/ from the checkout, tierplan even when not installed
