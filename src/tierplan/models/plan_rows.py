"""Campaigns, regimes, tiers, interventions and gates: what a form or a JSON body may set, and what is read back."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlmodel import AutoString, SQLModel
from sqlmodel._compat import SQLModelConfig

from tierplan.models.fields import TEXT_MAX, Input, Int, Number, UtcDatetime, example, field, update_model
from tierplan.planning.metrics import METRICS
from tierplan.planning.model import Comparator, Provenance, Severity, Status
from tierplan.planning.stats import Aggregation
from tierplan.planning.targets import TargetKind

EFFORT_MAX_DAYS = 10_000  # about 27 person-years: anything longer is a slip, not a plan

PROVENANCE_LABELS = {"measured": "measured", "imported": "imported from a file",
                     "reported": "reported (upstream or by the team)", "assumed": "assumed"}
COMPARATOR_LABELS = {">=": ">= (at least)", "<=": "<= (at most)"}
AGGREGATION_LABELS = {"newest": "the newest run", "median": "the median of the last N runs",
                      "mean": "the mean of the last N runs"}
SEVERITY_LABELS = {"hard": "hard: the tier needs it to pass", "warn": "warn: reported, never blocks the tier"}
METRIC_OPTIONS = tuple((m.name, f"{m.label} ({m.unit})") for m in METRICS.values())
MAX_SAMPLES = 200_000


def provenance(title: str, default: Provenance | None = None) -> Provenance:
    """Where a value comes from: one of Provenance, stored as its text (a CHECK on the table holds it)."""
    kwargs = {} if default is None else {"default": default}
    return field(title, labels=PROVENANCE_LABELS, sa_type=AutoString, **kwargs)  # type: ignore[no-any-return]


def text(title: str, max_length: int = TEXT_MAX, **options: Any) -> Any:
    """Free text, "" when not given: bounded where it is typed, stored in an unbounded column."""
    return field(title, default="", max_length=max_length, sa_type=AutoString, **options)


class Public(BaseModel):
    model_config = SQLModelConfig(from_attributes=True)


class Versioned(Public):
    version: int = PydanticField(1, description="how many times the row was saved: its ETag, sent back as If-Match")


# Each family's fields are declared once, in an XFields base: the table (tierplan/db/tables.py) and the XCreate,
# XUpdate and XPublic models derive from it, so a field's type, bound, label and help are written in one place.


class CampaignFields(SQLModel):
    name: str = field("Name", min_length=1, max_length=200, placeholder="DeepSeek-V4-Flash on 8x RTX PRO 6000")
    model: str = field("Model", default="", max_length=500)
    hardware: str = field("Hardware", default="", max_length=1000)
    gpu_count: Int = field("GPU count", ge=1)
    notes: str = text("Notes", widget="textarea")


class CampaignSettingsFields(CampaignFields):
    seed: Int = field("Monte Carlo seed", default=20261202, ge=0, help="the same seed gives the same numbers")
    samples: Int = field("Monte Carlo samples", default=10_000, ge=100, le=MAX_SAMPLES, help="100 to 200,000")
    apply_calibration: bool = field(
        "Apply calibration to pending work", default=False,
        help="scale pending gains by the share realised so far (unticked: project with the estimates as entered)")
    team_size: Int = field(
        "People on the plan", default=1, ge=1, le=1000, sa_column_kwargs={"server_default": "1"},
        help="the schedule runs this many interventions at once, prerequisites first; each tier gets a P50 and a "
             "P90 date")


class CampaignRecordFields(CampaignSettingsFields):
    created_at: UtcDatetime = field("Created at (UTC)")


class CampaignCreate(CampaignFields, Input):
    """A campaign: one model on one set of GPUs, with its regimes, tiers and interventions."""

    model_config = example(name="DeepSeek-V4-Flash on 8x RTX PRO 6000", model="DeepSeek-V4-Flash",
                           hardware="8x NVIDIA RTX PRO 6000 Blackwell, PCIe", gpu_count=8,
                           notes="decode throughput at batch 1 and concurrency 16")


class CampaignSettings(CampaignSettingsFields, CampaignCreate):
    """A campaign with its Monte Carlo settings (the campaign's edit form)."""


CampaignUpdate = update_model(CampaignSettings, "CampaignUpdate", {"samples": 20_000, "apply_calibration": True})


class CampaignPublic(CampaignSettings, CampaignRecordFields, Versioned):
    id: int


class RegimeFields(SQLModel):
    name: str = field("Name", min_length=1, max_length=100, placeholder="batch 1")
    concurrency: Int = field("Concurrency", ge=1)
    input_tokens: Int = field("Input tokens", ge=1)
    output_tokens: Int = field("Output tokens", ge=1)
    workload_provenance: Provenance = provenance("Workload comes from", Provenance.ASSUMED)
    target_tok_s: Number = field(
        "Target output tok/s", gt=0, le=1e8,
        help="aggregate: all the regime's sequences together (a per-user target of u tok/s at concurrency c is "
             "c x u; a TPOT of t ms is c x 1000 / t)")
    target_kind: TargetKind = field(
        "The team states it as", default=TargetKind.AGGREGATE, sa_type=AutoString,
        labels={"aggregate": "aggregate tok/s", "per_user": "tok/s per user", "tpot": "TPOT (ms per token)"},
        help="what stays fixed when the concurrency changes: the aggregate, or each user's speed")
    target_provenance: Provenance = provenance("Target comes from", Provenance.ASSUMED)
    position: Int = field("Position", default=0, ge=0, help="order on the plan page")
    notes: str = text("Notes", widget="textarea")


class RegimeCreate(RegimeFields, Input):
    """A concurrency regime with its workload and throughput target."""

    model_config = example(name="concurrency 16", concurrency=16, input_tokens=1024, output_tokens=256,
                           workload_provenance="measured", target_tok_s=1000, target_provenance="reported")

RegimeUpdate = update_model(RegimeCreate, "RegimeUpdate", {"target_tok_s": 1200, "target_provenance": "assumed"})


class RegimePublic(RegimeCreate, Versioned):
    id: int


class TierFields(SQLModel):
    key: str = field("Key", min_length=1, max_length=20, placeholder="A")
    name: str = field("Name", min_length=1, max_length=200, placeholder="Claim existing upstream wins")
    position: Int = field("Order", ge=0, help="tiers apply in this order")
    description: str = text("Description and expected outcome", widget="textarea")
    started_at: UtcDatetime | None = field(
        "Work started at (UTC)", default=None, help="gates count measurements taken after this; blank: not started")


class TierCreate(TierFields, Input):
    """A tier of the roadmap: interventions done together, judged by the tier's gates."""

    model_config = example(key="B", name="Highest-leverage custom kernels", position=2,
                           description="Weeks. Kernels for the two largest buckets.")

TierUpdate = update_model(TierCreate, "TierUpdate", {"started_at": "2026-11-16T09:00:00Z"})


class TierFirstSchedule(SQLModel):
    """The first schedule the plan gave a tier (kept to show slips against it; planning/schedule.py): read, never
    entered."""

    first_done_p50: date | None = field("First scheduled done (P50)", default=None)
    first_done_p90: date | None = field("First scheduled done (P90)", default=None)


class TierPublic(TierCreate, TierFirstSchedule, Versioned):
    id: int


class InterventionFields(SQLModel):
    key: str = field("Key", min_length=1, max_length=20, placeholder="A1")
    title: str = field("Title", min_length=1, max_length=300)
    tier_id: int | None = field("Tier", default=None, help="blank: not in the plan yet", foreign_key="tier.id",
                                ondelete="SET NULL", index=True)
    status: Status = field("Status", default=Status.PROPOSED, sa_type=AutoString)
    effort_low_days: Number = field("Effort low (days)", ge=0, le=EFFORT_MAX_DAYS)
    effort_likely_days: Number = field("Effort likely (days)", ge=0, le=EFFORT_MAX_DAYS)
    effort_high_days: Number = field("Effort high (days)", ge=0, le=EFFORT_MAX_DAYS)
    effort_provenance: Provenance = provenance("Effort comes from", Provenance.ASSUMED)
    position: Int = field("Order in its tier", default=0, ge=0)
    assignee: str = text("Done by", max_length=100, placeholder="Ann",
                         help="who does it: their work is done one after the other; blank: whoever is free first")
    started_at: UtcDatetime | None = field("Started at (UTC)", default=None)
    landed_at: UtcDatetime | None = field(
        "Landed at (UTC)", default=None,
        help="blank when marked landed: now. Calibration compares throughput before and after")
    description: str = text("Description", widget="textarea")
    links: str = text("References", widget="textarea", help="one link or citation a line")


class InterventionCreate(InterventionFields, Input):
    """A candidate change with its effort estimate; its effects say what it buys."""

    model_config = example(key="B1", title="Split-K sparse-decode attention kernel", tier_id=2, status="proposed",
                           effort_low_days=10, effort_likely_days=15, effort_high_days=25, effort_provenance="assumed",
                           description="Split the KV range so the kernel fills the 188 SMs instead of 64 blocks.")

    prerequisite_ids: list[int] = field("Needs first", default_factory=list,
                                        help="interventions that must be done before this one can start")

InterventionUpdate = update_model(InterventionCreate, "InterventionUpdate",
                                  {"status": "landed", "landed_at": "2026-11-20T17:00:00Z"})


class InterventionPublic(InterventionCreate, Versioned):
    id: int


class GateFields(SQLModel):
    tier_id: int = field("Tier", foreign_key="tier.id", ondelete="CASCADE", index=True)
    regime_id: int = field("Regime", foreign_key="regime.id", ondelete="CASCADE", index=True)
    metric: str = field("Metric", default="output_tok_s", max_length=50, choices=[k for k, _ in METRIC_OPTIONS])
    comparator: Comparator = field("Passes when the value is", default=Comparator.AT_LEAST, labels=COMPARATOR_LABELS,
                                   sa_type=AutoString)
    threshold: Number | None = field("Threshold", default=None, ge=0,
                                     help="in the metric's unit; blank: judged on the change over the baseline only")
    relative_pct: Number | None = field(
        "Change over the baseline (%)", default=None, gt=-100, le=1e6,
        help="+30: at least 1.3x the baseline's runs from before the tier started (-20 with <=: at most 0.8x); "
             "blank: absolute only")
    reference_regime_id: int | None = field("Baseline of regime", default=None,
                                            help="whose runs the change is measured against; blank: this regime's",
                                            foreign_key="regime.id", ondelete="SET NULL")
    aggregation: Aggregation = field("Judge", default=Aggregation.NEWEST, labels=AGGREGATION_LABELS,
                                     sa_type=AutoString(length=10))
    window: Int = field("Last N runs", default=1, ge=1, le=1000, help="the median or mean takes this many runs")
    min_samples: Int = field("Runs needed", default=1, ge=1, le=1000,
                             help="fewer runs since the tier started leave the gate inconclusive")
    severity: Severity = field("Severity", default=Severity.HARD, labels=SEVERITY_LABELS, sa_type=AutoString(length=10))
    provenance: Provenance = provenance("Threshold comes from", Provenance.ASSUMED)
    note: str = text("Note", max_length=2000)


class GateCreate(GateFields, Input):
    """A validation gate: its tier is validated when every hard gate passes on the runs since the tier started.

    The gate judges the newest run, or the median or mean of the last N, against an absolute threshold, a
    change over the baseline (the runs before the tier started), or both. With several runs it decides on
    the 90% bootstrap interval: an interval across the threshold, or too few runs, is inconclusive."""

    model_config = example(tier_id=1, regime_id=2, metric="output_tok_s", comparator=">=", threshold=40,
                           relative_pct=30, aggregation="median", window=5, min_samples=3, severity="hard",
                           provenance="reported", note="upstream's figure at concurrency 16")

GateUpdate = update_model(GateCreate, "GateUpdate", {"threshold": 45})


class GatePublic(GateCreate, Versioned):
    id: int


SLO_METRIC_OPTIONS = tuple((m.name, f"{m.label} ({m.unit})") for m in METRICS.values()
                           if m.name != "slo_concurrency")


class SloFields(SQLModel):
    metric: str = field("Metric", default="p99_ttft_ms", max_length=50, choices=[k for k, _ in SLO_METRIC_OPTIONS])
    comparator: Comparator = field("Met when the value is", default=Comparator.AT_MOST, labels=COMPARATOR_LABELS,
                                   sa_type=AutoString)
    threshold: Number = field("Threshold", ge=0, help="in the metric's unit (ms for latencies)")
    provenance: Provenance = provenance("Objective comes from", Provenance.REPORTED)
    note: str = text("Note", max_length=2000)


class SloCreate(SloFields, Input):
    """A service-level objective: the capacity at SLO is the highest concurrency whose runs meet every one."""

    model_config = example(metric="p99_ttft_ms", comparator="<=", threshold=2000, provenance="reported",
                           note="the product's interactive SLO")

SloUpdate = update_model(SloCreate, "SloUpdate", {"threshold": 1500})


class SloPublic(SloCreate, Versioned):
    id: int
