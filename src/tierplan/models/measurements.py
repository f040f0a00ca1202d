"""Measurements, their retraction, and the options of an import: what a form or a JSON body may send."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from sqlmodel import Field as SQLField
from sqlmodel import SQLModel

from tierplan.models.fields import Input, Int, Number, UtcDatetime, example, field
from tierplan.planning.metrics import METRICS
from tierplan.planning.model import MeasurementKind

KIND_LABELS = {"baseline": "baseline: the projection starts from it",
               "gate check": "gate check: judges gates, leaves the baseline as it is"}


class MeasurementCreate(Input):
    """One measured value of a regime, with what it was taken with."""

    model_config = example(regime="concurrency 16", metric="output_tok_s", value=41.5, kind="gate check",
                           includes=["A1", "A2"], measured_at="2026-11-24T15:30:00Z",
                           note="SGLang main + tuned FP8 configs, --speculative-num-steps 1")

    regime: str = field("Regime", min_length=1, max_length=100)
    metric: str = field("Metric", default="output_tok_s", max_length=50, choices=list(METRICS))
    value: Number = field("Value", placeholder="e.g. 45.2", ge=0)
    kind: MeasurementKind = field("Recorded as", default=MeasurementKind.BASELINE, labels=KIND_LABELS,
                                  help="a baseline starts the projection; a gate check only judges gates")
    includes: list[str] | None = field(
        "Taken with", default=None,
        help="the interventions in place when it was measured; the projection applies only the others "
             "(left out: those landed or validated by then)")
    measured_at: UtcDatetime | None = field("Measured at (UTC)", default=None, help="blank: now")
    note: str = field("Note", default="", max_length=2000, placeholder="configuration, commit, flags")
    confirm: bool = field("Record it anyway: I checked the values flagged above", default=False,
                          help="record values the checks flag as unlikely")


class MeasurementFields(SQLModel):
    """What a stored measurement holds, declared once: the measurement table derives from it (adding its keys, the
    state it was taken in and its indexes), and so does MeasurementPublic."""

    metric: str = SQLField(max_length=50)
    value: float
    unit: str = SQLField(max_length=20)
    measured_at: datetime
    provenance: str = "measured"
    source: str = SQLField(default="form", max_length=300)
    note: str = ""
    kind: str = SQLField(default="baseline", max_length=20)  # a baseline starts projections; a gate check does not
    confirmed: str = ""  # the warnings the user confirmed when recording it, if any
    retracted_at: datetime | None = None
    retracted_by: str = SQLField(default="", max_length=200)
    retraction_reason: str = ""
    recorded_by: str = SQLField(default="", max_length=100, sa_column_kwargs={"server_default": ""})  # "": one user
    left_out: str = SQLField(default="", max_length=500, sa_column_kwargs={"server_default": ""})  # of calibration


class MeasurementPublic(MeasurementFields):
    """A stored measurement, with the keys of the interventions it includes and its retraction, if any."""

    id: int
    regime: str
    includes: list[str]


class HistoryQuery(Input):
    """Which runs of a history a page lists: of one metric, measured between two dates (UTC, both included),
    older than the run the page follows."""

    metric: str = field("Metric", default="", max_length=50)
    since: date | None = field("From", default=None)
    until: date | None = field("To", default=None)
    before: Int | None = field("Older than run", default=None, ge=1)

    @field_validator("until")
    @classmethod
    def _after_since(cls, value: date | None, info: ValidationInfo) -> date | None:
        since = info.data.get("since")
        if value is not None and since is not None and value < since:
            raise ValueError(f"the end date lies before the start date ({since:%Y-%m-%d})")
        return value


class RunPoint(BaseModel):
    """One run as a chart draws it."""

    measured_at: datetime
    value: float
    retracted: bool
    kind: str


class RunStretch(BaseModel):
    """The runs of one stretch of time, as a chart with more runs than it draws shows them."""

    start: datetime
    end: datetime
    runs: int
    low: float
    high: float
    mean: float


class LoginForm(Input):
    """A user's name and password (`tierplan user add` makes users)."""

    name: str = field("Name", min_length=1, max_length=100)
    password: str = field("Password", min_length=1, max_length=1000, widget="password")
    next: str = field("Then go to", default="/", max_length=2000)


class PasswordChange(Input):
    """A logged-in user's new password; the current one proves it is them. Their other sessions end."""

    current: str = field("Current password", min_length=1, max_length=1024, widget="password")
    new: str = field("New password", min_length=1, max_length=1024, widget="password",
                     help="At least 10 characters.")
    again: str = field("New password again", min_length=1, max_length=1024, widget="password")


