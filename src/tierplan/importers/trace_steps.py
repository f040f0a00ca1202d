"""A trace split into forward passes, prefill told from decode, and what one decode step costs.

How passes are found, first that applies:
1. `ProfilerStep#N` spans (torch.profiler's schedule writes them): one pass each.
2. A host span that starts every pass: among the spans of the launching thread (ops, modules,
   annotations, at any depth), a name that cuts the GPU work into near-equal pieces, the first piece
   aside (a prefill may differ). Where the thread synchronises with the GPU (the sampled token read
   back), each piece must hold at least one synchronisation: a span that repeats every layer cuts a
   step into parts that hold none, and is never taken. Of the rest, the count the user gave
   (`steps`, plus a prefill) first, then the most pieces. In a Hugging Face or vLLM decode loop this
   is the token embedding (`aten::embedding`) or a `forward` annotation. Where only spans that cut a
   step into parts are found, the trace is refused with a message saying so (FRAGMENTED).
3. One `cudaGraphLaunch` a pass, when graph replays launch the work.
A kernel belongs to the pass its launch call falls in: the kernel's `correlation` id names the
runtime call (cudaLaunchKernel, cudaGraphLaunch, cudaMemcpyAsync, ...) that issued it.

Prefill or decode: the last pass is taken as a decode step. A pass whose kernels are the same as the
last pass's (weighted Jaccard similarity of kernel-name counts at least 0.9) and whose GPU time is
within 0.8-1.25x is decode; a leading pass that differs clearly (similarity below 0.8, or 1.3x the
GPU time) is a prefill; in between, detection cannot decide: the pass is counted as decode and the
preview says so, and the user can exclude the first passes.

Per decode step: GPU busy time (sum of kernel, memcpy and memset durations), GPU idle time in the
trace (span of the step's GPU work minus busy; a profiler inflates host time, so this is not the
unprofiled idle time), GPU work items and host launch calls (a graph replay is one launch for many
items), and, where the GPU ran items back to back (queued behind each other, as in a graph replay),
the median gap between them: the GPU's own per-launch cost; and the launching thread's own time, apart from
waiting for the GPU (trace_host.py), which a GPU-bound step hides.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tierplan.importers.trace_events import TraceColumns
from tierplan.importers.trace_host import host_share
from tierplan.importers.trace_tags import TopLevel, attention_tags, router_tags, tags_of, top_level

LAUNCH_WORDS = ("Launch", "Memcpy", "Memset")
GRAPH_LAUNCHES = ("cudaGraphLaunch", "cuGraphLaunch")
DECODE_SIMILARITY, PREFILL_SIMILARITY = 0.9, 0.8
DECODE_BUSY_RANGE, PREFILL_BUSY_RATIO = (0.8, 1.25), 1.3
MIN_QUEUED_GAPS = 20
FRAGMENTED = ("its forward passes could not be found: the host spans that repeat through it ({name}, {count} of "
              "them) cut each decode step into parts that never read the sampled token back (a layer each, "
              "{items:.0f} GPU items a part); record the trace with torch.profiler's schedule and prof.step() after "
              "each step (ProfilerStep markers), or as vLLM's profiler does")


class FragmentedTrace(ValueError):
    """The only pass boundaries found cut decode steps into parts (the message says which and what to do)."""


@dataclass(frozen=True)
class PassInfo:
    number: int  # 1-based, in trace order
    role: str  # prefill, decode, undecided (counted as decode), excluded, other
    items: int  # GPU work items: kernels, memcpys, memsets
    host_launches: int
    busy_us: float
    span_us: float
    similarity: float  # to the last pass
    busy_ratio: float  # GPU time over a decode step's


@dataclass
class StepStats:
    """What one decode step of the trace costs, averaged over its decode steps (and rank files)."""

    decode_steps: int
    method: str  # how the passes were found
    busy_ms: float
    trace_idle_ms: float
    gpu_items: float
    host_launches: float
    gpu_gap_us: float | None  # measured between back-to-back items, when enough queued
    host_share: float | None = None  # of a step's span, the launching thread's time apart from waits (trace_host.py)
    passes: list[PassInfo] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def host_ms(self, step_ms: float | None) -> float | None:
        """The host's time apart from waits (ms) in a step measured at `step_ms` without the profiler: its share of
        the traced step, of that step (the profiler slows the host more than the GPU)."""
        return None if self.host_share is None or step_ms is None else self.host_share * step_ms


@dataclass(frozen=True)
class Passes:
    """Where the passes are: each GPU item's pass index (-1 before the first), how they were found, and each pass's
    start and end on the host (an end NaN where the trace does not say)."""

    pass_of: np.ndarray
    method: str
    starts: np.ndarray
    ends: np.ndarray


@dataclass
class TraceAnalysis:
    kernels: dict[str, list[float]]  # decode steps only: name -> [total_us, count]
    steps: StepStats | None  # None when no pass boundaries were found
    all_gpu_us: float  # over the whole trace, prefill included
    blocks_per_sm: dict[str, float] = field(default_factory=dict)  # decode steps: name -> mean, where the trace said


def analyse(columns: TraceColumns, exclude_first: int = 0, steps_hint: int | None = None) -> TraceAnalysis:
    """Split the trace into passes and keep the decode steps (all GPU work when no passes are found); raises
    FragmentedTrace when the only boundaries found cut steps into parts."""
    names = columns.names.values
    gpu = _gpu_arrays(columns)
    launch_ts, launch_tid, launch_key, is_graph = _launches_of(columns, gpu["corr"])
    tops = top_level(columns)
    passes = _passes(columns, tops, launch_ts, launch_tid, is_graph, steps_hint)
    tags = tags_of(router_tags(columns, tops, launch_ts, launch_tid), attention_tags(columns, launch_ts, launch_tid))
    all_us = float(gpu["dur"].sum())
    if passes is None:
        everything = np.ones(len(gpu["ts"]), bool)
        return TraceAnalysis(_kernels(names, gpu, everything, tags), None, all_us, _blocks(names, gpu, everything, tags))
    pass_of = passes.pass_of
    infos = _pass_infos(names, gpu, pass_of, launch_key, exclude_first)
    decode_passes = [p.number - 1 for p in infos if p.role in ("decode", "undecided")]
    decode = np.isin(pass_of, decode_passes)
    counted = [p for p in infos if p.role in ("decode", "undecided")]
    n = len(counted)
    stats = StepStats(
        decode_steps=n,
        method=passes.method,
        busy_ms=sum(p.busy_us for p in counted) / n / 1000,
        trace_idle_ms=sum(max(p.span_us - p.busy_us, 0.0) for p in counted) / n / 1000,
        gpu_items=sum(p.items for p in counted) / n,
        host_launches=sum(p.host_launches for p in counted) / n,
        gpu_gap_us=_queued_gap_us(columns, gpu, decode, launch_key),
        host_share=host_share(columns, passes.starts, passes.ends, decode_passes, _main_thread(launch_tid)),
        passes=infos,
        notes=_notes(infos, exclude_first),
    )
    return TraceAnalysis(_kernels(names, gpu, decode, tags), stats, all_us, _blocks(names, gpu, decode, tags))


def _gpu_arrays(columns: TraceColumns) -> dict[str, np.ndarray]:
    return {
        "ts": np.frombuffer(columns.gpu_ts, dtype=np.float64),
        "dur": np.frombuffer(columns.gpu_dur, dtype=np.float64),
        "name": np.frombuffer(columns.gpu_name, dtype=np.int64),
        "corr": np.frombuffer(columns.gpu_corr, dtype=np.int64),
        "stream": np.frombuffer(columns.gpu_stream, dtype=np.int64),
        "blocks": np.frombuffer(columns.gpu_blocks, dtype=np.float64),
    }


def _launches_of(columns: TraceColumns, gpu_corr: np.ndarray):
    """For each GPU item: when and on which thread its launch call ran, a key per launch, graph or not."""
    names = columns.names.values
    launch_ids = [i for i, n in enumerate(names) if any(w in n for w in LAUNCH_WORDS)]
    graph_ids = [i for i, n in enumerate(names) if n in GRAPH_LAUNCHES]
    rt_name = np.frombuffer(columns.rt_name, dtype=np.int64)
    keep = np.isin(rt_name, launch_ids)
    rt_corr = np.frombuffer(columns.rt_corr, dtype=np.int64)[keep]
    rt_ts = np.frombuffer(columns.rt_ts, dtype=np.float64)[keep]
    rt_tid = np.frombuffer(columns.rt_tid, dtype=np.int64)[keep]
    rt_graph = np.isin(rt_name[keep], graph_ids)
    order = np.argsort(rt_corr, kind="stable")
    rt_corr, rt_ts, rt_tid, rt_graph = rt_corr[order], rt_ts[order], rt_tid[order], rt_graph[order]
    where = np.searchsorted(rt_corr, gpu_corr)
    where = np.minimum(where, max(len(rt_corr) - 1, 0))
    found = (len(rt_corr) > 0) & (rt_corr[where] == gpu_corr) if len(rt_corr) else np.zeros(len(gpu_corr), bool)
    gpu_ts = np.frombuffer(columns.gpu_ts, dtype=np.float64)
    launch_ts = np.where(found, rt_ts[where] if len(rt_corr) else 0.0, gpu_ts)
    launch_tid = np.where(found, rt_tid[where] if len(rt_corr) else -1, -1)
    # an item without a launch call is its own launch
    launch_key = np.where(found, gpu_corr, -1 - np.arange(len(gpu_corr)))
    is_graph = np.where(found, rt_graph[where] if len(rt_corr) else False, False)
    return launch_ts, launch_tid, launch_key, is_graph


def _passes(columns, tops: TopLevel, launch_ts, launch_tid, is_graph, steps_hint: int | None = None
            ) -> Passes | None:
    """Pass index of every GPU item, how the passes were found, and their bounds; None when none were."""
    names = columns.names.values
    steps = [i for i, n in enumerate(names) if n.startswith("ProfilerStep#")]
    if steps:
        host_name = np.frombuffer(columns.host_name, dtype=np.int64)
        chosen = np.isin(host_name, steps)
        host_ts = np.frombuffer(columns.host_ts, dtype=np.float64)[chosen]
        order = np.argsort(host_ts, kind="stable")
        starts = host_ts[order]
        if len(starts) >= 1:
            ends = starts + np.frombuffer(columns.host_dur, dtype=np.float64)[chosen][order]
            return Passes(_assign(launch_ts, starts), f"{len(starts)} ProfilerStep markers", starts, ends)
    main = _main_thread(launch_tid)
    if main is not None and main in tops.ts:
        host_tid = np.frombuffer(columns.host_tid, dtype=np.int64)
        mine = host_tid == main
        spans = (np.frombuffer(columns.host_ts, dtype=np.float64)[mine],
                 np.frombuffer(columns.host_name, dtype=np.int64)[mine])
        found = _marker(spans, launch_ts[launch_tid == main], names, _sync_times(columns, main), steps_hint)
        if found is not None:
            name, starts = found
            return Passes(_assign(launch_ts, starts), f"{name} at the start of each pass ({len(starts)} found)",
                          starts, _next_starts(starts))
    if is_graph.mean() >= 0.8:
        graph_ts = np.unique(launch_ts[is_graph])
        if len(graph_ts) >= 2:
            return Passes(_assign(launch_ts, graph_ts), f"one cudaGraphLaunch a pass ({len(graph_ts)} replays)",
                          graph_ts, _next_starts(graph_ts))
    return None


def _next_starts(starts: np.ndarray) -> np.ndarray:
    """Each pass ends where the next starts; the last one's end is unknown (NaN)."""
    return np.append(np.sort(starts)[1:], np.nan)


