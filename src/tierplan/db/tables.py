"""SQLModel tables. Every stored estimate or measurement carries its provenance.

A table that users edit derives from its XFields base in tierplan/models, where each field is declared once (type,
bounds, label, help, column options); the table adds only its keys, its version and its constraints."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import CheckConstraint, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from tierplan.models.effects import EffectHead, EffectTail, ProfileFields
from tierplan.models.measurements import MeasurementFields
from tierplan.models.plan_rows import (
    CampaignRecordFields,
    GateFields,
    InterventionFields,
    RegimeFields,
    SloFields,
    TierFields,
    TierFirstSchedule,
)
from tierplan.models.specs import HardwareSpecFields, ModelSpecFields

PROVENANCE_CHECK = "{col} IN ('measured', 'imported', 'reported', 'assumed')"


def provenance_check(column: str, name: str) -> CheckConstraint:
    return CheckConstraint(PROVENANCE_CHECK.format(col=column), name=name)


class Campaign(CampaignRecordFields, table=True):
    __tablename__ = "campaign"

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)
    kernel_rules_version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves of its rules


class HardwareSpec(HardwareSpecFields, table=True):
    """The GPUs a campaign's decode step runs on (one row a campaign)."""

    __tablename__ = "hardware_spec"
    __table_args__ = (provenance_check("provenance", "ck_hardware_spec_provenance"),)

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", unique=True)


class ModelSpec(ModelSpecFields, table=True):
    """The model's shape as the ceiling needs it (one row a campaign)."""

    __tablename__ = "model_spec"
    __table_args__ = (provenance_check("provenance", "ck_model_spec_provenance"),)

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", unique=True)


class Regime(RegimeFields, table=True):
    __tablename__ = "regime"
    __table_args__ = (
        UniqueConstraint("campaign_id", "name", name="uq_regime_campaign_name"),
        provenance_check("target_provenance", "ck_regime_target_provenance"),
        provenance_check("workload_provenance", "ck_regime_workload_provenance"),
    )

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)


