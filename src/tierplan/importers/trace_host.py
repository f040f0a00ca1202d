"""The launching thread's own time a decode step: what the host spent issuing it, apart from waiting for the GPU.

A pass's host time is its span on the thread that launches its work (from the pass's start to the next pass's, or
to a ProfilerStep's own end) less the runtime calls in it that wait for the GPU: synchronisations (stream, device,
event) and copies read back to the host (a sampled token read back blocks until the GPU is done with the step).

In a host-bound step it is the step. In a GPU-bound one it is the host cost the step hides, which the measured step
cannot show: a graph replay's Python and launch call, the 127 copies a compiled path issues beside its replay
(tests/data/graphs_hf: 15% of each 42 ms step in the trace at batch 64). It is kept as a share of the traced step,
so that the profiler's slowing (the host's more than the GPU's) does not make it longer than the step measured
without it, and the import takes that share of the measured step. The median over the steps: the first after the
profiler starts runs long.
"""

from __future__ import annotations

import numpy as np

from tierplan.importers.trace_events import TraceColumns

WAIT_WORD = "Synchronize"  # cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, cuStreamSynchronize
READ_BACK_WORD = "DtoH"  # a GPU memcpy named "Memcpy DtoH (Device -> Pinned)": its call waits for the stream


def host_share(columns: TraceColumns, starts: np.ndarray, ends: np.ndarray, passes: list[int],
               thread: int | None) -> float | None:
    """The median share of the given passes' spans (indices into `starts`/`ends`, a pass's end NaN where the trace
    does not say) that `thread` spent apart from waits for the GPU; None where no such pass has an end or no thread
    launched the work."""
    if thread is None:
        return None
    known = [p for p in passes if 0 <= p < len(starts) and np.isfinite(ends[p]) and ends[p] > starts[p]]
    if not known:
        return None
    wait_start, wait_end = _waits(columns, thread)
    shares = []
    for p in known:
        start, end = float(starts[p]), float(ends[p])
        inside = np.clip(np.minimum(wait_end, end) - np.maximum(wait_start, start), 0.0, None).sum()
        shares.append(min(max(1 - float(inside) / (end - start), 0.0), 1.0))
    return float(np.median(shares))


def _waits(columns: TraceColumns, thread: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of each runtime call on `thread` that waits for the GPU."""
    names = columns.names.values
    rt_name = np.frombuffer(columns.rt_name, dtype=np.int64)
    rt_ts = np.frombuffer(columns.rt_ts, dtype=np.float64)
    rt_dur = np.frombuffer(columns.rt_dur, dtype=np.float64)
    rt_tid = np.frombuffer(columns.rt_tid, dtype=np.int64)
    sync_ids = [i for i, n in enumerate(names) if WAIT_WORD in n]
    read_back_ids = [i for i, n in enumerate(names) if READ_BACK_WORD in n]
    gpu_name = np.frombuffer(columns.gpu_name, dtype=np.int64)
    gpu_corr = np.frombuffer(columns.gpu_corr, dtype=np.int64)
    read_back_corr = gpu_corr[np.isin(gpu_name, read_back_ids) & (gpu_corr >= 0)]
    rt_corr = np.frombuffer(columns.rt_corr, dtype=np.int64)
    waiting = (rt_tid == thread) & (np.isin(rt_name, sync_ids) | np.isin(rt_corr, read_back_corr))
    return rt_ts[waiting], rt_ts[waiting] + rt_dur[waiting]
