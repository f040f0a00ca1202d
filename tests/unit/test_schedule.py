"""The schedule: a team of a stated size, prerequisites first, as many interventions at once as there are people."""

from datetime import date

import numpy as np
import pytest

from tests.factories import make_regime
from tierplan.planning.model import Campaign, Intervention, Status, ThreePoint, Tier
from tierplan.planning.schedule import Schedule, working_day, working_days_between
from tierplan.planning.uncertainty import simulate


def work(key: str, days: float, tier: str = "A", needs: tuple[str, ...] = (), status=Status.PROPOSED,
         by: str = "") -> Intervention:
    return Intervention(key, key, ThreePoint(days, days, days), status=status, tier_key=tier, prerequisites=needs,
                        assignee=by)


def test_a_team_of_two_by_hand():
    team = Schedule(2, samples=1)
    a = team.place(work("A1", 3), np.array([3.0]))  # person 1: days 0-3
    b = team.place(work("A2", 5), np.array([5.0]))  # person 2: days 0-5
    c = team.place(work("B1", 2, "B", needs=("A2",)), np.array([2.0]))  # waits for A2: 5-7, on person 1
    d = team.place(work("B2", 4, "B"), np.array([4.0]))  # person 2 free at 5: 5-9
    assert [float(x[0]) for x in (a, b, c, d)] == [3.0, 5.0, 7.0, 9.0]


def test_landed_work_takes_no_days_and_rejected_work_none_of_the_team():
    campaign = Campaign((make_regime(),), (Tier("A", "A", 1), Tier("B", "B", 2)), (
        work("A1", 3, status=Status.LANDED), work("A2", 5), work("B1", 2, "B", needs=("A1",)),
        work("B2", 8, "B", status=Status.REJECTED)), team_size=2)
    efforts = {e.tier_key: e for e in simulate(campaign, samples=200, seed=1).efforts}
    assert efforts["A"].done_p50_days == pytest.approx(5.0)  # A2 alone: A1 is done
    assert efforts["B"].done_p50_days == pytest.approx(2.0)  # B1 right away on the second person, B2 rejected
    one = simulate(Campaign(campaign.regimes, campaign.tiers, campaign.interventions, team_size=1), 200, 1)
    assert {e.tier_key: e for e in one.efforts}["B"].done_p50_days == pytest.approx(7.0)  # after A2, one person


def test_work_assigned_to_someone_waits_for_them():
    """Two people: Ann has A1 (3 d), B1 (2 d) and B2 (4 d); A2 (5 d) goes to whoever is free. B2 waits for Ann
    (5-9) though the other person is free from 5."""
    team = Schedule(2, samples=1, assignees=("ann", "", "ann", "ann"))
    a1 = team.place(work("A1", 3, by="ann"), np.array([3.0]))
    a2 = team.place(work("A2", 5), np.array([5.0]))  # the other person: 0-5
    b1 = team.place(work("B1", 2, "B", by="ann"), np.array([2.0]))  # Ann: 3-5
    b2 = team.place(work("B2", 4, "B", by="ann"), np.array([4.0]))  # Ann again: 5-9
    assert [float(x[0]) for x in (a1, a2, b1, b2)] == [3.0, 5.0, 5.0, 9.0]


def test_more_names_than_the_team_size_make_the_team_that_large():
    team = Schedule(1, samples=1, assignees=("ann", "bo"))
    one = team.place(work("A1", 3, by="ann"), np.array([3.0]))
    two = team.place(work("A2", 4, by="bo"), np.array([4.0]))
    assert (float(one[0]), float(two[0])) == (3.0, 4.0)  # at once, each on their own


def test_working_days_skip_weekends():
    friday = date(2026, 12, 4)
    assert working_day(friday, 1) == date(2026, 12, 7)  # a day's work from Friday ends on Monday
    assert working_days_between(date(2026, 12, 10), date(2026, 12, 14)) == 2  # Thursday to Monday
    assert working_days_between(date(2026, 12, 14), date(2026, 12, 10)) == -2
