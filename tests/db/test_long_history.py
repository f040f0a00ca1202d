"""A long history on a real database: the planner reads a bounded set of runs and finds what the whole history
gives; pages and charts are bounded; imports of any length go in chunks; PostgreSQL plans use the indexes."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import col, func, select

from tierplan.config import Settings
from tierplan.db import repo
from tierplan.db.engine import Sessions, make_engine, new_session
from tierplan.db.mappers import to_core_measurements
from tierplan.db.tables import Measurement, pk
from tierplan.planning.calibration import calibrate
from tierplan.planning.capacity import campaign_gate_results, load_points
from tierplan.planning.checks import Reading, check_reading
from tierplan.planning.model import MeasurementKind
from tierplan.services.analysis import core_campaign
from tierplan.services.demo import load_demo
from tierplan.services.import_confirm import confirm_import
from tierplan.services.imports import ImportOptions, preview_import
from tierplan.services.snapshots import settle_pending

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def vllm_run(at: datetime, concurrency: int, throughput: float) -> dict:
    """One result as `vllm bench serve --save-result` writes it (default percentile metrics)."""
    tpot = 1000 * concurrency / throughput
    result = {"date": at.strftime("%Y%m%d-%H%M%S"), "backend": "vllm", "model_id": "deepseek-ai/DeepSeek-V4-Flash",
              "num_prompts": 64, "request_rate": "inf", "max_concurrency": concurrency, "duration": 60.0,
              "completed": 64, "failed": 0, "request_throughput": throughput / 256, "request_goodput": None,
              "output_throughput": throughput, "total_token_throughput": throughput * 5}
    for name, mean in (("ttft", 400.0), ("tpot", tpot), ("itl", tpot)):
        result |= {f"mean_{name}_ms": mean, f"median_{name}_ms": mean, f"std_{name}_ms": mean / 10,
                   f"p99_{name}_ms": mean * 1.3}
    return result


def write_nights(path: Path, first: datetime, nights: int, rng: random.Random, step_on: int | None = None) -> Path:
    """A run a night of batch 1 and concurrency 16, with noise and an optional step up."""
    with open(path, "w") as out:
        for night in range(nights):
            at = first + timedelta(days=night)
            lift = 1.3 if step_on is not None and night >= step_on else 1.0
            for concurrency, base in ((1, 10.0), (16, 23.0)):
                out.write(json.dumps(vllm_run(at, concurrency, base * lift * rng.uniform(0.97, 1.03))) + "\n")
    return path


def imported(engine, campaign_id: int, path: Path, tmp_path: Path, **options) -> None:
    with new_session(engine) as session:
        preview = preview_import(session, campaign_id, [(path.name, path)], ImportOptions(**options), now=NOW,
                                 rows_dir=tmp_path)
    confirm_import(Sessions(engine), campaign_id, preview, now=NOW, batch=path.stem.ljust(16, "x")[:64], confirmed=True)


def whole_history(session, campaign_id: int):
    """The campaign as the core would see it with every run loaded (the measured changes found in them)."""
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    regime_ids = [pk(r) for r in rows.regimes]
    every = list(session.exec(select(Measurement).where(col(Measurement.regime_id).in_(regime_ids))
                              .order_by(col(Measurement.measured_at).desc(), col(Measurement.id).desc())).all())
    rows = replace(rows, measurements=every,
                   includes={pk(m): [int(i) for i in m.includes_key.split(",") if i] for m in every}, changes=[])
    campaign, _, _ = core_campaign(rows)
    return replace(campaign, changes=None, measurements=to_core_measurements(rows))


@pytest.fixture
def long_campaign(database_url, tmp_path):
    """The demo with a year of nightly runs in three states, gate checks, a backfill, a retraction, a relative
    median gate, objectives and a capacity gate."""
    engine = make_engine(database_url)
    sessions = Sessions(engine)
    rng = random.Random(7)
    with new_session(engine) as session:
        campaign_id = load_demo(session, now=NOW).id
    settle_pending(engine, session)
    client_app = _app(database_url, tmp_path)
    with TestClient(client_app) as client:
        tier_a = client.get(f"/api/campaigns/{campaign_id}/tiers").json()[0]
        regimes = {r["name"]: r["id"] for r in client.get(f"/api/campaigns/{campaign_id}/regimes").json()}
        for body in ({"tier_id": tier_a["id"], "regime_id": regimes["concurrency 16"], "metric": "output_tok_s",
                      "comparator": ">=", "relative_pct": 10, "aggregation": "median", "window": 5, "min_samples": 3},
                     {"tier_id": tier_a["id"], "regime_id": regimes["batch 1"], "metric": "slo_concurrency",
                      "comparator": ">=", "threshold": 16}):
            assert client.post(f"/api/campaigns/{campaign_id}/gates", json=body).status_code == 201
        for metric, threshold in (("p99_ttft_ms", 2000), ("tpot_ms", 1000)):
            assert client.post(f"/api/campaigns/{campaign_id}/slos", json={
                "metric": metric, "comparator": "<=", "threshold": threshold}).status_code == 201
    first = datetime(2025, 6, 1, 2, 0, tzinfo=UTC)
    imported(engine, campaign_id, write_nights(tmp_path / "none.json", first, 120, rng), tmp_path, includes=[])
    imported(engine, campaign_id, write_nights(tmp_path / "a1.json", first + timedelta(days=120), 120, rng, 60),
             tmp_path, includes=["A1"], kind="gate check")
    imported(engine, campaign_id, write_nights(tmp_path / "both.json", first + timedelta(days=240), 100, rng),
             tmp_path, includes=["A1", "A2"])
    # a backfill: older runs imported last (the changes are found again from the runs)
    imported(engine, campaign_id, write_nights(tmp_path / "old.json", first - timedelta(days=30), 20, rng),
             tmp_path, includes=[])
    with sessions.reader() as session:
        some = session.exec(select(Measurement).where(Measurement.metric == "output_tok_s")
                            .order_by(col(Measurement.id).desc()).limit(3)).all()
    with TestClient(client_app) as client:
        for m in some[1:]:
            client.post(f"/api/campaigns/{campaign_id}/measurements/{m.id}/retract", json={"reason": "bad run"})
    yield engine, campaign_id, client_app
    engine.dispose()


def _app(url: str, tmp_path: Path):
    from tierplan.main import create_app

    return create_app(Settings(database_url=url, load_demo_on_empty=False, upload_dir=tmp_path / "uploads"),
                      clock=lambda: NOW)


def test_the_planner_reads_a_bounded_set_of_runs_and_finds_what_the_whole_history_gives(long_campaign):
    engine, campaign_id, _ = long_campaign
    with new_session(engine) as session:
        rows = repo.load_campaign(session, campaign_id=campaign_id)
        picked, _, _ = core_campaign(rows)
        whole = whole_history(session, campaign_id)
    assert len(whole.measurements) > 10 * len(picked.measurements)
    assert picked.regimes == whole.regimes  # baselines, their states and step times
    assert calibrate(picked) == calibrate(whole)
    assert calibrate(whole).points and calibrate(whole).bias is not None
    assert campaign_gate_results(picked) == campaign_gate_results(whole)
    assert load_points(picked) == load_points(whole)
    assert load_points(picked, baseline_state=True) == load_points(whole, baseline_state=True)
    reading = Reading("concurrency 16", "output_tok_s", 40.0, NOW, MeasurementKind.BASELINE)
    assert check_reading(reading, picked, now=NOW) == check_reading(reading, whole, now=NOW)


def test_deleting_an_intervention_moves_runs_into_the_state_left(long_campaign):
    engine, campaign_id, client_app = long_campaign
    with TestClient(client_app) as client:
        a2 = next(i for i in client.get(f"/api/campaigns/{campaign_id}/interventions").json() if i["key"] == "A2")
        assert client.delete(f"/api/campaigns/{campaign_id}/interventions/{a2['id']}").status_code == 204
    with new_session(engine) as session:
        picked, _, _ = core_campaign(repo.load_campaign(session, campaign_id=campaign_id))
        whole = whole_history(session, campaign_id)
    assert picked.regimes == whole.regimes and calibrate(picked) == calibrate(whole)


def test_the_regime_page_and_the_api_page_through_the_runs(long_campaign):
    _, campaign_id, client_app = long_campaign
    with TestClient(client_app) as client:
        page = client.get(f"/campaigns/{campaign_id}/regimes/1")
        assert page.status_code == 200 and len(page.content) < 1_000_000
        rows = re.findall(r'<tr class="[^"]*" data-measurement="(\d+)"', page.text)
        assert len(rows) == 50
        older = re.search(r'<a rel="next" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
        second = re.findall(r'<tr class="[^"]*" data-measurement="(\d+)"', client.get(older).text)
        assert len(second) == 50 and not set(rows) & set(second)
        only = client.get(f"/campaigns/{campaign_id}/regimes/1",
                          params={"metric": "output_tok_s", "since": "2025-09-01", "until": "2025-09-10"}).text
        dates = re.findall(r'data-measurement="\d+">\s*<td class="nowrap">(?:<s>)?(\d{4}-\d\d-\d\d)', only)
        assert len(dates) == 10 and all("2025-09-01" <= d <= "2025-09-10" for d in dates)
        bad = client.get(f"/campaigns/{campaign_id}/regimes/1", params={"since": "2025-09-10", "until": "2025-09-01"})
        assert bad.status_code == 422 and "the end date lies before the start date" in bad.text
        listed = client.get(f"/api/campaigns/{campaign_id}/measurements", params={"limit": 200, "regime": "batch 1"})
        assert listed.status_code == 200 and len(listed.json()) == 200
        after = listed.headers["link"].split(">")[0].lstrip("<")
        following = client.get(after).json()
        assert following and following[0]["measured_at"] <= listed.json()[-1]["measured_at"]
        assert not {m["id"] for m in following} & {m["id"] for m in listed.json()}
        gone = client.get(f"/api/campaigns/{campaign_id}/measurements", params={"before": 999_999})
        assert gone.status_code == 409 and "no longer exists" in gone.json()["errors"]["before"]
        snapshots = client.get(f"/api/campaigns/{campaign_id}/snapshots", params={"limit": 2})
        assert len(snapshots.json()) == 2 and 'rel="next"' in snapshots.headers["link"]


def test_a_chart_of_a_long_history_draws_stretches_and_keeps_a_spike(long_campaign, tmp_path):
    engine, campaign_id, client_app = long_campaign
    with TestClient(client_app) as client:
        spike_at = "2025-08-15T12:00:00Z"
        assert client.post(f"/api/campaigns/{campaign_id}/measurements", json={
            "regime": "batch 1", "metric": "itl_ms", "value": 9000.0, "kind": "gate check",
            "measured_at": spike_at, "confirm": True}).status_code == 201
        gates = client.post(f"/api/campaigns/{campaign_id}/gates", json={
            "tier_id": client.get(f"/api/campaigns/{campaign_id}/tiers").json()[0]["id"], "regime_id": 1,
            "metric": "itl_ms", "comparator": "<=", "threshold": 200})
        assert gates.status_code == 201
    from tierplan.services import runs

    with new_session(engine) as session:
        regime = repo.regime_named(session, campaign_id=campaign_id, name="batch 1")
        drawn = runs.chart_series(session, regime, "itl_ms", max_points=100)
        assert drawn.runs == [] and 0 < len(drawn.stretches) <= 100
        assert max(s.high for s in drawn.stretches) == 9000.0
        assert sum(s.runs for s in drawn.stretches) == drawn.total >= 361
    with TestClient(client_app) as client:
        page = client.get(f"/campaigns/{campaign_id}/regimes/{pk(regime)}").text
        chart = re.search(r'<svg [^>]*id="history-itl_ms".*?</svg>', page, re.S)
        assert chart is not None  # itl is charted: a gate judges it


def test_an_import_past_sqlites_limit_on_bound_variables_goes_in_chunks(database_url, tmp_path):
    engine = make_engine(database_url)
    with new_session(engine) as session:
        campaign_id = load_demo(session, now=NOW).id
    rng = random.Random(3)
    path = write_nights(tmp_path / "long.json", datetime(2020, 1, 1, tzinfo=UTC), 1200, rng)  # 2,400 runs
    imported(engine, campaign_id, path, tmp_path, includes=["A1"])
    with new_session(engine) as session:
        stored = session.exec(select(func.count()).select_from(Measurement)).one()
        assert stored == 2 + 2400 * 15 > 32_766  # more values than one statement may name on SQLite
        rows = repo.load_campaign(session, campaign_id=campaign_id)
        assert len(rows.measurements) < 200
    engine.dispose()


def test_a_database_error_says_what_failed_and_names_migrate_only_when_the_schema_is_behind(tmp_path, monkeypatch,
                                                                                             capsys):
    from sqlalchemy import text

    from tierplan.cli import main
    from tierplan.config import get_settings
    from tierplan.db.migrate import upgrade_to_head

    behind = f"sqlite:///{tmp_path / 'empty.db'}"
    monkeypatch.setenv("TIERPLAN_DATABASE_URL", behind)
    get_settings.cache_clear()
    assert main(["gates", "1"]) == 1
    said = capsys.readouterr().err
    assert "is not migrated to this version of tierplan: run `tierplan migrate`" in said and "no such table" in said
    current = f"sqlite:///{tmp_path / 'current.db'}"
    upgrade_to_head(current)
    engine = make_engine(current)
    with engine.begin() as connection:
        connection.execute(text("CREATE TRIGGER full BEFORE INSERT ON campaign BEGIN "
                                "SELECT RAISE(ABORT, 'database or disk is full'); END"))
    engine.dispose()
    monkeypatch.setenv("TIERPLAN_DATABASE_URL", current)
    get_settings.cache_clear()
    assert main(["demo"]) == 1
    said = capsys.readouterr().err
    assert "database or disk is full" in said and "migrate" not in said
    get_settings.cache_clear()


@pytest.mark.postgres
def test_postgres_reads_the_plan_of_a_long_history_through_its_indexes(postgres_url, tmp_path):
    from sqlalchemy import event, text

    engine = make_engine(postgres_url)
    with new_session(engine) as session:
        campaign_id = load_demo(session, now=NOW).id
    imported(engine, campaign_id, write_nights(tmp_path / "long.json", datetime(2020, 1, 1, tzinfo=UTC), 730,
                                               random.Random(5)), tmp_path, includes=[])
    with engine.begin() as connection:
        connection.execute(text("ANALYZE"))
    statements: list[tuple[str, dict]] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().startswith("SELECT") and "measurement" in statement:
            statements.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    with new_session(engine) as session:
        repo.load_campaign(session, campaign_id=campaign_id)
    event.remove(engine, "before_cursor_execute", record)
    assert statements
    with engine.connect() as connection:
        for statement, parameters in statements:
            plan = "\n".join(row[0] for row in connection.exec_driver_sql(f"EXPLAIN {statement}", parameters))
            assert not re.search(r"Seq Scan on measurement\b", plan), plan
    engine.dispose()
