"""PyTorch profiler Chrome traces (.json, .json.gz), as vLLM and SGLang write them, read as a stream.

The events are streamed into compact columns (trace_events), split into forward passes with
prefill told from decode (trace_steps), and summarised: GPU time by kernel name over the decode
steps only, and what one decode step costs (busy and idle GPU time, work items, launches).
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np

from tierplan.importers.errors import ImportFileError
from tierplan.importers.records import KernelSummary
from tierplan.importers.trace_events import read_columns
from tierplan.importers.trace_steps import FragmentedTrace, StepStats, analyse


def parse_trace(raw: BinaryIO, file: str, on_progress=None, exclude_first: int = 0,
                steps_hint: int | None = None) -> KernelSummary:
    """Kernel times of one trace file's decode steps; raises ImportFileError on a truncated or malformed file, or
    one whose steps cannot be told apart (`steps_hint`: how many decode steps the user says it holds)."""
    columns = read_columns(raw, file, on_progress)
    try:
        analysis = analyse(columns, exclude_first, steps_hint)
    except FragmentedTrace as exc:
        raise ImportFileError(file, "", str(exc)) from None
    summary = KernelSummary("torch_trace", files=[file], devices=list(columns.devices))
    for name, (total_us, count) in analysis.kernels.items():
        summary.add(name, total_us, int(count))
    summary.steps = analysis.steps
    summary.blocks_per_sm = analysis.blocks_per_sm
    summary.steps_found = analysis.steps.decode_steps if analysis.steps else None
    summary.whole_trace_gpu_us = analysis.all_gpu_us
    starts = np.frombuffer(columns.gpu_ts, dtype=np.float64)
    summary.gpu_span_us = float((starts + np.frombuffer(columns.gpu_dur, dtype=np.float64)).max() - starts.min())
    return summary


def parse_traces(files: list[tuple[str, BinaryIO]], on_progress=None, exclude_first: int = 0,
                 steps_hint: int | None = None) -> KernelSummary:
    """The trace files of one run (one per rank) taken together."""
    merged = KernelSummary("torch_trace")
    for name, raw in files:
        merged.merge(parse_trace(raw, name, on_progress, exclude_first, steps_hint))
    return merged


__all__ = ["StepStats", "parse_trace", "parse_traces"]