class TokenCreate(Input):
    """An API token for scripts and CI, made in the app (or with `tierplan token add`)."""

    model_config = example(name="ci-nightly", campaign_id=1)

    name: str = field("What it is for", min_length=1, max_length=100, placeholder="ci-nightly")
    campaign_id: int | None = field("Campaign", default=None,
                                    help="a CI token: it may change this campaign's data and nothing else; blank: any")


class RetractionCreate(Input):
    """Why a measurement is wrong, and who says so."""

    model_config = example(reason="debug build: the run had CUDA_LAUNCH_BLOCKING=1", by="ana")

    reason: str = field("Why it is wrong", min_length=1, max_length=2000, widget="textarea",
                        placeholder="wrong unit, debug build, ...")
    by: str = field("Your name", min_length=1, max_length=200)


class LeaveOutCreate(Input):
    """Why calibration should not count a run (it stays a baseline or gate check); blank puts it back."""

    model_config = example(reason="run on the staging box (H100), not the campaign's GPUs", by="ana")

    reason: str = field("Why calibration should leave it out", default="", max_length=500,
                        placeholder="another GPU, a debug build, a warm-up run", help="blank: calibration counts it again")
    by: str = field("Your name", min_length=1, max_length=200)


class TimeUnit(StrEnum):
    NS = "ns"
    US = "us"
    MS = "ms"
    S = "s"


class ImportOptionsForm(Input):
    """How to read the files of an import."""

    regime: str | None = field(
        "Regime", default=None, max_length=100,
        help="benchmarks: blank matches each run to the regime of its max concurrency; profiles: required")
    pasted: str = field("Or paste vLLM's summary block", default="", max_length=1_000_000, widget="textarea")
    kind: MeasurementKind = field("Benchmarks recorded as", default=MeasurementKind.BASELINE, labels=KIND_LABELS)
    add_regimes: bool = field(
        "Add a regime for each concurrency none has", default=False,
        help="a sweep over concurrencies: each new one becomes a regime, its workload and target assumed from its "
             "neighbours (for the capacity at SLO)")
    includes: list[str] | None = field(
        "Taken with", default=None,
        help="benchmarks: the interventions in place when they ran; none chosen: those landed by each run's date")
    measured_at: UtcDatetime | None = field(
        "Measured at (UTC)", default=None,
        help="benchmarks: the date of runs the file does not date (a pasted block, SGLang JSONL)")
    step_ms: Number | None = field(
        "Measured step time (ms)", default=None, gt=0,
        help="profiles: the unprofiled step time; blank: the regime's newest TPOT or throughput")
    steps: Int | None = field("Steps the profile covers", default=None, ge=1,
                              help="blank: the decode steps found in the trace (kernel tables need it)")
    exclude_passes: Int = field("Leave out the first passes", default=0, ge=0,
                                help="traces: when detection cannot tell a prefill from decode, the passes to skip")
    prototype_of: str | None = field(
        "A prototype of", default=None, max_length=50,
        help="the intervention a prototype of which ran: a trace of it derives its effects against the "
             "regime's own trace, a benchmark sizes the effects entered by the throughput it measured (a graph "
             "path's GPU work: benchmark it in two regimes to tell fixed work from work a sequence); either way "
             "carried to the other regimes, never the regime's own history")
    name_column: str = field("Kernel-name column", default="", max_length=200, help="other kernel CSVs only")
    time_column: str = field("Total-time column", default="", max_length=200)
    time_unit: TimeUnit = field("Time unit", default=TimeUnit.NS, labels={"us": "µs"})


class ImportConfirmForm(Input):
    """The answers a previewed import may still need."""

    measured_at: UtcDatetime | None = field("Measured at (UTC)", default=None,
                                            help="the date of the runs the file does not date")
    confirm: bool = field("Import the flagged values as they are: I checked them", default=False)


class KernelRulesForm(Input):
    """A campaign's kernel -> bucket rules."""

    rules: str = field(
        "Rules, first match wins", default="", max_length=200_000, widget="textarea",
        help="one 'regular expression => bucket' a line, matched case-insensitively anywhere in the kernel name; "
             "kernels no rule matches go to 'other'. Clear the box to go back to the defaults.")


class ImportRecordOut(BaseModel):
    """One imported file; the files imported together share a batch, undone as a whole."""

    model_config = ConfigDict(from_attributes=True)

    batch: str
    file_name: str
    sha256: str
    format: str
    size_bytes: int
    imported_at: datetime
    summary: str
