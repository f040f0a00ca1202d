"""The Docker image starts through `tierplan serve`, so it keeps the guard that refuses to serve beyond loopback
with no user (the guard itself: tests/web/test_login.py)."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_image_starts_through_tierplan_serve_on_every_address():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    command = json.loads(next(line for line in lines if line.startswith("CMD "))[4:])
    assert command[:2] == ["tierplan", "serve"] and "0.0.0.0" in command
    assert "tierplan user add NAME" in (ROOT / "README.md").read_text()
