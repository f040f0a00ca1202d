"""PyTorch profiler Chrome traces (.json, .json.gz), as vLLM and SGLang write them, read as a stream.

GPU time is the `dur` (microseconds) of events whose `cat` is kernel, gpu_memcpy or gpu_memset,
summed by name. ijson walks `traceEvents` one event at a time, so memory stays flat on traces of
several GB. ProfilerStep#N annotations, where present, count the steps the trace covers.
"""

from __future__ import annotations

import gzip
import zlib
from typing import BinaryIO

import ijson

from app.importers.errors import ImportFileError
from app.importers.records import KernelSummary

# current Kineto writes kernel / gpu_memcpy / gpu_memset; older PyTorch wrote Kernel / Memcpy / Memset
GPU_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
GZIP_MAGIC = b"\x1f\x8b"


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


def _events_prefix(stream) -> tuple[str, Prefixed]:
    """'traceEvents.item' for PyTorch's object format, 'item' for Chrome's bare JSON array format."""
    head = stream.read(256)
    first = head.lstrip()[:1]
    return ("item" if first == b"[" else "traceEvents.item"), Prefixed(head, stream)


def parse_trace(raw: BinaryIO, file: str, on_progress=None) -> KernelSummary:
    """Kernel times of one trace file; raises ImportFileError on a truncated or malformed file."""
    counted = CountingReader(raw, on_progress)
    stream = gzip.GzipFile(fileobj=counted) if _peek(raw) == GZIP_MAGIC else counted
    summary = KernelSummary("torch_trace", files=[file])
    first, last, steps, events = None, None, set(), 0
    try:
        prefix, stream = _events_prefix(stream)
        for event in ijson.items(stream, prefix, use_float=True):
            events += 1
            if not isinstance(event, dict):
                continue
            name = event.get("name")
            category = event.get("cat")
            if isinstance(category, str) and category.lower() in GPU_CATEGORIES and event.get("ph", "X") == "X":
                start, duration = event.get("ts"), event.get("dur")
                if not isinstance(duration, int | float) or not isinstance(start, int | float) or not name:
                    raise ImportFileError(file, f"event {events}", "a GPU event needs a name, ts and dur")
                summary.add(str(name), float(duration))
                first = start if first is None else min(first, start)
                last = start + duration if last is None else max(last, start + duration)
            elif isinstance(name, str) and name.startswith("ProfilerStep#"):
                steps.add(name)
    except ImportFileError:
        raise
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ImportFileError(file, f"byte {counted.read_bytes}", f"the gzip stream is truncated or corrupt ({exc})") from None
    except ijson.JSONError as exc:
        where = f"event {events + 1}, near byte {counted.read_bytes}"
        raise ImportFileError(file, where, f"invalid JSON ({str(exc).splitlines()[0][:120]})") from None
    if events == 0:
        raise ImportFileError(file, "", "expected a Chrome trace with a traceEvents list")
    if not summary.kernels:
        raise ImportFileError(file, "", "the trace has no GPU events (kernel, gpu_memcpy, gpu_memset): "
                                        "was it profiled with CUDA activities?")
    summary.gpu_span_us = (last - first) if first is not None else None
    summary.steps_found = len(steps) or None
    return summary


def _peek(raw: BinaryIO) -> bytes:
    if hasattr(raw, "peek"):
        return raw.peek(2)[:2]
    position = raw.tell()
    head = raw.read(2)
    raw.seek(position)
    return head


def parse_traces(files: list[tuple[str, BinaryIO]], on_progress=None) -> KernelSummary:
    """The trace files of one run (one per rank) taken together."""
    merged = KernelSummary("torch_trace")
    for name, raw in files:
        merged.merge(parse_trace(raw, name, on_progress))
    return merged