def _sync_times(columns, thread: int) -> np.ndarray:
    """When the launching thread waited for the GPU (stream, device or event synchronisation)."""
    names = columns.names.values
    sync_ids = [i for i, n in enumerate(names) if "Synchronize" in n]
    rt_name = np.frombuffer(columns.rt_name, dtype=np.int64)
    mine = np.isin(rt_name, sync_ids) & (np.frombuffer(columns.rt_tid, dtype=np.int64) == thread)
    return np.sort(np.frombuffer(columns.rt_ts, dtype=np.float64)[mine])


def _main_thread(launch_tid: np.ndarray) -> int | None:
    known = launch_tid[launch_tid >= 0]
    if not len(known):
        return None
    values, counts = np.unique(known, return_counts=True)
    return int(values[np.argmax(counts)])


def _marker(spans, item_ts: np.ndarray, names, sync_ts: np.ndarray, steps_hint: int | None = None
            ) -> tuple[str, np.ndarray] | None:
    """The host span (an op, a module, an annotation, at any depth) that starts every pass.

    Candidates cut the GPU work into near-equal pieces (the first aside: a prefill may differ). Where the
    thread synchronises, a candidate whose pieces do not each hold a synchronisation (the sampled token
    read back) cuts steps into parts: left out, and FragmentedTrace raised when nothing else is found.
    Of the others, the count the user gave (steps, or steps and a prefill) first, then the most pieces
    (a whole generate() call repeated is coarser than its steps).
    """
    item_ts = np.sort(item_ts)
    total = len(item_ts)
    op_ts, op_name = spans
    order = np.argsort(op_ts, kind="stable")
    op_ts, op_name = op_ts[order], op_name[order]
    ids, counts = np.unique(op_name, return_counts=True)
    best, best_score, fragments = None, None, None
    for name_id, count in zip(ids.tolist(), counts.tolist(), strict=False):
        if count < 2 or total < 10 * count:
            continue
        starts = op_ts[op_name == name_id]
        cuts = np.searchsorted(item_ts, starts)
        pieces = np.diff(np.append(cuts, total))
        if cuts[0] > 0.05 * total or pieces.min() < 5:
            continue
        rest = pieces[1:]
        even = rest.std() <= 0.1 * rest.mean() if len(rest) >= 2 else abs(pieces[1] - pieces[0]) <= 0.5 * pieces[1]
        if not even:
            continue
        syncs = np.diff(np.append(np.searchsorted(sync_ts, starts), len(sync_ts)))
        if len(sync_ts) >= 2 and syncs[1:].min(initial=syncs[0]) == 0:
            if fragments is None or count > fragments[1]:
                fragments = (names[name_id], count, float(rest.mean()) if len(rest) else float(pieces[0]))
            continue
        score = (steps_hint is not None and count in (steps_hint, steps_hint + 1), count, -starts[0])
        if best_score is None or score > best_score:
            best, best_score = (names[name_id], starts), score
    if best is None and fragments is not None:
        name, count, items = fragments
        raise FragmentedTrace(FRAGMENTED.format(name=name, count=count, items=items))
    return best


