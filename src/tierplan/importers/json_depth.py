"""How deep a JSON stream nests, checked as its bytes go by, before a parser sees them.

A parser that keeps a path per level (ijson's prefixes: "item.item.item...") needs memory that grows with the
square of the depth, so 200 KB of "[[[[..." takes gigabytes. No file tierplan reads nests deeper than a few
levels (a trace event's args, a result's list of objects), so a stream nesting past MAX_DEPTH is refused at the
byte where it does, whatever comes after.

The scan runs over each chunk with numpy (brackets and braces inside strings do not count, escaped quotes do
not end a string), so it costs a fraction of the parse.
"""

from __future__ import annotations

import numpy as np

MAX_DEPTH = 64
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_STEP = np.zeros(256, dtype=np.int32)  # what each byte does to the depth outside strings
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


class TooDeep(ValueError):
    def __init__(self, offset: int, line: int, limit: int):
        self.reason = f"nested deeper than {limit} levels"
        super().__init__(f"{self.reason} at line {line} (byte {offset:,})")
        self.offset, self.line = offset, line


class DepthGuard:
    """Feed it the stream's chunks in order; `check` raises TooDeep at the first byte nesting past the limit."""

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        self.limit = limit
        self.depth = 0
        self.in_string = 0  # 1 while the stream is inside a string
        self.backslashes = 0  # parity of the run of backslashes the previous chunk ended on
        self.offset = 0
        self.line = 1

    def check(self, chunk: bytes) -> None:
        if not chunk:
            return
        data = np.frombuffer(chunk, dtype=np.uint8)
        step = _STEP[data]
        if chunk.find(b'"') >= 0 or self.in_string:
            quotes = self._unescaped_quotes(data, chunk).view(np.int8)
            opened = np.cumsum(quotes, dtype=np.int32)
            outside = (opened - quotes + self.in_string) % 2 == 0
            step *= outside
            self.in_string = int(opened[-1] + self.in_string) % 2
        depth = np.cumsum(step, dtype=np.int32) + self.depth
        over = np.flatnonzero(depth > self.limit)
        if over.size:
            at = int(over[0])
            raise TooDeep(self.offset + at, self.line + chunk.count(b"\n", 0, at), self.limit)
        self.depth = int(depth[-1])
        self.offset += len(chunk)
        self.line += chunk.count(b"\n")

    def _unescaped_quotes(self, data: np.ndarray, chunk: bytes) -> np.ndarray:
        """Where a quote stands that no backslash escapes (an odd run of backslashes right before it does)."""
        quotes = data == _QUOTE
        if chunk.find(b"\\") < 0 and not self.backslashes:
            return quotes
        backslash = data == _BACKSLASH
        index = np.arange(data.size)
        last_other = np.maximum.accumulate(np.where(backslash, -1, index))
        run = index - last_other + np.where(last_other < 0, self.backslashes, 0)  # backslashes ending at each byte
        run_before = np.concatenate(([self.backslashes], run[:-1]))
        self.backslashes = int(run[-1]) % 2
        return quotes & (run_before % 2 == 0)
