"""Waiting for what another process or thread does, without a fixed sleep: poll until it holds, up to a deadline."""

from __future__ import annotations

import time
from collections.abc import Callable


def eventually(condition: Callable[[], bool], within_s: float = 10.0, every_s: float = 0.05) -> bool:
    """True as soon as `condition()` holds; False when it still does not after `within_s` seconds."""
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every_s)
    return True
