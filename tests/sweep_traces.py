"""The H100 sweeps of tests/data (graphs*, fp8): a trace as tierplan imports it, with the step its sweep measured."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

from tierplan.importers.buckets import bucket_kernels, kept_kernels, step_shares
from tierplan.importers.torch_trace import parse_trace
from tierplan.importers.trace_steps import StepStats
from tierplan.planning.model import LaunchProfile, Profile, Regime
from tierplan.planning.step import GPU_GAP_PRIOR_US

DATA = Path(__file__).parent / "data"


def step_ms(sweep: str, path: str, batch: str) -> float:
    """The sweep's measured step (ms) of a path at a batch, as its step_times.json holds it."""
    steps = json.loads((DATA / sweep / "step_times.json").read_text())["paths"]
    return steps[path][batch]["tokens_1"]["median_step_ms"]


def raw_events(sweep: str, name: str) -> list[dict]:
    with gzip.open(DATA / sweep / f"{name}.json.gz", "rt", encoding="utf-8") as handle:
        return json.load(handle)["traceEvents"]


def imported(sweep: str, path: str, batch: str) -> tuple[Profile, float, StepStats]:
    """A sweep's trace of a path at a batch as tierplan imports it (shares of the measured step, launch counts, kept
    kernels), its GPU time a decode step (ms) and its step statistics."""
    with open(DATA / sweep / f"trace_{path}_b{batch}.json.gz", "rb") as handle:
        summary = parse_trace(handle, f"trace_{path}_b{batch}")
    stats = summary.steps
    measured_ms = step_ms(sweep, path, batch)
    bucketing = bucket_kernels(summary)
    shares, _ = step_shares(bucketing, ranks=1, step_ms=measured_ms, steps=stats.decode_steps)
    gap_us = stats.gpu_gap_us if stats.gpu_gap_us is not None else GPU_GAP_PRIOR_US  # as an import takes it
    launches = LaunchProfile(stats.gpu_items, stats.host_launches, measured_ms, gap_us,
                             host_busy_ms=stats.host_ms(measured_ms),
                             gap_measured=stats.gpu_gap_us is not None)
    profile = dataclasses.replace(Profile.of(shares, launches),
                                  kernels=tuple(kept_kernels(bucketing, stats.decode_steps)))
    return profile, bucketing.gpu_time_us / stats.decode_steps / 1000, stats


def regime(sweep: str, path: str, batch: str) -> Regime:
    """A regime at the batch, its profile the sweep's trace of the path there."""
    return Regime(f"b{batch}", int(batch), 1e9, baseline_tok_s=1, profile=imported(sweep, path, batch)[0])