class Measurement(MeasurementFields, table=True):
    """One measured value; rows are only ever added (a correction retracts, never deletes), so the history is kept."""

    __tablename__ = "measurement"
    __table_args__ = (
        provenance_check("provenance", "ck_measurement_provenance"),
        CheckConstraint("kind IN ('baseline', 'gate check')", name="ck_measurement_kind"),
        # the reads of a long history, each bounded by what it shows (tierplan/db/history.py): a regime's runs newest
        # first, one metric's runs around a time (holding what a chart, a gate or the regression search reads of
        # them, so those read the index alone), the newest run of one state
        Index("ix_measurement_regime_time", "regime_id", "measured_at", "id"),
        Index("ix_measurement_metric_time", "regime_id", "metric", "measured_at", "id", "value", "kind",
              "retracted_at"),
        Index("ix_measurement_state_time", "regime_id", "metric", "kind", "includes_key", "measured_at", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    regime_id: int = Field(foreign_key="regime.id", ondelete="CASCADE")
    import_id: int | None = Field(default=None, foreign_key="import_record.id", ondelete="CASCADE", index=True)
    # the ids of the interventions it includes, sorted, comma-separated ("" for none): its state, which the reads
    # of one state's runs find through an index; written with the measurement_include rows it repeats
    includes_key: str = Field(default="", sa_type=Text, sa_column_kwargs={"server_default": ""})


class MeasurementInclude(SQLModel, table=True):
    """An intervention that was in place when the measurement was taken."""

    __tablename__ = "measurement_include"

    measurement_id: int = Field(foreign_key="measurement.id", ondelete="CASCADE", primary_key=True)
    intervention_id: int = Field(foreign_key="intervention.id", ondelete="CASCADE", primary_key=True, index=True)


class Profile(ProfileFields, table=True):
    """A split of one regime's step time; the newest profile of a regime is the one planned on."""

    __tablename__ = "profile"

    id: int | None = Field(default=None, primary_key=True)
    regime_id: int = Field(foreign_key="regime.id", ondelete="CASCADE", index=True)
    import_id: int | None = Field(default=None, foreign_key="import_record.id", ondelete="CASCADE", index=True)
    # set: traced with a prototype of this intervention in place, its evidence (never the regime's own profile)
    intervention_id: int | None = Field(default=None, foreign_key="intervention.id", ondelete="CASCADE", index=True)


class ProfileKernel(SQLModel, table=True):
    """A kernel a trace or kernel table named, with its bucket and its fraction of that bucket's time: what an
    effect that targets kernels acts on (planning/kernel_targets.py). The largest KEPT_KERNELS of a profile."""

    __tablename__ = "profile_kernel"

    id: int | None = Field(default=None, primary_key=True)
    profile_id: int = Field(foreign_key="profile.id", ondelete="CASCADE", index=True)
    name: str = Field(max_length=1000)
    bucket: str = Field(max_length=100)
    fraction: float  # of its bucket's time in the profile
    calls_a_step: float | None = None  # launches a decode step, where a trace said (a kernel table does not)
    launch: str = Field(default="", max_length=300)  # Nsight Compute: blocks, threads, SMs, occupancy, DRAM
    blocks_per_sm: float | None = None  # torch.profiler: its launches' mean blocks per SM, where the trace said


class PrototypeRun(SQLModel, table=True):
    """The throughput a prototype of an intervention measured in one regime: its evidence, sizing its effects
    (planning/prototype_benchmark.py); never a run of the regime's own history."""

    __tablename__ = "prototype_run"

    id: int | None = Field(default=None, primary_key=True)
    intervention_id: int = Field(foreign_key="intervention.id", ondelete="CASCADE", index=True)
    regime_id: int = Field(foreign_key="regime.id", ondelete="CASCADE", index=True)
    import_id: int | None = Field(default=None, foreign_key="import_record.id", ondelete="CASCADE", index=True)
    tok_s: float  # output tokens a second
    measured_at: datetime
    created_at: datetime
    source: str = Field(default="", max_length=300)  # the file and run it was read from


class ProfileShare(SQLModel, table=True):
    __tablename__ = "profile_share"
    __table_args__ = (
        UniqueConstraint("profile_id", "bucket", name="uq_profile_share_bucket"),
        provenance_check("provenance", "ck_profile_share_provenance"),
    )

    id: int | None = Field(default=None, primary_key=True)
    profile_id: int = Field(foreign_key="profile.id", ondelete="CASCADE", index=True)
    bucket: str = Field(max_length=100)
    share: float
    provenance: str = "assumed"


class Tier(TierFields, TierFirstSchedule, table=True):
    __tablename__ = "tier"
    __table_args__ = (UniqueConstraint("campaign_id", "key", name="uq_tier_campaign_key"),)

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)


class Intervention(InterventionFields, table=True):
    __tablename__ = "intervention"
    __table_args__ = (
        UniqueConstraint("campaign_id", "key", name="uq_intervention_campaign_key"),
        provenance_check("effort_provenance", "ck_intervention_effort_provenance"),
    )

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)


class Prerequisite(SQLModel, table=True):
    """`intervention_id` can only start once `requires_id` is done."""

    __tablename__ = "prerequisite"

    intervention_id: int = Field(foreign_key="intervention.id", ondelete="CASCADE", primary_key=True)
    requires_id: int = Field(foreign_key="intervention.id", ondelete="CASCADE", primary_key=True)


class Effect(EffectHead, EffectTail, table=True):
    """What an intervention buys, of one kind (the core's registry, tierplan/planning/effect_kinds.py, says what
    each kind does); its three-point inputs are rows of effect_estimate, its regimes rows of effect_regime."""

    __tablename__ = "effect"
    __table_args__ = (provenance_check("provenance", "ck_effect_provenance"),)

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)


