"""Rows on a real database: history is kept, cascades hold, the plan reads back what was stored."""

from datetime import UTC, datetime

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from tests.unit.test_spec_decode_load import v4_floor
from tierplan.db import repo
from tierplan.db.engine import Sessions, make_engine, new_session
from tierplan.db.tables import Campaign, Measurement, Regime
from tierplan.models.measurements import MeasurementCreate
from tierplan.services.demo import load_demo
from tierplan.services.measurements import record_measurement
from tierplan.services.plan import plan_of
from tierplan.services.runs import runs_page
from tierplan.views.plan import plan_view

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def db(database_url):
    engine = make_engine(database_url)
    with new_session(engine) as session:
        yield session
    engine.dispose()


def test_the_demo_campaign_reads_back_as_the_reference_plan(db):
    campaign = load_demo(db, now=NOW)
    plan = plan_view(plan_of(db, campaign_id=campaign.id))
    batch1 = plan.regimes[0]
    # the 100 ms step / 4.8 (A1), plus the GPU time verifying 2 tokens a sequence adds (A2: MTP, acceptance 0.7: the
    # bytes of the 11.86 distinct experts a layer 2 tokens touch instead of 6, at 80% of the bandwidth)
    added_ms = v4_floor(1).verify_added_ms(1)
    assert batch1.steps[1].tok_s == pytest.approx(1000 * 1.7 / (100 / 4.8 + added_ms), rel=1e-3)
    assert [r.name for r in plan.regimes] == ["batch 1", "concurrency 16"]


def test_a_new_measurement_adds_history_and_becomes_the_baseline(db):
    campaign = load_demo(db, now=NOW)
    recorded = record_measurement(Sessions(db.get_bind()), campaign.id,
                                  MeasurementCreate(regime="batch 1", metric="output_tok_s", value=12.5), now=NOW)
    db.rollback()  # the test's own read transaction began before the write; a new one sees it
    history = runs_page(db, campaign.id, regime="batch 1").runs
    assert [m.value for m in history] == [12.5, 10.0]
    assert plan_view(plan_of(db, campaign_id=campaign.id)).regimes[0].steps[0].tok_s == pytest.approx(12.5)
    assert recorded.plan is not None and plan_view(recorded.plan).regimes[0].steps[0].tok_s == pytest.approx(12.5)


def test_stored_times_come_back_as_aware_utc(db):
    campaign = load_demo(db, now=NOW)
    record_measurement(Sessions(db.get_bind()), campaign.id,
                       MeasurementCreate(regime="batch 1", metric="tpot_ms", value=20), now=NOW)
    db.rollback()  # a new transaction sees the write
    db.expire_all()
    newest = db.exec(select(Measurement).order_by(Measurement.id.desc())).first()
    assert newest.measured_at == NOW


def test_deleting_a_campaign_deletes_its_rows(db):
    campaign = load_demo(db, now=NOW)
    db.delete(db.get(Campaign, campaign.id))
    db.commit()
    assert db.exec(select(Regime)).all() == []
    assert db.exec(select(Measurement)).all() == []


def test_a_provenance_outside_the_four_is_refused(db):
    campaign = load_demo(db, now=NOW)
    regime = repo.regime_named(db, campaign_id=campaign.id, name="batch 1")
    db.add(Measurement(regime_id=regime.id, metric="output_tok_s", value=1, unit="tok/s", measured_at=NOW,
                       provenance="guessed"))
    with pytest.raises(IntegrityError):
        db.commit()


def test_an_import_commits_as_one_and_undoes_as_one(db, tmp_path):
    from pathlib import Path

    from tierplan.db.tables import ImportRecord, ProfileShare
    from tierplan.services.import_confirm import confirm_import, undo_import
    from tierplan.services.imports import ImportOptions, preview_import

    data = Path(__file__).parent.parent / "data"
    campaign = load_demo(db, now=NOW)
    counts = lambda: tuple(len(db.exec(select(t)).all()) for t in (Measurement, ProfileShare, ImportRecord))  # noqa: E731
    before = counts()
    options = ImportOptions(kind="gate check")
    week_on = NOW.replace(day=8)  # vLLM wrote bench_serve_append.json on 2026-12-07
    results = preview_import(db, campaign.id, [("append.json", data / "vllm" / "bench_serve_append.json")], options,
                             now=week_on, rows_dir=tmp_path)
    db.rollback()  # the confirm writes on sessions of its own
    confirm_import(Sessions(db.get_bind()), campaign.id, results, now=week_on, batch="a" * 32)
    trace = preview_import(db, campaign.id, [("eager.json.gz", data / "trace_eager_b1.json.gz")],
                           ImportOptions(regime="batch 1", step_ms=11.44), now=NOW, rows_dir=tmp_path)
    db.rollback()
    confirm_import(Sessions(db.get_bind()), campaign.id, trace, now=NOW, batch="b" * 32)
    db.rollback()
    after = counts()
    assert after[0] > before[0] and after[1] == before[1] + len(trace.shares) and after[2] == before[2] + 2
    assert plan_view(plan_of(db, campaign_id=campaign.id)).regimes[0].profile[0][0] == "host_overhead"
    undo_import(db, campaign.id, "a" * 32, now=NOW)
    undo_import(db, campaign.id, "b" * 32, now=NOW)
    db.expire_all()
    assert counts() == before
    assert plan_view(plan_of(db, campaign_id=campaign.id)).regimes[0].profile[0][0] == "attention"
