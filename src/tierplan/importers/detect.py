"""Which format a file is, from its content (never its name)."""

from __future__ import annotations

import zlib

from tierplan.importers import registry
from tierplan.importers.errors import ImportFileError
from tierplan.importers.kernel_csv import is_nsys_kernel_csv
from tierplan.importers.ncu_csv import is_ncu_csv

TRACE = "torch_trace"
RESULTS = registry.RESULTS.name
CONSOLE = registry.CONSOLE.name
NSYS = "nsys_csv"
NCU = "ncu_csv"
KERNEL_CSV = "kernel_csv"
HEAD_BYTES = 65536
EXPECTED = (
    "expected benchmark results (vLLM or SGLang JSON or JSONL, an AIPerf or GuideLLM report), a pasted vLLM "
    "summary block, a PyTorch profiler trace (.json or .json.gz), or a kernel-summary CSV (nsys stats "
    "cuda_gpu_kern_sum, ncu --csv)"
)


def detect(head: bytes, file: str) -> str:
    """The format of a file from its first bytes; raises ImportFileError naming what was expected."""
    if not head:
        raise ImportFileError(file, "", "the file is empty")
    if head[:2] == b"\x1f\x8b":
        text = _gunzip_head(head, file)
        if '"traceEvents"' in text or '"schemaVersion"' in text:
            return TRACE
        raise ImportFileError(file, "", f"a gzip file that is not a PyTorch trace: {EXPECTED}")
    text = _text(head, file)
    stripped = text.lstrip()
    if not stripped:  # a blank file, or the start of a huge one: no format starts with 64 KiB of blanks
        where = "the file holds" if len(head) < HEAD_BYTES else f"its first {HEAD_BYTES >> 10} KiB hold"
        raise ImportFileError(file, "", f"{where} only spaces and line breaks: {EXPECTED}")
    if stripped.startswith(("{", "[")):
        if '"traceEvents"' in text or ('"schemaVersion"' in text and '"deviceProperties"' in text):
            return TRACE
        if stripped.startswith("[") and '"ph"' in text and '"ts"' in text and '"output_throughput"' not in text:
            return TRACE  # Chrome's JSON array format: a bare list of events
        return registry.json_format(text)
    if "Output token throughput" in text or "Serving Benchmark Result" in text:
        return CONSOLE
    named = registry.text_format(text)
    if named is not None:
        return named
    if is_ncu_csv(text):
        return NCU
    if is_nsys_kernel_csv(text):
        return NSYS
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.count(",") >= 1:
        return KERNEL_CSV
    raise ImportFileError(file, "line 1", EXPECTED)


def _gunzip_head(head: bytes, file: str) -> str:
    try:
        data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
    except zlib.error as exc:
        raise ImportFileError(file, "", f"the gzip stream is corrupt ({exc})") from None
    return data.decode("utf-8", errors="replace")


def _text(head: bytes, file: str) -> str:
    if b"\x00" in head[:4096]:
        raise ImportFileError(file, "", f"binary data, not text: {EXPECTED}")
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4:  # a multi-byte character cut at the end of the head
            return head[: exc.start].decode("utf-8")
        raise ImportFileError(file, f"byte {exc.start}", f"not UTF-8 text: {EXPECTED}") from None
