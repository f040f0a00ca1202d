"""Which GPU items a trace's host side says belong to a bucket whatever their kernels are called: the name prefix
each item gets before the bucket rules (buckets.py) read it.

- An MoE router in eager PyTorch: a softmax (or sigmoid) op directly followed by top-k; its kernels are `moe`.
- Attention: every kernel launched inside an attention function (ATTENTION_SPAN), eager attention's bmm and
  softmax included, whatever cuBLAS or PyTorch call them.
Both read the host spans of the thread that launched each item (trace_events.TraceColumns).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tierplan.importers.trace_events import TraceColumns

SOFTMAX_OPS = {"aten::softmax", "aten::_softmax", "aten::sigmoid", "aten::sigmoid_"}
TOPK_OPS = {"aten::topk"}
ROUTER_TAG = "[router] "  # kernels of a softmax (or sigmoid) op followed by top-k: an MoE router
ATTENTION_TAG = "[attention] "  # kernels launched inside an attention function: eager attention's matmuls too
# The host spans (Python functions and ops, with_stack traces record both) inside which every kernel is attention:
# transformers' eager_attention_forward / sdpa_attention_forward / flash_attention_forward, torch's
# scaled_dot_product_attention op (its math backend launches plain bmm and softmax kernels), vLLM's
# unified_attention. Not the attention module itself: its q, k, v and o projections are GEMMs.
ATTENTION_SPAN = re.compile(r"attention_forward\b|scaled_dot_product_attention|unified_attention")


@dataclass
class TopLevel:
    """Outermost host spans of each thread, in time order."""

    ts: dict[int, np.ndarray]
    end: dict[int, np.ndarray]
    name: dict[int, np.ndarray]


def top_level(columns: TraceColumns) -> TopLevel:
    ts = np.frombuffer(columns.host_ts, dtype=np.float64)
    dur = np.frombuffer(columns.host_dur, dtype=np.float64)
    name = np.frombuffer(columns.host_name, dtype=np.int64)
    tid = np.frombuffer(columns.host_tid, dtype=np.int64)
    out = TopLevel({}, {}, {})
    for thread in np.unique(tid):
        mine = np.flatnonzero(tid == thread)
        order = mine[np.lexsort((-dur[mine], ts[mine]))]
        keep, current_end = [], -np.inf
        for index in order:
            if ts[index] >= current_end:
                keep.append(index)
                current_end = ts[index] + dur[index]
            elif ts[index] + dur[index] > current_end:
                current_end = ts[index] + dur[index]  # overlapping siblings: treat as one outer span
        keep_arr = np.array(keep, dtype=np.int64)
        out.ts[int(thread)] = ts[keep_arr]
        out.end[int(thread)] = ts[keep_arr] + dur[keep_arr]
        out.name[int(thread)] = name[keep_arr]
    return out


def router_tags(columns, tops: TopLevel, launch_ts, launch_tid) -> np.ndarray:
    """True for GPU items launched by an MoE router: a softmax (or sigmoid) op directly followed by top-k."""
    names = columns.names.values
    softmax = [i for i, n in enumerate(names) if n in SOFTMAX_OPS]
    topk = [i for i, n in enumerate(names) if n in TOPK_OPS]
    tagged = np.zeros(len(launch_ts), dtype=bool)
    if not softmax or not topk:
        return tagged
    for thread, op_name in tops.name.items():
        router = np.isin(op_name[:-1], softmax) & np.isin(op_name[1:], topk)
        if not router.any():
            continue
        marked = np.zeros(len(op_name), dtype=bool)
        marked[:-1] |= router
        marked[1:] |= router
        mine = launch_tid == thread
        index = np.searchsorted(tops.ts[thread], launch_ts[mine], side="right") - 1
        inside = (index >= 0) & (launch_ts[mine] < tops.end[thread][np.maximum(index, 0)])
        tagged[np.flatnonzero(mine)] = inside & marked[np.maximum(index, 0)]
    return tagged


def attention_tags(columns, launch_ts: np.ndarray, launch_tid: np.ndarray) -> np.ndarray:
    """True for GPU items whose launch call ran inside an attention function (ATTENTION_SPAN), at any depth."""
    ids = [i for i, n in enumerate(columns.names.values) if ATTENTION_SPAN.search(n)]
    tagged = np.zeros(len(launch_ts), dtype=bool)
    if not ids:
        return tagged
    chosen = np.isin(np.frombuffer(columns.host_name, dtype=np.int64), ids)
    starts_all = np.frombuffer(columns.host_ts, dtype=np.float64)[chosen]
    ends_all = starts_all + np.frombuffer(columns.host_dur, dtype=np.float64)[chosen]
    tids = np.frombuffer(columns.host_tid, dtype=np.int64)[chosen]
    for thread in np.unique(tids).tolist():
        starts, ends = np.sort(starts_all[tids == thread]), np.sort(ends_all[tids == thread])
        mine = np.flatnonzero(launch_tid == thread)
        at = launch_ts[mine]
        open_spans = np.searchsorted(starts, at, side="right") - np.searchsorted(ends, at, side="right")
        tagged[mine] = open_spans > 0
    return tagged


def tags_of(router: np.ndarray, attention: np.ndarray) -> np.ndarray:
    """The prefix each GPU item's name gets: the router's, else attention's, else none."""
    return np.where(router, ROUTER_TAG, np.where(attention, ATTENTION_TAG, ""))
