"""A profile from traces or kernel tables: decode steps only, shares of the measured step, launch counts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlmodel import Session

from tierplan.db import history_reads, repo
from tierplan.db.tables import Measurement, Regime, pk
from tierplan.importers import detect as formats
from tierplan.importers.buckets import KEPT_KERNELS, bucket_kernels, kept_blocks, kept_kernels, step_shares
from tierplan.importers.kernel_csv import parse_generic, parse_nsys
from tierplan.importers.ncu_csv import parse_ncu
from tierplan.importers.records import KernelSummary
from tierplan.importers.torch_trace import parse_trace
from tierplan.models.errors import FormInvalid
from tierplan.planning.metrics import STEP_METRIC, THROUGHPUT_METRIC, metric_label
from tierplan.planning.step import GPU_GAP_PRIOR_US
from tierplan.services.import_prototypes import check_key

TOP_KERNELS = 25  # shown in the preview


@dataclass
class ProfileDraft:
    """The profile an import would store, with what one decode step costs when a trace said."""

    regime: str
    shares: list[tuple[str, float]]
    how: str
    top_kernels: list[tuple[str, str, float, int, float]] = field(default_factory=list)  # name, bucket, us, n, share
    unmatched: list[str] = field(default_factory=list)
    step_ms: float | None = None
    step_source: str = ""
    gpu_items: float | None = None
    host_launches: float | None = None
    gpu_gap_us: float | None = None
    gap_measured: bool = False
    gpu_busy_ms: float | None = None
    trace_idle_ms: float | None = None
    host_share: float | None = None  # of the traced step, the host's time apart from waits for the GPU
    host_busy_ms: float | None = None  # that share of the measured step
    steps: int | None = None
    passes: list[dict] = field(default_factory=list)  # one a forward pass: number, role, items, launches, busy
    pass_method: str = ""
    pass_notes: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    prefill_share: float | None = None  # of the trace's GPU time, what was left out as prefill and other passes
    warnings: list[str] = field(default_factory=list)  # shown, not blocking: a step time far from the regime's
    prototype_of: str = ""  # the intervention whose prototype the trace ran (its evidence, not the regime's profile)
    # name, bucket, fraction of the bucket, launches a decode step (0 where the file does not say)
    kernels: list[tuple[str, str, float, float]] = field(default_factory=list)
    launch: dict[str, str] = field(default_factory=dict)  # kept kernels' launch figures in words (Nsight Compute)
    blocks_per_sm: dict[str, float] = field(default_factory=dict)  # kept kernels' mean, where a trace said

    def passes_text(self) -> str:
        """One line for the stored profile: how the trace was split and what was kept."""
        if not self.passes:
            return ""
        roles: dict[str, list[str]] = {}
        for p in self.passes:
            roles.setdefault(p["role"], []).append(str(p["number"]))
        kept = ", ".join(f"{role} {'/'.join(numbers)}" for role, numbers in roles.items())
        return f"{self.pass_method}: {kept}"

    @classmethod
    def from_dict(cls, data: dict) -> ProfileDraft:
        data = dict(data)
        data["shares"] = [tuple(s) for s in data["shares"]]
        data["top_kernels"] = [tuple(k) for k in data["top_kernels"]]
        data["kernels"] = [(*k, 0.0)[:4] for k in data.get("kernels", [])]  # a preview kept before the calls were
        return cls(**data)

    def to_dict(self) -> dict:
        return asdict(self)


def profile_draft(session: Session, campaign_id: int, infos: list[Any], options: Any, regimes: list[Regime],
                  rules: list[tuple[str, str]], on_progress: Callable[[int], None] | None = None) -> ProfileDraft:
    """Parse profile files into a draft; raises FormInvalid or ImportFileError and writes nothing."""
    if not options.regime:
        raise FormInvalid({"regime": "a profile belongs to one regime: choose it"})
    summary = _summary(infos, options, on_progress)
    try:
        bucketing = bucket_kernels(summary, rules)
    except ValueError as exc:
        raise FormInvalid({"files": f"a kernel rule does not compile: {exc}"}) from None
    stats = summary.steps
    if options.steps and stats is not None and max(stats.decode_steps / options.steps,
                                                   options.steps / stats.decode_steps) > STEPS_APART:
        raise FormInvalid({"steps": f"the trace holds {options.steps} decode steps, you say, but it splits into "
                                    f"{stats.decode_steps} ({stats.method}, {stats.gpu_items:.0f} GPU items each): "
                                    "the passes found are not its steps; record ProfilerStep markers "
                                    "(torch.profiler's schedule, prof.step() after each step) or check the count"})
    steps = options.steps or summary.steps_found
    ranks = sum(1 for i in infos if i.format == formats.TRACE) or 1
    regime = next(r for r in regimes if r.name == options.regime)
    step_ms, step_source = options.step_ms, "entered with the import" if options.step_ms else ""
    own_ms, own_source = measured_step_ms(session, regime)
    if step_ms is None and steps:
        step_ms, step_source = own_ms, own_source
    try:
        shares, how = step_shares(bucketing, ranks=ranks, step_ms=step_ms, steps=steps,
                                  listed_share=summary.listed_share)
    except ValueError as exc:
        raise FormInvalid({"step_ms": str(exc)}) from None
    if step_source:
        how += f" (step time {step_source})"
    if ranks > 1:
        how += f"; {ranks} rank files averaged"
    draft = ProfileDraft(
        regime=options.regime, shares=list(shares.items()), how=how, step_ms=step_ms, step_source=step_source,
        top_kernels=[(k.name, k.bucket, k.total_us, k.count, k.share_of_gpu) for k in bucketing.kernels[:TOP_KERNELS]],
        unmatched=bucketing.unmatched, steps=steps, devices=summary.devices,
        kernels=kept_kernels(bucketing, steps),
        launch={k.name[:1000]: summary.launch[k.name] for k in bucketing.kernels[:KEPT_KERNELS] if k.name in summary.launch},
        blocks_per_sm=kept_blocks(bucketing, summary.blocks_per_sm),
    )
    if stats is not None:
        _add_steps(draft, summary, stats, step_ms)
    if options.prototype_of:  # its step is the prototype's own, rightly far from the regime's
        draft.prototype_of = _prototype_of(session, campaign_id, options, regime, draft)
    elif options.step_ms and own_ms and max(options.step_ms / own_ms, own_ms / options.step_ms) > STEP_APART:
        draft.warnings.append(f"the step time entered ({options.step_ms:.4g} ms) is "
                              f"{fmt_factor(options.step_ms / own_ms)} the regime's own ({own_ms:.4g} ms, "
                              f"{own_source}): is this the trace of {regime.name}?")
    return draft


def _prototype_of(session: Session, campaign_id: int, options: Any, regime: Regime, draft: ProfileDraft) -> str:
    """The intervention key a prototype trace is evidence of, once the pair can be compared; FormInvalid says why
    not at the field."""
    key: str = options.prototype_of
    check_key((i.key for i in repo.interventions_of(session, campaign_id=campaign_id)), key)
    if options.step_ms is None:
        raise FormInvalid({"step_ms": "give the step time the prototype measured (the regime's own is the "
                                      "baseline's)"})
    if draft.gpu_items is None:
        raise FormInvalid({"prototype_of": "a prototype is compared step for step: import a trace of it (launch "
                                           "counts), not a kernel table"})
    own = repo.newest_profiles(session, regime_ids=[pk(regime)]).get(pk(regime))
    if own is None or own.gpu_items is None or own.step_ms is None:
        raise FormInvalid({"prototype_of": f"{regime.name} has no traced profile of its own to compare the prototype "
                                           "with: import the regime's own trace first"})
    return key


STEP_APART = 3.0  # an entered step this many times the regime's measured one is worth a word
STEPS_APART = 1.5  # steps the user gives against the decode passes the trace splits into: beyond this, refused


def fmt_factor(ratio: float) -> str:
    return f"{ratio:.3g}x" if ratio >= 1 else f"1/{1 / ratio:.3g} of"


def _summary(infos: list[Any], options: Any, on_progress: Callable[[int], None] | None) -> KernelSummary:
    summary = KernelSummary("profile")
    for info in infos:
        if info.format == formats.TRACE:
            with open(info.path, "rb") as handle:
                summary.merge(parse_trace(handle, info.name, on_progress, options.exclude_passes, options.steps))
        elif info.format == formats.NSYS:
            summary.merge(_streamed(info, parse_nsys))
        elif info.format == formats.NCU:
            summary.merge(_streamed(info, parse_ncu))
        else:
            if options.columns is None:
                raise FormInvalid({"name_column": f"{info.name} is a CSV tierplan does not know: name its kernel-name "
                                                  "and total-time columns"})
            summary.merge(_streamed(info, parse_generic, options.columns))
    return summary


def _add_steps(draft: ProfileDraft, summary: KernelSummary, stats: Any, step_ms: float | None) -> None:
    draft.gpu_items, draft.host_launches = stats.gpu_items, stats.host_launches
    draft.gpu_gap_us = stats.gpu_gap_us if stats.gpu_gap_us is not None else GPU_GAP_PRIOR_US
    draft.gap_measured = stats.gpu_gap_us is not None
    draft.gpu_busy_ms, draft.trace_idle_ms = stats.busy_ms, stats.trace_idle_ms
    draft.host_share, draft.host_busy_ms = stats.host_share, stats.host_ms(step_ms)
    draft.steps = stats.decode_steps
    draft.pass_method, draft.pass_notes = stats.method, list(stats.notes)
    draft.passes = [
        {"number": p.number, "role": p.role, "items": p.items, "launches": p.host_launches,
         "busy_ms": p.busy_us / 1000, "similarity": p.similarity, "ratio": p.busy_ratio}
        for p in stats.passes
    ]
    if summary.whole_trace_gpu_us:
        draft.prefill_share = max(0.0, 1 - summary.gpu_time_us / summary.whole_trace_gpu_us)
    if step_ms is None:
        draft.pass_notes.append("no step time: the launch model needs the regime's measured step (enter it, or "
                                "measure its TPOT or throughput first)")


def _streamed(info: Any, parse: Callable[..., KernelSummary], *args: Any) -> KernelSummary:
    """parse(stream, name, *args) over the file as UTF-8 text read a line at a time (a kernel table of any length
    costs its names)."""
    with open(info.path, "rb") as stream:  # decoded a line at a time: a byte that is not UTF-8 is refused at its line
        return parse(stream, info.name, *args)


def _newest_baseline(session: Session, regime: Regime, metric: str) -> Measurement | None:
    """The newest live baseline of the regime's metric, whatever it includes: the newest run of each of its
    series (a handful of rows, whatever the history)."""
    newest = [session.get(Measurement, row[5]) for row in history_reads.series_summaries(session, regime_ids=[pk(regime)])
              if row[1] == metric and row[2] == "baseline"]
    return max((m for m in newest if m is not None), key=lambda m: (m.measured_at, m.id or 0), default=None)


def measured_step_ms(session: Session, regime: Regime) -> tuple[float | None, str]:
    """The regime's step time from its newest baseline TPOT, else from its newest baseline throughput and concurrency."""
    tpot = _newest_baseline(session, regime, STEP_METRIC)
    if tpot is not None:
        return tpot.value, f"from the newest {metric_label(STEP_METRIC)} of {regime.name}, {tpot.measured_at:%Y-%m-%d}"
    throughput = _newest_baseline(session, regime, THROUGHPUT_METRIC)
    if throughput is not None and throughput.value > 0:
        step = regime.concurrency * 1000 / throughput.value
        return step, (f"{step:.3g} ms: concurrency {regime.concurrency} over the newest {metric_label(THROUGHPUT_METRIC)} of "
                      f"{regime.name}, {throughput.measured_at:%Y-%m-%d}")
    return None, ""
