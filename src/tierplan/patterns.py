"""Patterns users write over kernel names (kernel rules, effects that target kernels), matched by RE2: time linear
in the name whatever the pattern, so no pattern can hold a core."""

from __future__ import annotations

from typing import Any

import re2


def _options() -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False  # a refused pattern is said to the user, not logged
    return options


def compile_pattern(pattern: str) -> Any:
    """A rule's pattern compiled by RE2, whose matching takes time linear in the name whatever the pattern (no
    (a|a)*$ or .*.*.*x can hold a core); ValueError says why RE2 refuses one (backreferences, lookarounds)."""
    try:
        return re2.compile(pattern, _options())
    except re2.error as exc:
        reason = str(exc).removeprefix("b'").removesuffix("'") if str(exc).startswith("b'") else str(exc)
        raise ValueError(f"{pattern!r} is not a pattern tierplan can match in linear time ({reason}): "
                         "write it without backreferences or lookarounds") from None
