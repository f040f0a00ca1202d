"""Files that came from a public repository are not kept in this project: tests read them from
`../shared/fixtures/` beside the checkout (each with its README there), and skip, saying why, where that folder is
absent. Files written here by the tools themselves are in tests/data."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


def shared_fixture(relative: str) -> Path:
    path = SHARED / relative
    if not path.is_file():
        pytest.skip(f"{relative} comes from a public repository and lies in ../shared/fixtures/, absent here")
    return path
