"""A real `tierplan serve` on a free port, for tests that need a server process (browser, load, crash)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(database_url: str, log_path: Path, *args: str, **settings: str) -> tuple[subprocess.Popen, str]:
    """Start the server (it migrates and loads the demo into an empty database); wait until /healthz answers.
    `args`: more `tierplan serve` options; `settings`: TIERPLAN_* variables by their lower-case name."""
    port = free_port()
    env = {**os.environ, "TIERPLAN_DATABASE_URL": database_url,
           **{f"TIERPLAN_{name.upper()}": value for name, value in settings.items()}}
    log = open(log_path, "a")
    process = subprocess.Popen([sys.executable, "-m", "tierplan.cli", "serve", "--port", str(port), *args], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{base}/healthz", timeout=1)
            return process, base
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail("uvicorn did not start:\n" + log_path.read_text())
            time.sleep(0.1)


@contextmanager
def serving(database_url: str, log_path: Path) -> Iterator[str]:
    process, base = start(database_url, log_path)
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
