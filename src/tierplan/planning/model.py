"""Core value types of the planning domain: frozen, unit-named, free of I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from tierplan.planning.stats import Aggregation
from tierplan.planning.targets import TargetKind

SHARE_TOLERANCE = 1e-6
OTHER_BUCKET = "other"


class PlanningError(ValueError):
    """Inputs the planning core cannot compute from: the message says why, `field` names the input when one is
    to blame (an Effect's `speedup`, a ModelSpec's `active_params_b`...), so a form can show it there."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


T = TypeVar("T")


def need(value: T | None, what: str, field: str | None = None) -> T:
    """`value`, which the kind of its row makes required; PlanningError (naming `field`) if it is missing."""
    if value is None:
        raise PlanningError(f"{what} is missing", field)
    return value


class Provenance(StrEnum):
    """Where a stored number came from."""

    MEASURED = "measured"
    IMPORTED = "imported"
    REPORTED = "reported"
    ASSUMED = "assumed"


class Status(StrEnum):
    """Lifecycle of an intervention."""

    PROPOSED = "proposed"
    IN_PROGRESS = "in progress"
    LANDED = "landed"
    VALIDATED = "validated"
    REJECTED = "rejected"


class EffectKind(StrEnum):
    BUCKET = "bucket"  # speedup on one bucket of step time
    STEP = "step"  # whole-step multiplier, valid only in the regimes it names
    TIME_SAVED = "time_saved"  # milliseconds off each step, in the regimes it names
    SPEC_DECODE = "spec_decode"  # speculative decoding: draft length, acceptance, draft cost
    LAUNCH_OVERHEAD = "launch_overhead"  # a share of the per-launch host cost removed (CUDA graphs)
    LAUNCH_COUNT = "launch_count"  # launches a step added or removed (a fused or SDPA path)
    GPU_WORK = "gpu_work"  # GPU time and work items a step added or removed (a static cache's copies, quant kernels)


class MeasurementKind(StrEnum):
    """A baseline starts the projection; a gate check only judges gates."""

    BASELINE = "baseline"
    GATE_CHECK = "gate check"


class Comparator(StrEnum):
    AT_LEAST = ">="
    AT_MOST = "<="


class Severity(StrEnum):
    """A hard gate must pass for its tier to be validated; a warn gate only warns."""

    HARD = "hard"
    WARN = "warn"


@dataclass(frozen=True)
class ThreePoint:
    """A low / likely / high estimate; low <= likely <= high."""

    low: float
    likely: float
    high: float

    def __post_init__(self) -> None:
        values = (self.low, self.likely, self.high)
        if not all(math.isfinite(v) for v in values):
            raise PlanningError("estimates must be finite numbers")
        if not self.low <= self.likely <= self.high:
            raise PlanningError(
                f"estimate must satisfy low <= likely <= high, got {self.low} / {self.likely} / {self.high}"
            )

    @classmethod
    def of(cls, field: str, low: float, likely: float, high: float) -> ThreePoint:
        """The estimate of the input `field`; a PlanningError names that field."""
        try:
            return cls(low, likely, high)
        except PlanningError as exc:
            raise PlanningError(str(exc), field) from None


@dataclass(frozen=True)
class LaunchProfile:
    """What a trace says one step launches: GPU work items, host launch calls, and the GPU's gap per item."""

    gpu_items: float  # kernels, memcpys and memsets the GPU runs a step
    host_launches: float  # launch calls the host makes a step (one for a whole graph replay)
    step_ms: float  # the measured step the profile's shares are of
    gpu_gap_us: float  # GPU time before each item (measured between queued items, else a prior)
    host_fixed_ms: float = 0.0  # host time a step that is not per launch (sampling, scheduling)
    gap_measured: bool = False
    # the launching thread's time a step apart from waits for the GPU, where a trace measured it (its share of the
    # traced step, of the step measured)
    host_busy_ms: float | None = None

    def __post_init__(self) -> None:
        values = [self.gpu_items, self.host_launches, self.step_ms, self.gpu_gap_us, self.host_fixed_ms]
        if self.host_busy_ms is not None:
            values.append(self.host_busy_ms)
        if not all(math.isfinite(v) and v >= 0 for v in values) or self.step_ms <= 0:
            raise PlanningError("launch counts and times must be finite and >= 0, the step time > 0")


