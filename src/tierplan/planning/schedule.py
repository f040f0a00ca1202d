"""A schedule: the plan's interventions run by a team of a stated size, prerequisites first, as many at once as there
are people.

List scheduling in plan order, per Monte Carlo sample of the efforts: each intervention starts when a person is free
and its prerequisites are done, and takes its effort in working days; a tier is done when its last intervention is.
An intervention assigned to someone waits for that person; one assigned to nobody goes to whoever is free first.
Each name is one of the team's people (more names than the team size make the team that large). Tiers are not made
to wait for each other: only prerequisites order the work, so a later tier's independent work starts as soon as
someone is free. Work landed or validated is done (no days left); rejected work is not scheduled; work in progress
is scheduled whole (tierplan does not know how much of it is left).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date, datetime

import numpy as np

from tierplan.planning.model import Intervention, Status

DONE = (Status.LANDED, Status.VALIDATED)


def schedule_start(tier_starts: Iterable[datetime | None], created_at: datetime) -> date:
    """When the schedule starts: the first tier's start, else the campaign's creation."""
    started = [t for t in tier_starts if t is not None]
    return (min(started) if started else created_at).date()


def working_day(start: date, days: float) -> date:
    """The date `days` working days (weekends skipped) after `start`: the day the work done by then ends."""
    return date.fromisoformat(str(np.busday_offset(np.datetime64(start, "D"), math.ceil(days - 1e-9),
                                                   roll="forward")))


def working_days_between(first: date, then: date) -> int:
    """Working days from `first` to `then` (negative: earlier)."""
    return int(np.busday_count(first, then)) if then >= first else -int(np.busday_count(then, first))


def people(team_size: int, assignees: Iterable[str]) -> int:
    """The people the schedule has: the team's size, or as many as the work names when more."""
    return max(team_size, len({a for a in assignees if a}), 1)


class Schedule:
    """The team's next free day, a value a person and a sample, and each placed intervention's finish."""

    def __init__(self, team_size: int, samples: int, assignees: tuple[str, ...] = ()) -> None:
        names = tuple(dict.fromkeys(a for a in assignees if a))
        self.free = np.zeros((people(team_size, names), samples))
        self.person = {name: n for n, name in enumerate(names)}  # each name a row of its own
        self.rows = np.arange(samples)
        self.finish: dict[str, np.ndarray] = {}

    def place(self, intervention: Intervention, effort_days: np.ndarray) -> np.ndarray:
        """Schedule one intervention after those placed before it; its finish (working days from the start)."""
        ready = np.zeros(len(self.rows))
        for key in intervention.prerequisites:
            if key in self.finish:
                ready = np.maximum(ready, self.finish[key])
        if intervention.status in DONE:
            self.finish[intervention.key] = ready
            return ready
        if intervention.assignee in self.person:
            person = np.full(len(self.rows), self.person[intervention.assignee])
        else:
            person = self.free.argmin(axis=0)
        done: np.ndarray = np.maximum(self.free[person, self.rows], ready) + effort_days
        self.free[person, self.rows] = done
        self.finish[intervention.key] = done
        return done
