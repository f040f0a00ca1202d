"""The greedy order's scores of every candidate in every regime at once: a row a regime, a column a candidate.

Regimes whose steps have the same shape (launch model or not, hardware model or not, a baseline step
or not) are stacked: each bucket time is a column of one value a regime, a bucket a regime lacks is
0 there (an effect on it then changes nothing, as when it finds no such bucket). Each candidate's
effects are applied to its own column (numpy broadcasts the stacked step); an effect leaves the other
elements as they are by taking its identity value there (a speedup of 1, nothing saved, no launch cost
removed, speculative decoding kept to the power 0), and so does a candidate in a regime its effect
does not hold in or whose baseline already has it. The arithmetic is change_step's, so a candidate's
score is the one `_score` in tiering.py computes for it alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tierplan.planning.ceiling import StepFloor
from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.effects import change_step, three_points
from tierplan.planning.model import Campaign, Effect, Intervention, Regime
from tierplan.planning.projection import baseline_step_ms, cap_tok_s
from tierplan.planning.step import LaunchState, StepState
from tierplan.planning.step_changes import EffectDraw, RegimeContext

IDENTITY = {"speedup": 1.0, "saved_ms": 0.0, "removed": 0.0, "launches": 0.0, "draft_cost": 0.0, "gpu_ms": 0.0,
            "gpu_ms_per_seq": 0.0, "gpu_items": 0.0}
LAUNCH_FIELDS = ("gpu_items", "host_launches", "host_cost", "host_fixed", "gap", "host_factor")


@dataclass
class Floors:
    """The hardware models of a stack's regimes: verify_added_ms gives a column of one value a regime."""

    floors: tuple[StepFloor, ...]
    added_ms: dict[int, Any] = field(default_factory=dict)

    def verify_added_ms(self, draft_tokens: int) -> Any:
        if draft_tokens not in self.added_ms:
            self.added_ms[draft_tokens] = np.array([[f.verify_added_ms(draft_tokens)] for f in self.floors])
        return self.added_ms[draft_tokens]


@dataclass(frozen=True)
class Stack:
    """Regimes scored together, and what their effects need to know of them."""

    regimes: tuple[Regime, ...]
    context: RegimeContext  # step_ms and floor as columns
    caps: dict[int, Any] = field(default_factory=dict)  # tokens verified -> each regime's cap a token (0: none)

    def cap_per_token(self, verify_tokens: int, campaign: Campaign) -> Any:
        """The throughput cap a token a sequence yields, a row a regime (caps are proportional to those tokens)."""
        if verify_tokens not in self.caps:
            found = [cap_tok_s(campaign, r, StepState({}, None, 1.0, verify_tokens)) for r in self.regimes]
            self.caps[verify_tokens] = np.array([[0.0 if f is None else float(f)] for f in found])
        return self.caps[verify_tokens]


@dataclass(frozen=True)
class Group:
    """Effects at the same position of several candidates that take the same code path."""

    effect: Effect  # one of them: its kind, bucket and speculative-decoding shape stand for all
    draw: EffectDraw  # a row a regime, a column a candidate; identity where a candidate is not a member


def stacks_of(regimes: list[Regime], initial: dict[str, StepState], campaign: Campaign) -> list[Stack]:
    """The regimes in stacks of the same step shape, in the order they come."""
    by_shape: dict[tuple[bool, bool, bool], list[Regime]] = {}
    for regime in regimes:
        shape = (initial[regime.name].launch is None, campaign.floor_of(regime.name) is None,
                 baseline_step_ms(regime) is None)
        by_shape.setdefault(shape, []).append(regime)
    stacks = []
    for members in by_shape.values():
        steps = [baseline_step_ms(r) for r in members]
        floors = [campaign.floor_of(r.name) for r in members]
        step_ms = None if steps[0] is None else np.array([[s] for s in steps], dtype=float)
        floor = None if floors[0] is None else Floors(tuple(f for f in floors if f is not None))
        concurrency = np.array([[r.concurrency] for r in members], dtype=float)
        stacks.append(Stack(tuple(members), RegimeContext("", step_ms, floor, concurrency)))
    return stacks


