"""`upgrade head` on an empty database gives exactly the models' schema."""

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import tierplan.db.account_tables  # registers the tables on SQLModel.metadata, as migrations/env.py does
import tierplan.db.history_tables
import tierplan.db.job_tables
import tierplan.db.snapshot_tables
import tierplan.db.tables  # noqa: F401
from tierplan.db.engine import make_engine
from tierplan.db.migrate import alembic_config


def schema_differences(url: str) -> list:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
    finally:
        engine.dispose()


def test_upgrade_head_leaves_no_difference_from_the_models(database_url):
    assert schema_differences(database_url) == []


def test_downgrade_to_base_and_back_up_again(database_url):
    config = alembic_config(database_url)
    command.downgrade(config, "base")
    command.upgrade(config, "head")
    assert schema_differences(database_url) == []


def test_upgrading_keeps_the_children_of_rebuilt_tables(database_url):
    """0002 rebuilds `effect` on SQLite; with foreign keys left on, its effect_regime rows would cascade away."""
    from sqlalchemy import text

    config = alembic_config(database_url)
    command.downgrade(config, "0001")
    engine = make_engine(database_url)
    statements = [
        "INSERT INTO campaign (id, name, model, hardware, gpu_count, notes, created_at) "
        "VALUES (1, 'c', '', '', 1, '', '2026-11-01 00:00:00')",
        "INSERT INTO regime (id, campaign_id, name, position, concurrency, input_tokens, output_tokens, "
        "workload_provenance, target_tok_s, target_provenance, notes) "
        "VALUES (1, 1, 'batch 1', 0, 1, 1, 1, 'assumed', 100, 'assumed', '')",
        "INSERT INTO intervention (id, campaign_id, key, title, description, links, position, effort_low_days, "
        "effort_likely_days, effort_high_days, effort_provenance, status) "
        "VALUES (1, 1, 'A1', 't', '', '', 0, 1, 1, 1, 'assumed', 'proposed')",
        "INSERT INTO effect (id, intervention_id, kind, speedup_low, speedup_likely, speedup_high, provenance, note) "
        "VALUES (1, 1, 'step', 2, 2, 2, 'assumed', '')",
        "INSERT INTO effect_regime (effect_id, regime_id) VALUES (1, 1)",
    ]
    try:
        with engine.begin() as connection:
            for statement in statements:
                connection.execute(text(statement))
        command.upgrade(config, "head")
        with engine.begin() as connection:
            assert connection.execute(text("SELECT count(*) FROM effect_regime")).scalar() == 1
            assert connection.execute(text("SELECT seed FROM campaign")).scalar() == 20261202
            connection.execute(text("UPDATE effect SET kind = 'spec_decode' WHERE id = 1"))
    finally:
        engine.dispose()
    assert schema_differences(database_url) == []


def test_measurements_taken_before_0004_include_what_had_landed_by_then(database_url):
    from sqlalchemy import text

    config = alembic_config(database_url)
    command.downgrade(config, "0003")
    engine = make_engine(database_url)
    statements = [
        "INSERT INTO campaign (id, name, model, hardware, gpu_count, notes, created_at, seed, samples, "
        "apply_calibration) VALUES (1, 'c', '', '', 1, '', '2026-11-01 00:00:00', 1, 100, false)",
        "INSERT INTO regime (id, campaign_id, name, position, concurrency, input_tokens, output_tokens, "
        "workload_provenance, target_tok_s, target_provenance, notes) "
        "VALUES (1, 1, 'batch 1', 0, 1, 1, 1, 'assumed', 100, 'assumed', '')",
        "INSERT INTO intervention (id, campaign_id, key, title, description, links, position, effort_low_days, "
        "effort_likely_days, effort_high_days, effort_provenance, status, landed_at) "
        "VALUES (1, 1, 'A1', 't', '', '', 0, 1, 1, 1, 'assumed', 'landed', '2026-11-20 00:00:00')",
        "INSERT INTO measurement (id, regime_id, metric, value, unit, measured_at, provenance, source, note) VALUES "
        "(1, 1, 'output_tok_s', 10, 'tok/s', '2026-11-10 00:00:00', 'measured', 'form', ''), "
        "(2, 1, 'output_tok_s', 30, 'tok/s', '2026-11-25 00:00:00', 'measured', 'form', '')",
    ]
    try:
        with engine.begin() as connection:
            for statement in statements:
                connection.execute(text(statement))
        command.upgrade(config, "head")
        with engine.begin() as connection:
            rows = connection.execute(text("SELECT measurement_id, intervention_id FROM measurement_include")).all()
            kinds = connection.execute(text("SELECT DISTINCT kind FROM measurement")).scalars().all()
    finally:
        engine.dispose()
    assert [tuple(r) for r in rows] == [(2, 1)] and kinds == ["baseline"]


def test_0019_moves_each_estimate_to_a_row_and_back(database_url):
    """The demo's estimates (speedups and an acceptance rate) survive 0019 down to columns and up to
    rows again, value for value."""
    from datetime import UTC, datetime

    from sqlalchemy import text

    from tierplan.db.engine import new_session
    from tierplan.services.demo import load_demo

    def estimates(connection) -> list[tuple]:
        query = "SELECT effect_id, input, low, likely, high FROM effect_estimate ORDER BY effect_id, input"
        return [tuple(row) for row in connection.execute(text(query)).all()]

    engine = make_engine(database_url)
    try:
        with new_session(engine) as session:
            load_demo(session, now=datetime(2026, 12, 1, tzinfo=UTC))
        with engine.begin() as connection:
            before = estimates(connection)
        command.downgrade(alembic_config(database_url), "0018")
        with engine.begin() as connection:
            columns = connection.execute(text(
                "SELECT id, speedup_likely, acceptance_low, draft_cost_high, saved_ms_likely FROM effect ORDER BY id"
            )).all()
        command.upgrade(alembic_config(database_url), "head")
        with engine.begin() as connection:
            after = estimates(connection)
    finally:
        engine.dispose()
    kinds = {name for _, name, *_ in before}
    assert kinds == {"speedup", "acceptance"} and after == before
    speedups = {effect_id: likely for effect_id, name, _, likely, _ in before if name == "speedup"}
    acceptances = {effect_id: low for effect_id, name, low, _, _ in before if name == "acceptance"}
    assert {row[0]: row[1] for row in columns if row[1] is not None} == speedups
    assert {row[0]: row[2] for row in columns if row[2] is not None} == acceptances
    assert all(row[3] is None and row[4] is None for row in columns)  # the demo has no draft cost, no time saved
    assert schema_differences(database_url) == []