@dataclass(frozen=True)
class Profile:
    """Shares (0..1) of one step's time by bucket, and the step's launches when a trace gave them.

    Shares summing to less than 1 give the remainder to the "other" bucket;
    shares summing to more than 1 (beyond a 1e-6 tolerance) are an error.
    """

    shares: tuple[tuple[str, float], ...]
    launches: LaunchProfile | None = None
    # the kernels a trace or kernel table named: (name, bucket, its fraction of that bucket's time, its launches a
    # step or 0 where the file did not say), largest first
    kernels: tuple[tuple[str, str, float, float], ...] = ()
    blocks_per_sm: tuple[tuple[str, float], ...] = ()  # a kernel's mean blocks per SM, where its trace said

    @classmethod
    def of(cls, shares: dict[str, float], launches: LaunchProfile | None = None) -> Profile:
        """Build a normalised profile; raises PlanningError on negative shares or a sum above 1."""
        cleaned: dict[str, float] = {}
        for bucket, share in shares.items():
            if not math.isfinite(share) or share < 0:
                raise PlanningError(f"share of {bucket!r} must be a number >= 0, got {share}")
            cleaned[bucket] = cleaned.get(bucket, 0.0) + share
        total = sum(cleaned.values())
        if total > 1 + SHARE_TOLERANCE:
            raise PlanningError(f"shares sum to {total:.4f}, more than 1")
        remainder = 1.0 - total
        if remainder > SHARE_TOLERANCE:
            cleaned[OTHER_BUCKET] = cleaned.get(OTHER_BUCKET, 0.0) + remainder
        return cls(shares=tuple(cleaned.items()), launches=launches)

    def as_dict(self) -> dict[str, float]:
        return dict(self.shares)


@dataclass(frozen=True)
class SpecDecode:
    """Speculative decoding: `draft_tokens` (g) drafted a step and verified in one target step.

    The draft-and-verify step costs 1 + g c of a plain step when a draft cost `c` is given;
    without one it follows the hardware model: a step with g + 1 tokens a sequence in flight over a
    step with one. Acceptance is either one per-token rate (three-point) or, as vLLM reports it,
    per-position rates: the fraction of drafts whose position i was accepted.
    """

    draft_tokens: int
    draft_cost: ThreePoint | None = None
    acceptance: ThreePoint | None = None
    per_position: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.draft_tokens < 1:
            raise PlanningError("draft length must be at least 1", "draft_tokens")
        if self.draft_cost is not None and self.draft_cost.low < 0:
            raise PlanningError("draft cost must be >= 0", "draft_cost")
        if self.per_position:
            if any(not 0 <= r <= 1 for r in self.per_position):
                raise PlanningError("each acceptance rate lies between 0 and 1", "per_position")
            if any(b > a + 1e-9 for a, b in zip(self.per_position, self.per_position[1:], strict=False)):
                raise PlanningError("rates cannot rise with the position (position i+1 needs i accepted)", "per_position")
            if len(self.per_position) != self.draft_tokens:
                raise PlanningError(f"give {self.draft_tokens} rates, one a draft position", "per_position")
        elif self.acceptance is None:
            raise PlanningError("speculative decoding needs an acceptance rate", "acceptance")
        elif not (self.acceptance.low >= 0 and self.acceptance.high <= 1):
            raise PlanningError("an acceptance rate lies between 0 and 1", "acceptance")


