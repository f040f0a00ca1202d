"""What the importers produce."""

from __future__ import annotations

from dataclasses import dataclass, field


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


@dataclass
class KernelSummary:
    """GPU time by kernel name over one profiled run (one or several rank files)."""

    source_format: str
    kernels: dict[str, list[float]] = field(default_factory=dict)  # name -> [total_us, count]
    gpu_span_us: float | None = None  # first GPU event start to last GPU event end, if known
    steps_found: int | None = None  # ProfilerStep annotations, if the trace has them
    files: list[str] = field(default_factory=list)

    def add(self, name: str, duration_us: float, count: int = 1) -> None:
        entry = self.kernels.setdefault(name, [0.0, 0])
        entry[0] += duration_us
        entry[1] += count

    @property
    def gpu_time_us(self) -> float:
        return sum(total for total, _ in self.kernels.values())

    def merge(self, other: KernelSummary) -> None:
        for name, (total, count) in other.kernels.items():
            self.add(name, total, count)
        self.files += other.files
        if other.gpu_span_us is not None:
            self.gpu_span_us = max(self.gpu_span_us or 0.0, other.gpu_span_us)
        if other.steps_found is not None:
            self.steps_found = max(self.steps_found or 0, other.steps_found)