def groups_of(candidates: list[Intervention], draws: dict[str, list[EffectDraw]], stack: Stack) -> list[Group]:
    """The groups to apply, in effect order, to the stack."""
    rows, n = len(stack.regimes), len(candidates)
    depth = max((len(c.effects) for c in candidates), default=0)
    out: list[Group] = []
    for k in range(depth):
        members: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
        for j, candidate in enumerate(candidates):
            if k >= len(candidate.effects):
                continue
            effect = candidate.effects[k]
            for i, regime in enumerate(stack.regimes):
                if candidate.key not in regime.includes and effect.applies_to(regime.name):
                    members.setdefault(_shape(effect), []).append((i, j))
        for cells in members.values():
            effect = candidates[cells[0][1]].effects[k]
            at = tuple(np.array(axis) for axis in zip(*cells, strict=True))
            values: dict[str, Any] = {}
            for name in three_points(effect):
                column = np.full((rows, n), IDENTITY.get(name, 0.5))
                column[at] = [getattr(draws[candidates[j].key][k], name) for _, j in cells]
                values[name] = column
            if rule_of(effect.kind).tokens:  # only the members verify more tokens a step, each with its own share
                keep = np.zeros((rows, n))
                keep[at] = [1.0 if (r := draws[candidates[j].key][k].realised) is None else r for _, j in cells]
                values["realised"] = keep
            out.append(Group(effect, EffectDraw(**values)))
    return out


def _shape(effect: Effect) -> tuple[Any, ...]:
    spec = effect.spec
    if spec is None:  # the inputs it gives too: a GPU-work effect may give any of three
        return (effect.kind, effect.bucket, effect.kernels, tuple(sorted(three_points(effect))))
    return (effect.kind, spec.draft_tokens, spec.per_position, spec.draft_cost is None, spec.acceptance is None)


def stacked_state(stack: Stack, states: dict[str, StepState]) -> StepState:
    """The regimes' current steps as one state of columns."""
    members = [states[r.name] for r in stack.regimes]
    buckets = list(dict.fromkeys(b for s in members for b in s.buckets))

    def column(values: list[Any]) -> Any:
        return np.array([[v] for v in values], dtype=float)

    launch = None
    if members[0].launch is not None:
        launch = LaunchState(*(column([getattr(s.launch, name) for s in members]) for name in LAUNCH_FIELDS))
    return StepState({b: column([s.buckets.get(b, 0.0) for s in members]) for b in buckets}, launch,
                     column([s.tokens for s in members]), np.array([[s.verify_tokens] for s in members]))


@dataclass(frozen=True)
class Scores:
    """What a stack's candidates would do if each came next."""

    log_gains: Any  # a row a regime, a column a candidate: the log-throughput gain
    batch: StepState  # the step each would leave, as columns


def stack_log_gains(stack: Stack, groups: list[Group], states: dict[str, StepState], campaign: Campaign,
                    candidates: int) -> Scores:
    """Each candidate's log-throughput gain in each regime of the stack if it came next, and the steps it leaves."""
    start = stacked_state(stack, states)
    batch = start.copy()
    for group in groups:
        change_step(group.effect, group.draw, batch, stack.context)
    gains = np.log(stacked_tok_s(stack, batch, campaign) / stacked_tok_s(stack, start, campaign))
    return Scores(np.broadcast_to(gains, (len(stack.regimes), candidates)), batch)


def states_after(stack: Stack, scores: Scores, candidate: int, states: dict[str, StepState]) -> dict[str, StepState]:
    """The stack's regimes' steps once `candidate` is picked: its column of the batch (a bucket a regime lacks stays
    out while it is 0 there: only the verify step's bucket is ever added)."""
    batch, rows = scores.batch, len(stack.regimes)

    def column(value: Any) -> list[Any]:
        value = np.asarray(value)
        if value.ndim == 0:
            return [value.item()] * rows
        return list(value[:, min(candidate, value.shape[1] - 1)].tolist())

    buckets = {b: column(v) for b, v in batch.buckets.items()}
    launch = None if batch.launch is None else [column(getattr(batch.launch, name)) for name in LAUNCH_FIELDS]
    tokens, verify = column(batch.tokens), column(batch.verify_tokens)
    out = {}
    for i, regime in enumerate(stack.regimes):
        own = states[regime.name].buckets
        out[regime.name] = StepState({b: values[i] for b, values in buckets.items() if b in own or values[i] != 0},
                                     None if launch is None else LaunchState(*(values[i] for values in launch)),
                                     tokens[i], int(verify[i]))
    return out


def stacked_tok_s(stack: Stack, state: StepState, campaign: Campaign) -> Any:
    """Throughput of each element of a stacked step, capped as `_tok_s` caps one."""
    baseline = np.array([[float(r.baseline_tok_s or 0)] for r in stack.regimes])
    tokens = np.asarray(state.tokens, dtype=float)
    tok_s = baseline * tokens / np.maximum(np.asarray(state.step(), dtype=float), 1e-12)
    verify = np.asarray(state.verify_tokens)
    cap = np.zeros(verify.shape)
    values = [verify.min()] if verify.min() == verify.max() else np.unique(verify)
    for value in values:  # one or two values: the plain step and g + 1
        cap = np.where(verify == value, stack.cap_per_token(int(value), campaign), cap)
    cap = cap * tokens
    return np.where(cap != 0, np.minimum(tok_s, cap), tok_s)