@dataclass(frozen=True)
class Effect:
    """What an intervention does to step time.

    A bucket effect divides that bucket's time by `speedup` (only its `kernels`, when it names them:
    planning/kernel_targets.py); empty `regimes`
    means every regime. A step effect divides the whole step and must name
    the regimes where it was measured or estimated; so must a time-saved
    effect, which takes `saved_ms` off each step (off `bucket` when named).
    A spec-decode effect makes a step yield E tokens a sequence at its draft-and-verify cost.
    A launch-overhead effect removes the share `removed` (0..1) of the per-launch host cost; a
    launch-count effect adds `launches` (negative: removes) GPU work items a step. A GPU-work effect adds
    `gpu_ms` of GPU time a step, `gpu_ms_per_seq` more for each sequence in flight, and `gpu_items` work items
    (any of the three; negative removes).
    """

    kind: EffectKind
    speedup: ThreePoint | None = None
    bucket: str | None = None
    regimes: frozenset[str] = frozenset()
    saved_ms: ThreePoint | None = None
    spec: SpecDecode | None = None
    removed: ThreePoint | None = None
    launches: ThreePoint | None = None
    gpu_ms: ThreePoint | None = None
    gpu_ms_per_seq: ThreePoint | None = None
    gpu_items: ThreePoint | None = None
    kernels: str = ""  # bucket speedups: a pattern over the profile's kernel names, to act on their share alone
    log_scale: bool = False  # its estimates are drawn on a log scale: a factor is what is uncertain (a carried growth)

    def __post_init__(self) -> None:
        from tierplan.planning.effect_kinds import rule_of  # the registry imports Effect: read it once both exist

        rule = rule_of(self.kind)
        if self.kernels and self.kind is not EffectKind.BUCKET:
            raise PlanningError("only a bucket speedup can name kernels", "kernels")
        if self.log_scale and any(p.low * p.high <= 0 for p in rule.inputs(self).values()):
            raise PlanningError("an estimate drawn on a log scale keeps one sign, never zero")
        rule.check(self)
        if rule.needs_regimes and not self.regimes:
            raise PlanningError("this effect holds only where it was measured: name its regimes", "regimes")

    def applies_to(self, regime_name: str) -> bool:
        return not self.regimes or regime_name in self.regimes


@dataclass(frozen=True)
class Intervention:
    key: str
    title: str
    effort_days: ThreePoint
    status: Status = Status.PROPOSED
    tier_key: str | None = None
    effects: tuple[Effect, ...] = ()
    prerequisites: tuple[str, ...] = ()  # keys of interventions that must come first
    started_at: datetime | None = None
    landed_at: datetime | None = None
    evidence: Any = None  # prototype.Evidence (effects derived from a prototype's trace) or prototype_benchmark.Fit
    realised: float | None = None  # the share of its effects' log-gain a prototype's benchmark realised (calibration's)
    assignee: str = ""  # who does it ("": whoever is free; schedule.py)

    @property
    def entered(self) -> tuple[Effect, ...]:
        """The effects the team entered (a prototype's trace supersedes them in `effects`; a benchmark sizes them)."""
        entered = getattr(self.evidence, "entered", None)
        return entered if entered is not None else self.effects

    def realised_share(self, calibration: float | None) -> float | None:
        """The share of predicted log-gain to plan on: its prototype's benchmark where one sized it (measured on
        this very change), else the campaign's calibration."""
        return self.realised if self.realised is not None else calibration


@dataclass(frozen=True)
class Tier:
    key: str
    name: str
    order: int
    started_at: datetime | None = None


@dataclass(frozen=True)
class Regime:
    """One workload point.

    `baseline_tok_s` is its newest baseline output throughput, if any, and `includes` the keys of
    the interventions that baseline was measured with: the projection applies every other one.
    `step_ms` is the baseline's step time where a benchmark measured it (mean TPOT); without it
    the step is concurrency / throughput.
    """

    name: str
    concurrency: int
    target_tok_s: float
    baseline_tok_s: float | None = None
    baseline_measured_at: datetime | None = None
    profile: Profile | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    includes: frozenset[str] = frozenset()
    step_ms: float | None = None
    step_source: str = ""
    profile_measured_at: datetime | None = None  # when its profile was measured (a trace, a measured split)
    target_kind: TargetKind = TargetKind.AGGREGATE  # how the team states the target (targets.py)


