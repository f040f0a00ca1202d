"""How many SQL statements a request runs: each loads what it needs once (counted on the SQLite file)."""

from collections import Counter

from sqlalchemy import event

HTMX = {"HX-Request": "true"}
TABLES = {"campaign", "regime", "profile", "profile_share", "tier", "intervention", "effect", "effect_regime",
          "gate", "prerequisite", "measurement", "measurement_include", "hardware_spec", "model_spec", "slo"}


def counted(app, request) -> tuple[int, Counter]:
    statements: list[str] = []

    def record(conn, cursor, statement, *args):
        if not statement.startswith("BEGIN"):  # transaction control (SQLite's BEGIN is emitted by app/db/engine.py)
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
    reads = Counter(s.split("FROM ")[1].split()[0] for s in statements if s.startswith("SELECT") and "FROM " in s)
    return len(statements), reads


def test_the_plan_page_reads_each_table_once_and_a_repeat_reads_only_the_revision(client, app, demo_id):
    total, reads = counted(app, lambda: client.get(f"/campaigns/{demo_id}"))
    assert total == 16 and reads == Counter(dict.fromkeys(TABLES, 1)) + Counter({"plan_revision": 1})
    total, reads = counted(app, lambda: client.get(f"/campaigns/{demo_id}"))
    assert total == 1 and reads == Counter({"plan_revision": 1})


def test_the_api_plan_reads_each_table_once(client, app, demo_id):
    total, reads = counted(app, lambda: client.get(f"/api/campaigns/{demo_id}/plan"))
    assert total == 15 and reads == Counter(dict.fromkeys(TABLES, 1))


def test_a_measurement_post_reads_the_campaign_before_and_after_its_write_and_no_more(client, app, demo_id):
    data = {"regime": "batch 1", "metric": "output_tok_s", "value": "45", "kind": "gate check", "includes_given": "1"}
    total, reads = counted(app, lambda: client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX))
    # the campaign once; its other tables before the write (the checks, the blocks as they were), in the write's
    # transaction (the plan's snapshot) and after it (the blocks it moved); the measurement once more, as stored;
    # and whether any user exists (a change needs a login then)
    assert total == 49 and reads["user_account"] == 1
    assert {t: reads[t] for t in TABLES} == {**dict.fromkeys(TABLES, 3), "campaign": 1, "measurement": 4}, reads
