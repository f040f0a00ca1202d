"""JSON values read one after another from a byte stream in bounded memory, each with the line it starts on.

Benchmark results files hold one object (vLLM `--save-result`), several appended ones (`--append-result`,
SGLang JSONL), or a list or a `results` list of them (sweep summaries). A saved result can also carry
per-request arrays (`ttfts`, `itls`, `generated_texts`, ...) of millions of numbers, which `json.load` would
turn into gigabytes. ijson walks the stream instead and only the shallow part of each value is built: the
scalars of an object and of the objects directly in it (SGLang's `server_info`), the objects of a top-level or
`results` list, and arrays of scalars of at most MAX_KEPT_ITEMS items (per-position acceptance rates, say); longer
arrays and deeper values are skipped.

The stream is fed to the parser in pieces that end at a newline (or at a comma, for lines longer than
PIECE_BYTES), so a value's line and an error's line are exact. Python's json writes non-finite floats as
`Infinity`, `-Infinity` and `NaN` (SGLang's `request_rate` of an unbounded run); ijson refuses them, so where
they stand as values they are read as the strings "inf", "-inf" and "nan".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import ijson

from tierplan.importers.errors import ImportFileError
from tierplan.importers.json_depth import DepthGuard, TooDeep

PIECE_BYTES = 1 << 20
MAX_KEPT_ITEMS = 64
NON_FINITE = re.compile(rb"([:\[,]\s*)(-?Infinity|NaN)(?=\s*[,\]\}])")
BLANK_LINES = re.compile(rb"(?:[ \t\r]*\n)+")
NON_FINITE_AS = {b"Infinity": b'"inf"', b"-Infinity": b'"-inf"', b"NaN": b'"nan"'}


class Readable(Protocol):
    def read(self, size: int = -1) -> bytes: ...


@dataclass
class _Frame:
    kind: str  # "object" (scalars kept), "items" (objects kept), "scalars" (a short array), "skip"
    key: str | None  # its key in the parent object
    value: Any = None
    items: list = field(default_factory=list)
    odd: bool = False  # "items": met a value that is no object (kept once, for its error); "scalars": a non-scalar


class _Shallow:
    """Builds the shallow part of each top-level value from ijson's events."""

    def __init__(self) -> None:
        self.stack: list[_Frame] = []
        self.key: str | None = None

    def start(self, is_object: bool) -> None:
        parent = self.stack[-1] if self.stack else None
        key = self.key if parent is not None and parent.kind == "object" else None
        if parent is None:
            kind = "object" if is_object else "items"
        elif parent.kind == "object" and not is_object:
            kind = "items" if key == "results" and len(self.stack) == 1 else "scalars"
        elif parent.kind == "items" and is_object:
            kind = "object"
        elif parent.kind == "object" and is_object and len(self.stack) == 1:
            kind = "object"  # an object in a result (SGLang's `server_info`): its scalars too, nothing deeper
        else:
            kind = "skip"
        self.stack.append(_Frame(kind, key, {} if kind == "object" else None))

    def end(self) -> tuple[bool, Any]:
        """(whether a top-level value is complete, that value)."""
        frame = self.stack.pop()
        value = frame.value if frame.kind == "object" else frame.items
        if not self.stack:
            return True, value
        parent = self.stack[-1]
        if parent.kind == "items" and frame.kind == "skip":
            self._odd(parent, [])
        elif frame.kind == "skip":
            parent.odd = True  # an array of arrays (per-request ITLs) is not an array of scalars: dropped
        elif frame.kind == "scalars" and (frame.odd or len(frame.items) > MAX_KEPT_ITEMS):
            pass
        elif parent.kind == "object" and frame.key is not None:
            parent.value[frame.key] = value
        elif parent.kind == "items":
            parent.items.append(value)
        return False, None

    @staticmethod
    def _odd(frame: _Frame, value: Any) -> None:
        if not frame.odd:
            frame.items.append(value)
            frame.odd = True

    def scalar(self, value: Any) -> tuple[bool, Any]:
        if not self.stack:
            return True, value
        frame = self.stack[-1]
        if frame.kind == "object" and self.key is not None:
            frame.value[self.key] = value
        elif frame.kind == "items":
            self._odd(frame, value)
        elif frame.kind == "scalars" and len(frame.items) <= MAX_KEPT_ITEMS:
            frame.items.append(value)
        return False, None


def _pieces(raw: Readable) -> Iterator[bytes]:
    """The stream in pieces that end at a newline, or at a comma when a line runs past PIECE_BYTES."""
    carry = b""
    while True:
        block = raw.read(PIECE_BYTES)
        data = carry + block
        if not block:
            if data:
                yield data
            return
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            blank = BLANK_LINES.match(data, start)  # a run of blank lines is one piece: nothing in it parses
            end = blank.end() - 1 if blank else end
            yield data[start:end + 1]
            start = end + 1
        carry = data[start:]
        if len(carry) > PIECE_BYTES:
            cut = carry.rfind(b",") + 1 or len(carry)
            yield carry[:cut]
            carry = carry[cut:]


def _readable(piece: bytes) -> bytes:
    return NON_FINITE.sub(lambda m: m.group(1) + NON_FINITE_AS[m.group(2)], piece)


class Builder(Protocol):
    """Builds values from ijson's events: the shallow part (_Shallow here), or a pruned tree (json_tree.py)."""

    key: str | None
    stack: list

    def start(self, is_object: bool) -> None: ...

    def end(self) -> tuple[bool, Any]: ...

    def scalar(self, value: Any) -> tuple[bool, Any]: ...


def json_values(raw: Readable, file: str) -> Iterator[tuple[Any, int]]:
    """Each top-level JSON value's shallow part and the line it starts on; ImportFileError names the line of
    invalid JSON."""
    return walk(raw, file, _Shallow())


def walk(raw: Readable, file: str, builder: Builder) -> Iterator[tuple[Any, int]]:
    """Each top-level JSON value as `builder` makes it from the stream, and the line it starts on."""
    events = ijson.sendable_list()
    parser = ijson.parse_coro(events, multiple_values=True, use_float=True)
    line, started, depth = 1, 1, DepthGuard()
    for piece in _pieces(raw):
        try:
            depth.check(piece)
        except TooDeep as exc:
            raise ImportFileError(file, f"line {exc.line}", exc.reason + ": not a benchmark "
                                  "result (a nesting bomb?)") from None
        try:
            parser.send(_readable(piece))
        except ijson.JSONError as exc:
            raise ImportFileError(file, f"line {line}", f"invalid JSON ({_first_line(exc)})") from None
        for _prefix, event, value in events:
            if event == "map_key":
                builder.key = value
                continue
            if event in ("start_map", "start_array"):
                if not builder.stack:
                    started = line
                builder.start(event == "start_map")
                continue
            done, found = builder.end() if event in ("end_map", "end_array") else builder.scalar(value)
            if done:
                yield found, started if event in ("end_map", "end_array") else line
        del events[:]
        line += piece.count(b"\n")
    try:
        parser.close()
    except ijson.JSONError as exc:
        raise ImportFileError(file, f"line {line}", f"invalid JSON ({_first_line(exc)})") from None


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or ["not JSON"])[0][:120]