class EffectEstimate(SQLModel, table=True):
    """One three-point input of an effect, by the name its kind gives it (speedup, saved_ms, acceptance,
    draft_cost, removed, launches...): a kind with new inputs needs no new column."""

    __tablename__ = "effect_estimate"

    effect_id: int = Field(foreign_key="effect.id", ondelete="CASCADE", primary_key=True)
    input: str = Field(max_length=30, primary_key=True)
    low: float
    likely: float
    high: float


class EffectRegime(SQLModel, table=True):
    """The regimes an effect is limited to; none means every regime (bucket effects only)."""

    __tablename__ = "effect_regime"

    effect_id: int = Field(foreign_key="effect.id", ondelete="CASCADE", primary_key=True)
    regime_id: int = Field(foreign_key="regime.id", ondelete="CASCADE", primary_key=True)


class Gate(GateFields, table=True):
    __tablename__ = "gate"
    __table_args__ = (
        CheckConstraint("comparator IN ('>=', '<=')", name="ck_gate_comparator"),
        provenance_check("provenance", "ck_gate_provenance"),
        CheckConstraint("aggregation IN ('newest', 'median', 'mean')", name="ck_gate_aggregation"),
        CheckConstraint("severity IN ('hard', 'warn')", name="ck_gate_severity"),
        CheckConstraint("threshold IS NOT NULL OR relative_pct IS NOT NULL", name="ck_gate_threshold"),
    )

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)


class Slo(SloFields, table=True):
    """A service-level objective of the campaign: the capacity at SLO is the highest concurrency meeting all."""

    __tablename__ = "slo"
    __table_args__ = (
        CheckConstraint("comparator IN ('>=', '<=')", name="ck_slo_comparator"),
        provenance_check("provenance", "ck_slo_provenance"),
    )

    id: int | None = Field(default=None, primary_key=True)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})  # saves so far (stale edits: 409)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)


class ImportRecord(SQLModel, table=True):
    """One imported file; the files imported together share a batch, undone as a whole."""

    __tablename__ = "import_record"

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)
    batch: str = Field(max_length=64, index=True)
    file_name: str = Field(max_length=500)
    sha256: str = Field(max_length=64, index=True)
    format: str = Field(max_length=40)
    size_bytes: int
    imported_at: datetime
    summary: str = ""


class KernelRule(SQLModel, table=True):
    """Kernel name -> bucket, first match wins; a campaign without rules uses the defaults."""

    __tablename__ = "kernel_rule"

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)
    position: int
    pattern: str = Field(max_length=500)
    bucket: str = Field(max_length=100)


class PlanRevision(SQLModel, table=True):
    """One row: a counter every flush that writes moves (tierplan/db/revision.py); cached plan pages key on it."""

    __tablename__ = "plan_revision"

    id: int = Field(primary_key=True)
    revision: int


def pk(row: SQLModel) -> int:
    """The primary key of a stored (flushed) row; a row not yet stored has none."""
    value = getattr(row, "id", None)
    if value is None:
        raise ValueError(f"{type(row).__name__} has no id yet: add and flush it first")
    return int(value)


def ids(rows: Iterable[SQLModel]) -> list[int]:
    """The primary keys of stored rows, in order."""
    return [pk(r) for r in rows]


class Submission(SQLModel, table=True):
    """A form or API request that wrote something, by the idempotency key its client sent: the same key again
    writes nothing and answers with what the first wrote."""

    __tablename__ = "submission"

    key: str = Field(primary_key=True, max_length=64)
    kind: str = Field(max_length=20)  # "measurement"
    result_id: int  # the row the first request wrote
    created_at: datetime


class ChangeLog(SQLModel, table=True):
    """One saved edit of a campaign's rows: when, by whom (blank in single-user mode), what."""

    __tablename__ = "change_log"

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)
    at: datetime
    by: str = Field(default="", max_length=100)
    kind: str = Field(max_length=20)  # regimes, tiers, interventions, effects, gates, campaign, specs
    row_id: int
    action: str = Field(max_length=20)  # created, updated, deleted
    label: str = Field(default="", max_length=200)  # "intervention A1"
