"""What the planner needs of a long measurement history, kept up to date as runs are written (tierplan/db/history.py),
so that a page reads a few rows whatever the length of the history.

Both tables are derived from `measurement` (and its includes): `tierplan migrate` and a restored backup build
them again from it, and a backup leaves them out.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Text, UniqueConstraint
from sqlmodel import Field, SQLModel


class MeasurementSeries(SQLModel, table=True):
    """The runs of one regime's metric, of one kind (baseline or gate check), taken in one state (the interventions
    they include), not retracted: how many, and the newest. The newest baseline, the newest run of every metric and
    the states a regime was measured in are read here."""

    __tablename__ = "measurement_series"
    __table_args__ = (UniqueConstraint("regime_id", "metric", "kind", "includes_key", name="uq_measurement_series"),)

    id: int | None = Field(default=None, primary_key=True)
    regime_id: int = Field(foreign_key="regime.id", ondelete="CASCADE")
    metric: str = Field(max_length=50)
    kind: str = Field(max_length=20)
    includes_key: str = Field(sa_type=Text)  # as measurement.includes_key
    runs: int  # not retracted
    newest_id: int  # the newest run: the latest measured_at, the highest id among runs measured at that time
    newest_at: datetime
    stamp: int = 0  # the plan revision of its last change: results kept from its runs are keyed on it


class MeasuredChange(SQLModel, table=True):
    """A measured change of a regime's output throughput, as planning/calibration.py defines it: a run, and the
    newest earlier run whose includes are a proper subset of its own; for each set of interventions that changed
    (`changed_key`, their ids as in measurement.includes_key), the newest such pair."""

    __tablename__ = "measured_change"
    __table_args__ = (UniqueConstraint("regime_id", "changed_key", name="uq_measured_change"),)

    id: int | None = Field(default=None, primary_key=True)
    regime_id: int = Field(foreign_key="regime.id", ondelete="CASCADE")
    changed_key: str = Field(sa_type=Text)
    before_id: int = Field(foreign_key="measurement.id", ondelete="CASCADE")
    after_id: int = Field(foreign_key="measurement.id", ondelete="CASCADE")
