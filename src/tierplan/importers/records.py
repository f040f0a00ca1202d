"""What the importers produce."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tierplan.importers.trace_steps import StepStats


@dataclass(frozen=True)
class BenchmarkRun:
    """One benchmark result: the regime it measured and its metrics (names as tierplan stores them)."""

    source_format: str
    where: str  # "record 2", "line 3": where in the file it came from
    concurrency: int | None  # max concurrency (closed loop), or batch size
    request_rate: str | None  # open loop: requests/s, or "inf"
    metrics: dict[str, float]
    label: str = ""
    input_len: int | None = None
    output_len: int | None = None
    spec_decode: dict[str, object] = field(default_factory=dict)
    measured_at: str = ""  # the run's own date as the tool wrote it ("20250530-203806"), if any
    model: str = ""  # what the file names: model id, GPU, engine
    gpu: str = ""
    engine: str = ""
    note: str = ""  # what else the tool says of the run (its version, trials averaged, a confidence interval)


@dataclass
class KernelSummary:
    """GPU time by kernel name over one profiled run (one or several rank files)."""

    source_format: str
    kernels: dict[str, list[float]] = field(default_factory=dict)  # name -> [total_us, count]
    gpu_span_us: float | None = None  # first GPU event start to last GPU event end, if known
    steps_found: int | None = None  # decode steps found in the trace
    files: list[str] = field(default_factory=list)
    steps: StepStats | None = None  # what one decode step costs, when the passes were found
    devices: list[str] = field(default_factory=list)  # GPU names the file gives
    whole_trace_gpu_us: float | None = None  # prefill and all, before keeping the decode steps
    listed_share: float | None = None  # nsys: share of all kernel time the table lists (Time (%) summed)
    launch: dict[str, str] = field(default_factory=dict)  # ncu: a kernel's launch figures, in words
    blocks_per_sm: dict[str, float] = field(default_factory=dict)  # torch.profiler: a kernel's mean, where said
    ranks: int = 0

    def add(self, name: str, duration_us: float, count: int = 1) -> None:
        entry = self.kernels.setdefault(name, [0.0, 0])
        entry[0] += duration_us
        entry[1] += count

    @property
    def gpu_time_us(self) -> float:
        return sum(total for total, _ in self.kernels.values())

    def merge(self, other: KernelSummary) -> None:
        for name, (total, count) in other.kernels.items():
            self.add(name, total, int(count))
        self.files += other.files
        self.launch.update(other.launch)
        for name, blocks in other.blocks_per_sm.items():  # each rank runs the same grids: the first file's
            self.blocks_per_sm.setdefault(name, blocks)
        self.devices += [d for d in other.devices if d not in self.devices]
        if other.gpu_span_us is not None:
            self.gpu_span_us = max(self.gpu_span_us or 0.0, other.gpu_span_us)
        if other.steps_found is not None:
            self.steps_found = max(self.steps_found or 0, other.steps_found)
        if other.whole_trace_gpu_us is not None:
            self.whole_trace_gpu_us = (self.whole_trace_gpu_us or 0.0) + other.whole_trace_gpu_us
        if other.listed_share is not None:
            self.listed_share = other.listed_share if self.listed_share is None else min(self.listed_share,
                                                                                         other.listed_share)
        self.steps = _mean_steps(self.steps, self.ranks, other.steps)
        self.ranks += max(other.ranks, 1)


def _mean_steps(mine: StepStats | None, ranks: int, other: StepStats | None) -> StepStats | None:
    """Per-step figures averaged over rank files (each rank runs the same steps)."""
    if other is None or ranks == 0 or mine is None:
        return mine if other is None else other
    def mean(a, b):
        return (a * ranks + b) / (ranks + 1)
    gap = _mean_known(mine.gpu_gap_us, other.gpu_gap_us, mean)
    return replace(
        mine, decode_steps=min(mine.decode_steps, other.decode_steps), busy_ms=mean(mine.busy_ms, other.busy_ms),
        trace_idle_ms=mean(mine.trace_idle_ms, other.trace_idle_ms), gpu_items=mean(mine.gpu_items, other.gpu_items),
        host_launches=mean(mine.host_launches, other.host_launches), gpu_gap_us=gap,
        host_share=_mean_known(mine.host_share, other.host_share, mean),
        notes=mine.notes + [n for n in other.notes if n not in mine.notes],
    )


def _mean_known(mine: float | None, other: float | None, mean) -> float | None:
    """The mean where both files measured it, else the one that did."""
    return other if mine is None else (mine if other is None else mean(mine, other))