@dataclass(frozen=True)
class Measurement:
    regime: str
    metric: str
    value: float
    measured_at: datetime
    kind: MeasurementKind = MeasurementKind.BASELINE
    includes: frozenset[str] = frozenset()  # interventions in place when it was taken
    ref: int | None = None  # the stored row's id, when it has one: how the pages point at it
    confirmed: str = ""  # the warnings its checks raised that the user recorded it over (calibration leaves it out)
    left_out: str = ""  # why the team left it out of calibration ("": it counts)


@dataclass(frozen=True)
class Gate:
    """A tier's validation gate on one regime and metric (see planning/gates.py for how it is judged).

    `threshold` is absolute, in the metric's unit; `relative_pct` asks for a change against the runs
    of `reference_regime` (this regime when None) from before the tier started: +30 with >= means at
    least 1.3x them, -20 with <= at most 0.8x. Either or both. The gate judges the newest run, or the
    median or mean of the last `window` runs, and needs `min_samples` of them.
    """

    tier_key: str
    regime: str
    metric: str
    comparator: Comparator
    threshold: float | None = None
    relative_pct: float | None = None
    reference_regime: str | None = None
    aggregation: Aggregation = Aggregation.NEWEST
    window: int = 1
    min_samples: int = 1
    severity: Severity = Severity.HARD

    def __post_init__(self) -> None:
        if self.threshold is None and self.relative_pct is None:
            raise PlanningError("give a threshold, a change relative to the baseline, or both", "threshold")
        if self.relative_pct is not None and not (math.isfinite(self.relative_pct) and self.relative_pct > -100):
            raise PlanningError("a relative change lies above -100%", "relative_pct")
        if self.min_samples < 1:
            raise PlanningError("a gate needs at least one run", "min_samples")
        if self.aggregation is Aggregation.NEWEST and (self.min_samples > 1 or self.window > 1):
            raise PlanningError("the newest run is one run: choose the median or mean to judge several", "aggregation")
        if self.window < self.min_samples:
            raise PlanningError(f"the last {self.window} runs cannot hold the {self.min_samples} the gate needs",
                                "window")


@dataclass(frozen=True)
class Objective:
    """A service-level objective: `metric comparator threshold` ("p99_ttft_ms <= 2000")."""

    metric: str
    comparator: Comparator
    threshold: float


@dataclass(frozen=True)
class Campaign:
    """Everything the planner needs about one campaign.

    `measurements` need not be the whole history: every use of them picks runs by a rule that a subset holding the
    right runs answers the same, so a long history is read as the runs those rules pick (tierplan/db/history.py): the
    newest run of each regime, metric, kind and state, the runs around each gate's tier start (its window after,
    its reference window before), the baseline's TPOT candidates and, for a gate on the capacity, the runs of
    its last moments. The one rule that needs every run, the measured changes of calibration, is given as
    `changes` (None: found in `measurements`)."""

    regimes: tuple[Regime, ...]
    tiers: tuple[Tier, ...]
    interventions: tuple[Intervention, ...]
    gates: tuple[Gate, ...] = ()
    measurements: tuple[Measurement, ...] = field(default=())
    ceilings_tok_s: tuple[tuple[str, float], ...] = ()  # regime name -> hardware ceiling, where specs allow
    calibration: float | None = None  # share of predicted log-gain realised, applied to pending work
    floors: tuple[tuple[str, Any], ...] = ()  # regime name -> ceiling.StepFloor, where specs allow
    model_error_scale: float = 1.0  # calibration's factor on the model-error priors
    kind_error_scales: tuple[tuple[EffectKind, float], ...] = ()  # its factor per kind, where a kind has enough pairs
    objectives: tuple[Objective, ...] = ()  # the service-level objectives (planning/capacity.py)
    changes: tuple[tuple[Measurement, Measurement], ...] | None = None  # measured changes (planning/calibration.py)
    team_size: int = 1  # people working the plan at once (planning/schedule.py)

    def ceiling_of(self, regime_name: str) -> float | None:
        return dict(self.ceilings_tok_s).get(regime_name)

    def floor_of(self, regime_name: str) -> Any:
        """The regime's ceiling.StepFloor, or None without specs."""
        return dict(self.floors).get(regime_name)
