"""Stream a PyTorch profiler Chrome trace into compact columns (numbers in arrays, names interned).

ijson walks `traceEvents` one event at a time; what the step analysis needs of each event is kept
in typed arrays (about 40 bytes an event), so memory stays a small fraction of what `json.load`
takes, and nothing of an event but its name, times, thread, correlation id and (a kernel's) blocks per SM survives
the walk.

Kept: GPU work (`kernel`, `gpu_memcpy`, `gpu_memset`; older PyTorch wrote `Kernel`, `Memcpy`,
`Memset`), host spans (`cpu_op`, `user_annotation`, `python_function`, older `operator`; a
`gpu_user_annotation` is the GPU-side copy of an annotation, on GPU time, and is left out: read as a
host span it would cut every step twice), and the CUDA runtime and driver calls that carry a
`correlation` id (the launches that tie a kernel to the host op that issued it).
"""

from __future__ import annotations

import gzip
import math
import zlib
from array import array
from dataclasses import dataclass, field
from typing import Any, BinaryIO, cast

import ijson

from tierplan.importers.errors import ImportFileError
from tierplan.importers.json_depth import DepthGuard, TooDeep

GPU_CATEGORIES = {"kernel": 0, "gpu_memcpy": 1, "memcpy": 1, "gpu_memset": 2, "memset": 2}
HOST_CATEGORIES = {"cpu_op", "user_annotation", "python_function", "operator"}  # not gpu_user_annotation: GPU time
RUNTIME_CATEGORIES = {"cuda_runtime", "cuda_driver", "runtime", "driver"}
GZIP_MAGIC = b"\x1f\x8b"
MAX_GRID_BLOCKS = (2**31 - 1) * 65535 * 65535  # a CUDA grid's x, y and z limits: no more blocks than that, on one SM


class CountingReader:
    """Wraps a binary stream to count the bytes read (for progress and for error positions)."""

    def __init__(self, raw: BinaryIO, on_progress=None):
        self.raw, self.read_bytes, self.on_progress = raw, 0, on_progress

    def read(self, size: int = -1) -> bytes:
        chunk = self.raw.read(size)
        self.read_bytes += len(chunk)
        if self.on_progress is not None:
            self.on_progress(len(chunk))
        return chunk


MAX_GZIP_RATIO = 100  # profiler traces compress 10-30x; far more is a gzip bomb
RATIO_CHECK_AFTER = 8 << 20  # decompressed bytes before the ratio is judged (a small file's header may pack well)
MAX_VALUE_BYTES = 4 << 20  # the longest string a trace holds is a kernel name of kilobytes


class Bounded:
    """The trace's JSON as it is parsed, refused (ImportFileError) when it is no profiler trace: a gzip stream
    that expands more than MAX_GZIP_RATIO times, or a value longer than MAX_VALUE_BYTES (one huge string would
    take the parser minutes)."""

    def __init__(self, stream: BinaryIO, counted: CountingReader, file: str, gzipped: bool):
        self.stream, self.counted, self.file, self.gzipped = stream, counted, file, gzipped
        self.given, self.since_quote = 0, 0
        self.depth = DepthGuard()

    def read(self, size: int = -1) -> bytes:
        chunk = self.stream.read(size if size >= 0 else 1 << 20)
        self.given += len(chunk)
        if self.gzipped and self.given > RATIO_CHECK_AFTER and self.given > MAX_GZIP_RATIO * self.counted.read_bytes:
            raise ImportFileError(self.file, f"decompressed byte {self.given:,}",
                                  f"the gzip stream expands more than {MAX_GZIP_RATIO}x: not a profiler trace "
                                  "(a gzip bomb?)")
        quote = chunk.rfind(b'"')
        if quote >= 0:
            self.since_quote = len(chunk) - quote - 1
        elif chunk.strip():  # whitespace alone is no value (the parser refuses a file of nothing else)
            self.since_quote += len(chunk)
        if self.since_quote > MAX_VALUE_BYTES:
            raise ImportFileError(self.file, f"byte {self.given:,}",
                                  f"a single value longer than {MAX_VALUE_BYTES >> 20} MiB: not a profiler trace")
        try:
            self.depth.check(chunk)
        except TooDeep as exc:
            raise ImportFileError(self.file, f"line {exc.line}", exc.reason + ": not a profiler "
                                  "trace (a nesting bomb?)") from None
        return chunk