def _assign(launch_ts: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Pass index by launch time; -1 before the first pass starts."""
    return np.searchsorted(np.sort(starts), launch_ts, side="right") - 1


def _pass_infos(names, gpu, pass_of, launch_key, exclude_first: int) -> list[PassInfo]:
    valid = pass_of >= 0
    number, inverse = np.unique(pass_of[valid], return_inverse=True)
    ts, dur = gpu["ts"][valid], gpu["dur"][valid]
    items = np.bincount(inverse)
    busy = np.bincount(inverse, weights=dur)
    start = np.full(len(number), np.inf)
    end = np.full(len(number), -np.inf)
    np.minimum.at(start, inverse, ts)
    np.maximum.at(end, inverse, ts + dur)
    launch_pairs = np.unique(np.stack([inverse, launch_key[valid]]), axis=1)
    launches = np.bincount(launch_pairs[0], minlength=len(number))
    name_pairs, name_counts = np.unique(np.stack([inverse, gpu["name"][valid]]), axis=1, return_counts=True)
    signatures: list[Counter[str]] = [Counter() for _ in number]
    for p, name_id, count in zip(name_pairs[0].tolist(), name_pairs[1].tolist(), name_counts.tolist(), strict=False):
        signatures[p][names[name_id]] = count
    similarity = [_similarity(s, signatures[-1]) for s in signatures]
    alike = [b for b, s in zip(busy.tolist(), similarity, strict=False) if s >= DECODE_SIMILARITY]
    reference = float(np.median(alike)) if alike else float(busy[-1])
    infos, leading = [], True
    for n, p in enumerate(number.tolist()):
        sim, ratio = similarity[n], (busy[n] / reference if reference else 1.0)
        if n < exclude_first:
            role = "excluded"
        elif sim >= DECODE_SIMILARITY and DECODE_BUSY_RANGE[0] <= ratio <= DECODE_BUSY_RANGE[1]:
            role, leading = "decode", False
        elif leading and (sim < PREFILL_SIMILARITY or ratio >= PREFILL_BUSY_RATIO):
            role = "prefill"
        elif leading:
            role = "undecided"
        else:
            role = "other"
        infos.append(PassInfo(p + 1, role, int(items[n]), int(launches[n]), float(busy[n]),
                              float(end[n] - start[n]), sim, float(ratio)))
    return infos


def _similarity(a: Counter, b: Counter) -> float:
    """Weighted Jaccard similarity of two kernel-name counts."""
    keys = a.keys() | b.keys()
    top = sum(min(a[k], b[k]) for k in keys)
    bottom = sum(max(a[k], b[k]) for k in keys)
    return top / bottom if bottom else 1.0


def _notes(infos: list[PassInfo], exclude_first: int) -> list[str]:
    notes = []
    undecided = [p.number for p in infos if p.role == "undecided"]
    if undecided:
        notes.append(
            f"could not tell whether pass{'es' if len(undecided) > 1 else ''} {', '.join(map(str, undecided))} "
            "before the decode steps are prefill: counted as decode; exclude the first passes if they are not"
        )
    other = [p.number for p in infos if p.role == "other"]
    if other:
        notes.append(f"pass{'es' if len(other) > 1 else ''} {', '.join(map(str, other))} differ from the decode "
                     "steps around them (a prefill mixed in?) and are left out")
    if exclude_first:
        notes.append(f"the first {exclude_first} pass{'es' if exclude_first > 1 else ''} excluded as asked")
    return notes


def _queued_gap_us(columns, gpu, decode: np.ndarray, launch_key: np.ndarray) -> float | None:
    """Median idle gap between consecutive decode items the GPU had queued (launched before the previous ended)."""
    rt_end = _launch_end(columns, gpu["corr"])
    gaps = []
    for stream in np.unique(gpu["stream"][decode]):
        mine = np.flatnonzero(decode & (gpu["stream"] == stream))
        mine = mine[np.argsort(gpu["ts"][mine], kind="stable")]
        if len(mine) < 2:
            continue
        prev, cur = mine[:-1], mine[1:]
        prev_end = gpu["ts"][prev] + gpu["dur"][prev]
        queued = (launch_key[cur] == launch_key[prev]) | (rt_end[cur] < prev_end)
        gap = gpu["ts"][cur] - prev_end
        gaps.append(gap[queued & (gap >= 0)])
    gaps_all = np.concatenate(gaps) if gaps else np.array([])
    return float(np.median(gaps_all)) if len(gaps_all) >= MIN_QUEUED_GAPS else None


def _launch_end(columns, gpu_corr: np.ndarray) -> np.ndarray:
    rt_corr = np.frombuffer(columns.rt_corr, dtype=np.int64)
    rt_end = np.frombuffer(columns.rt_ts, dtype=np.float64) + np.frombuffer(columns.rt_dur, dtype=np.float64)
    order = np.argsort(rt_corr, kind="stable")
    rt_corr, rt_end = rt_corr[order], rt_end[order]
    if not len(rt_corr):
        return np.full(len(gpu_corr), np.inf)
    where = np.minimum(np.searchsorted(rt_corr, gpu_corr), len(rt_corr) - 1)
    return np.where(rt_corr[where] == gpu_corr, rt_end[where], np.inf)


def _kernels(names, gpu, chosen: np.ndarray, tags: np.ndarray) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name_id, dur, tag in zip(gpu["name"][chosen].tolist(), gpu["dur"][chosen].tolist(), tags[chosen].tolist(), strict=False):
        key = tag + names[name_id]
        entry = out.setdefault(key, [0.0, 0])
        entry[0] += dur
        entry[1] += 1
    return out


def _blocks(names, gpu, chosen: np.ndarray, tags: np.ndarray) -> dict[str, float]:
    """Each kernel's mean blocks per SM over the chosen launches that said it (torch.profiler's CUPTI figure)."""
    said = chosen & ~np.isnan(gpu["blocks"])
    sums: dict[str, list[float]] = {}
    for name_id, blocks, tag in zip(gpu["name"][said].tolist(), gpu["blocks"][said].tolist(), tags[said].tolist(),
                                    strict=True):
        entry = sums.setdefault(tag + names[name_id], [0.0, 0])
        entry[0] += blocks
        entry[1] += 1
    return {name: total / count for name, (total, count) in sums.items()}
