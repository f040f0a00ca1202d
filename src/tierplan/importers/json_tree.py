"""A JSON document's tree read from a byte stream in bounded memory: objects kept at any depth, arrays kept while
they hold at most MAX_ITEMS items (a report's list of benchmarks, a percentile table) and dropped once they grow
past it (per-request records, time series), so a report of a million requests costs what a report of ten does.

For the tools whose reports nest their figures (AIPerf's `{"unit": ..., "avg": ...}` a metric, GuideLLM's
`metrics.<name>.successful.percentiles`); benchmark results that keep them flat are read by json_values.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tierplan.importers.errors import ImportFileError
from tierplan.importers.json_values import Readable, walk

MAX_ITEMS = 256  # an array longer than this is a per-request record or a series: dropped
MAX_KEPT = 500_000  # values kept of one document (a sweep of 40 combinations holds about 200,000); beyond: refused
DROPPED = object()  # stands for a dropped array until its parent is done


class _Tree:
    def __init__(self, file: str) -> None:
        self.file = file
        self.stack: list[tuple[Any, str | None]] = []  # (container or DROPPED, its key in the parent)
        self.key: str | None = None
        self.kept = 0

    def start(self, is_object: bool) -> None:
        dropped = any(c is DROPPED for c, _ in self.stack)
        self.stack.append((DROPPED if dropped else ({} if is_object else []), self.key))

    def end(self) -> tuple[bool, Any]:
        value, key = self.stack.pop()
        if not self.stack:
            return True, value
        self._put(value, key)
        return False, None

    def scalar(self, value: Any) -> tuple[bool, Any]:
        if not self.stack:
            return True, value
        self._put(value, self.key)
        return False, None

    def _put(self, value: Any, key: str | None) -> None:
        parent, parent_key = self.stack[-1]
        if parent is DROPPED or value is DROPPED:
            return
        self.kept += 1
        if self.kept > MAX_KEPT:
            raise ImportFileError(self.file, "", f"more than {MAX_KEPT:,} values outside per-request arrays: not a "
                                                 "benchmark report")
        if isinstance(parent, dict):
            parent[key] = value
        elif len(parent) < MAX_ITEMS:
            parent.append(value)
        else:
            self.stack[-1] = (DROPPED, parent_key)


def json_documents(raw: Readable, file: str) -> Iterator[tuple[Any, int]]:
    """Each top-level JSON value (pruned as the module says) and the line it starts on; ImportFileError names the
    line of invalid JSON."""
    return walk(raw, file, _Tree(file))