class Prefixed:
    """A stream that yields `head` first, then the rest of `raw` (to look at a stream's start)."""

    def __init__(self, head: bytes, raw):
        self.head, self.raw = head, raw

    def read(self, size: int = -1) -> bytes:
        if self.head:
            if size < 0 or size >= len(self.head):
                chunk, self.head = self.head, b""
                rest = self.raw.read(size - len(chunk) if size > 0 else -1)
                return chunk + rest
            chunk, self.head = self.head[:size], self.head[size:]
            return chunk
        return self.raw.read(size)


class Names:
    """Interned strings: each distinct name is stored once, events keep its index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.values: list[str] = []

    def id(self, name: str) -> int:
        found = self.index.get(name)
        if found is None:
            found = self.index[name] = len(self.values)
            self.values.append(name)
        return found


@dataclass
class TraceColumns:
    """One trace file's events, column by column. Times are microseconds as the trace gives them."""

    file: str
    names: Names = field(default_factory=Names)
    gpu_ts: array = field(default_factory=lambda: array("d"))
    gpu_dur: array = field(default_factory=lambda: array("d"))
    gpu_name: array = field(default_factory=lambda: array("q"))
    gpu_corr: array = field(default_factory=lambda: array("q"))
    gpu_stream: array = field(default_factory=lambda: array("q"))
    gpu_kind: array = field(default_factory=lambda: array("b"))  # 0 kernel, 1 memcpy, 2 memset
    gpu_blocks: array = field(default_factory=lambda: array("d"))  # a kernel's "blocks per SM" (NaN: not said)
    host_ts: array = field(default_factory=lambda: array("d"))
    host_dur: array = field(default_factory=lambda: array("d"))
    host_name: array = field(default_factory=lambda: array("q"))
    host_tid: array = field(default_factory=lambda: array("q"))
    rt_ts: array = field(default_factory=lambda: array("d"))
    rt_dur: array = field(default_factory=lambda: array("d"))
    rt_name: array = field(default_factory=lambda: array("q"))
    rt_corr: array = field(default_factory=lambda: array("q"))
    rt_tid: array = field(default_factory=lambda: array("q"))
    devices: list[str] = field(default_factory=list)  # deviceProperties[].name
    events: int = 0


def _args(event: dict[str, Any]) -> dict[str, Any]:
    args = event.get("args")
    return args if isinstance(args, dict) else {}


def open_trace(raw: BinaryIO, on_progress=None, file: str = ""):
    """The decompressed event stream of a .json or .json.gz trace (bounded: see Bounded), and its byte counter."""
    counted = CountingReader(raw, on_progress)
    if _peek(raw) != GZIP_MAGIC:
        return Bounded(cast(BinaryIO, counted), counted, file, gzipped=False), counted
    return Bounded(cast(BinaryIO, gzip.GzipFile(fileobj=cast(BinaryIO, counted))), counted, file, gzipped=True), counted


def read_columns(raw: BinaryIO, file: str, on_progress=None) -> TraceColumns:
    """Every event the analysis needs, in columns; raises ImportFileError on a truncated or malformed file."""
    columns = TraceColumns(file)
    if hasattr(raw, "seek"):
        columns.devices = _device_names(raw, file)
        raw.seek(0)
    stream, counted = open_trace(raw, on_progress, file)
    try:
        prefix, stream = _events_prefix(stream)
        for event in ijson.items(stream, prefix, use_float=True):
            columns.events += 1
            if isinstance(event, dict):
                _keep(columns, event)
    except ImportFileError:
        raise
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ImportFileError(file, f"byte {counted.read_bytes}",
                              f"the gzip stream is truncated or corrupt ({exc})") from None
    except ijson.JSONError as exc:
        where = f"event {columns.events + 1}, near byte {counted.read_bytes}"
        raise ImportFileError(file, where, f"invalid JSON ({str(exc).splitlines()[0][:120]})") from None
    if columns.events == 0:
        raise ImportFileError(file, "", "expected a Chrome trace with a traceEvents list")
    if not columns.gpu_ts:
        raise ImportFileError(file, "", "the trace has no GPU events (kernel, gpu_memcpy, gpu_memset): "
                                        "was it profiled with CUDA activities?")
    return columns


