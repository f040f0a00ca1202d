"""How many SQL statements a request runs: each loads what it needs once (counted on the SQLite file), and none
grows with the history (tests/db/test_long_history.py runs the same on a long one)."""

import re
from collections import Counter

from sqlalchemy import event

HTMX = {"HX-Request": "true"}
TABLES = {"campaign", "regime", "profile", "profile_share", "tier", "intervention", "effect", "effect_regime",
          "effect_estimate",
          "gate", "prerequisite", "measurement", "hardware_spec", "model_spec", "slo", "measurement_series",
          "measured_change", "prototype_run", "profile_kernel"}
# the runs the planner needs: the probes around the baselines and the gates in one statement, then the rows; the
# profiles twice: each regime's own, then each intervention's prototype trace; the kernels those profiles named once
# (effects that target kernels act on them, prototypes are carried kernel by kernel)
PLAN_READS = Counter(dict.fromkeys(TABLES, 1)) + Counter({"measurement": 1, "profile": 1})


def counted(app, request) -> tuple[int, Counter]:
    statements: list[str] = []

    def record(conn, cursor, statement, *args):
        if not statement.startswith("BEGIN"):  # transaction control (SQLite's BEGIN is emitted by tierplan/db/engine.py)
            statements.append(statement)

    engines = (app.state.engine, app.state.revision_engine)  # the plan page asks the revision on its own engine
    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    try:
        response = request()
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", record)
    assert response.status_code < 400, response.text
    reads = Counter(re.search(r"FROM ([a-z_]+)", s).group(1) for s in statements  # a subquery's: its table
                    if s.startswith("SELECT") and re.search(r"FROM ([a-z_]+)", s))
    return len(statements), reads


def test_the_plan_page_reads_each_table_once_and_a_repeat_reads_only_the_revision(client, app, demo_id):
    total, reads = counted(app, lambda: client.get(f"/campaigns/{demo_id}"))
    # and whether anyone is registered, for the header's "Log in" (asked at most every 10 s)
    assert total == 23 and reads == PLAN_READS + Counter({"plan_revision": 1, "user_account": 1})
    total, reads = counted(app, lambda: client.get(f"/campaigns/{demo_id}"))
    assert total == 1 and reads == Counter({"plan_revision": 1})


def test_the_api_plan_reads_each_table_once(client, app, demo_id):
    total, reads = counted(app, lambda: client.get(f"/api/campaigns/{demo_id}/plan"))
    assert total == 21 and reads == PLAN_READS


def test_a_measurement_post_reads_the_campaign_before_and_after_its_write_and_no_more(client, app, demo_id):
    data = {"regime": "batch 1", "metric": "output_tok_s", "value": "45", "kind": "gate check", "includes_given": "1"}
    total, reads = counted(app, lambda: client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX))
    # the campaign before the write (the checks, the blocks as they were) and after it (the plan it left, once:
    # the blocks it moved and the figures of its snapshot, the newest of which it reads first); in the write,
    # the series and measured changes the run joins (the newest run of each state, for those, and the revision
    # that stamps them), after the campaign's row is locked (writers of one campaign one at a time); whether any
    # user exists (a change needs a login then); and, with the snapshot's figures, whether a tier has no first
    # schedule yet
    assert total == 57 and reads["user_account"] == 1
    assert reads == PLAN_READS + PLAN_READS + Counter({"measurement_series": 1, "measured_change": 1, "measurement": 1,
                                                       "plan_revision": 1, "plan_snapshot": 1, "user_account": 1,
                                                       "campaign": 1, "tier": 1}), reads
