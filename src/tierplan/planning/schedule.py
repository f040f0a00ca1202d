"""A schedule: the plan's interventions run by a team of a stated size, prerequisites first, as many at once as there
are people.

List scheduling in plan order, per Monte Carlo sample of the efforts: each intervention starts when a person is free
and its prerequisites are done, and takes its effort in working days; a tier is done when its last intervention is.
Tiers are not made to wait for each other: only prerequisites order the work, so a later tier's independent work
starts as soon as someone is free. Work landed or validated is done (no days left); rejected work is not scheduled;
work in progress is scheduled whole (tierplan does not know how much of it is left).
"""

from __future__ import annotations

import numpy as np

from tierplan.planning.model import Intervention, Status

DONE = (Status.LANDED, Status.VALIDATED)


class Schedule:
    """The team's next free day, a value a person and a sample, and each placed intervention's finish."""

    def __init__(self, team_size: int, samples: int) -> None:
        self.free = np.zeros((max(team_size, 1), samples))
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
        person = self.free.argmin(axis=0)
        done: np.ndarray = np.maximum(self.free[person, self.rows], ready) + effort_days
        self.free[person, self.rows] = done
        self.finish[intervention.key] = done
        return done