def _keep(columns: TraceColumns, event: dict) -> None:
    category = event.get("cat")
    if not isinstance(category, str) or event.get("ph", "X") != "X":
        return
    category = category.lower()
    name, ts, dur = event.get("name"), event.get("ts"), event.get("dur")
    kind = GPU_CATEGORIES.get(category)
    if kind is not None:
        if not name or not isinstance(ts, int | float) or not isinstance(dur, int | float):
            raise ImportFileError(columns.file, f"event {columns.events}", "a GPU event needs a name, ts and dur")
        args = _args(event)
        columns.gpu_ts.append(float(ts))
        columns.gpu_dur.append(float(dur))
        columns.gpu_name.append(columns.names.id(str(name)))
        columns.gpu_corr.append(_int(args.get("correlation")))
        columns.gpu_stream.append(_int(args.get("stream", event.get("tid"))))
        columns.gpu_kind.append(kind)
        columns.gpu_blocks.append(_blocks(args.get("blocks per SM")))
        return
    if not isinstance(ts, int | float) or not isinstance(dur, int | float) or not isinstance(name, str):
        return
    if category in HOST_CATEGORIES:
        columns.host_ts.append(float(ts))
        columns.host_dur.append(float(dur))
        columns.host_name.append(columns.names.id(name))
        columns.host_tid.append(columns.names.id(f"tid:{event.get('pid')}:{event.get('tid')}"))
    elif category in RUNTIME_CATEGORIES:
        args = _args(event)
        correlation = args.get("correlation")
        if correlation is None:
            return
        columns.rt_ts.append(float(ts))
        columns.rt_dur.append(float(dur))
        columns.rt_name.append(columns.names.id(name))
        columns.rt_corr.append(_int(correlation))
        columns.rt_tid.append(columns.names.id(f"tid:{event.get('pid')}:{event.get('tid')}"))


def _blocks(value: Any) -> float:
    """A kernel's blocks per SM as the trace says it; NaN where it says none, or no count (a bool, a negative number,
    more blocks than a CUDA grid holds: their mean over a step's launches would overflow to infinity)."""
    if type(value) not in (int, float) or not 0 <= value <= MAX_GRID_BLOCKS:
        return math.nan
    return float(value)


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _events_prefix(stream) -> tuple[str, Prefixed]:
    """'traceEvents.item' for PyTorch's object format, 'item' for Chrome's bare JSON array format."""
    head = stream.read(256)
    first = head.lstrip()[:1]
    return ("item" if first == b"[" else "traceEvents.item"), Prefixed(head, stream)


def _device_names(raw: BinaryIO, file: str) -> list[str]:
    """deviceProperties[].name, read from the head of the file; stops at traceEvents (PyTorch writes it first)."""
    names: list[str] = []
    try:
        stream, _ = open_trace(raw, file=file)
        for prefix, event, value in ijson.parse(stream):
            if prefix == "" and (event == "start_array" or (event == "map_key" and value == "traceEvents")):
                break  # Chrome's bare array format has no deviceProperties; PyTorch writes them first
            if prefix == "deviceProperties.item.name" and event == "string":
                names.append(value)
            elif prefix == "deviceProperties" and event == "end_array":
                break
    except (ijson.JSONError, EOFError, OSError, zlib.error, gzip.BadGzipFile):
        pass  # the main pass reports what is wrong with the file
    return names


def _peek(raw: BinaryIO) -> bytes:
    if hasattr(raw, "peek"):
        return raw.peek(2)[:2]
    position = raw.tell()
    head = raw.read(2)
    raw.seek(position)
    return head
