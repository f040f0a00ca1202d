"""The capacity at SLO in words and records: the plan page, the export and the API read these."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from tierplan.models.plan_rows import SloPublic
from tierplan.planning.capacity import UNCHANGED_NOTE, Capacity, PointCheck
from tierplan.planning.metrics import metric_unit
from tierplan.text import formatting as fmt
from tierplan.text.conditions import slo_text


def point_text(check: PointCheck) -> str:
    """"meets", "misses p99_ttft_ms: 2,400 ms > 2,000 ms", "unknown: no p99_ttft_ms"."""
    if check.meets:
        return "meets every SLO"
    if check.misses:
        return "misses " + "; ".join(
            f"{fmt.metric(o.metric)}: {fmt.number(v, metric_unit(o.metric))} (needs {o.comparator.value} "
            f"{fmt.number(o.threshold, metric_unit(o.metric))})" for o, v in check.misses)
    return "not known: no " + ", ".join(check.unknown)


def capacity_text(found: Capacity) -> str:
    """One line: "concurrency 16 (regime c16): 61.7 tok/s; concurrency 32 misses p99_ttft_ms ..."."""
    if found.concurrency is None:
        first = found.next_miss
        return "no concurrency meets every SLO" + (f": concurrency {first.point.concurrency} {point_text(first)}"
                                                    if first else " (nothing measured)")
    goodput = f", {fmt.tok_s(found.goodput_tok_s)} there" if found.goodput_tok_s is not None else ""
    named = "" if found.regime == f"concurrency {found.concurrency}" else f" ({found.regime})"
    text = f"concurrency {found.concurrency}{named}{goodput}"
    if found.next_miss is not None:
        text += f"; concurrency {found.next_miss.point.concurrency} {point_text(found.next_miss)}"
    else:
        text += "; no higher concurrency measured"
    if found.below_misses:
        text += "; below it, concurrency " + ", ".join(str(c.point.concurrency) for c in found.below_misses) + \
            " misses (the sweep is not monotone)"
    return text


@dataclass
class CapacityView:
    slos: list[tuple[int, str, str]]  # id, text, provenance
    measured_text: str
    points: list[tuple[int, str, str]]  # concurrency, regime, what it meets
    tiers: list[tuple[str, str]]  # tier key, capacity after it
    note: str


def capacity_view(slos: tuple[SloPublic, ...], measured: Capacity | None,
                  tiers: tuple[Capacity, ...]) -> CapacityView | None:
    if not slos or measured is None:
        return None
    return CapacityView(
        slos=[(s.id, slo_text(s), s.provenance.value) for s in slos],
        measured_text=capacity_text(measured),
        points=[(c.point.concurrency, c.point.regime, point_text(c)) for c in measured.checks],
        tiers=[(str(t.tier_key), capacity_text(t)) for t in tiers],
        note=f"After each tier: TPOT divided by the tier's gain a token, ITL following the step time, throughput "
             f"times the gain (capped at the ceiling), {UNCHANGED_NOTE} (an assumption); from each regime's newest "
             "runs taken with what its baseline includes.",
    )


class PointOut(BaseModel):
    concurrency: int
    regime: str
    meets: bool | None = Field(description="null: a metric an SLO needs was not measured there")
    text: str


class CapacityOut(BaseModel):
    tier: str | None = Field(description="null: as measured")
    concurrency: int | None = Field(description="the highest concurrency meeting every SLO; null: none")
    regime: str | None
    goodput_tok_s: float | None = Field(description="output throughput at that concurrency")
    text: str
    points: list[PointOut]


def capacity_out(found: Capacity) -> CapacityOut:
    return CapacityOut(tier=found.tier_key, concurrency=found.concurrency, regime=found.regime,
                       goodput_tok_s=found.goodput_tok_s, text=capacity_text(found),
                       points=[PointOut(concurrency=c.point.concurrency, regime=c.point.regime, meets=c.meets,
                                        text=point_text(c)) for c in found.checks])
