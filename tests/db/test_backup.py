"""A campaign backed up as JSON and restored is the same campaign: every row, and the same plan."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tierplan.db.engine import new_session
from tierplan.models.errors import FormInvalid
from tierplan.services.backup import export_campaign, import_campaign

DATA = Path(__file__).parent.parent / "data"
HTMX = {"HX-Request": "true"}


@pytest.fixture
def rich_campaign(client: TestClient, demo_id: int, clock) -> int:
    """The demo with what a campaign gathers: an import, a retraction, a second profile, rules, a prerequisite."""
    clock.advance(days=7)  # vLLM wrote bench_serve_append.json on 2026-12-07
    files = [("files", ("run.json", (DATA / "vllm" / "bench_serve_append.json").read_bytes()))]
    preview = client.post(f"/campaigns/{demo_id}/import", files=files, data={"includes": ["A1", "A2"]}, headers=HTMX)
    token = preview.text.split("/import/")[1].split("/confirm")[0]
    assert client.post(f"/campaigns/{demo_id}/import/{token}/confirm", headers=HTMX).status_code == 204
    measurement = client.post(f"/api/campaigns/{demo_id}/measurements",
                              json={"regime": "batch 1", "metric": "output_tok_s", "value": 99, "kind": "gate check"})
    client.post(f"/api/campaigns/{demo_id}/measurements/{measurement.json()['id']}/retract",
                json={"reason": "typo", "by": "ana"})
    client.post(f"/campaigns/{demo_id}/regimes/1/profile", data={"shares": "attention 60%\nmoe 30%", "source": "v2"})
    client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": "decode => attention\nmoe => moe"})
    client.patch(f"/api/campaigns/{demo_id}/interventions/4", json={"prerequisite_ids": [3]})
    return demo_id


def test_a_backup_restored_and_backed_up_again_is_the_same_document(app, client, rich_campaign):
    with new_session(app.state.engine) as session:
        first = export_campaign(session, rich_campaign)
    with new_session(app.state.engine) as session:
        restored = import_campaign(session, json.loads(json.dumps(first))).id
    with new_session(app.state.engine) as session:
        again = export_campaign(session, restored)
    assert restored != rich_campaign and again == first
    tables = first["tables"]
    assert {name for name, rows in tables.items() if rows} >= {
        "campaign", "regime", "tier", "intervention", "prerequisite", "effect", "effect_regime", "gate",
        "measurement", "measurement_include", "profile", "profile_share", "import_record", "kernel_rule",
        "hardware_spec", "model_spec", "effect_estimate"}
    plan = client.get(f"/api/campaigns/{rich_campaign}/plan").json()
    copy = client.get(f"/api/campaigns/{restored}/plan").json()
    def without_ids(gates):
        return [{k: v for k, v in g.items() if k != "id"} for g in gates]

    assert copy["regimes"] == plan["regimes"] and without_ids(copy["gates"]) == without_ids(plan["gates"])


def as_version_1(document: dict) -> dict:
    """The document as tierplan wrote it before 0019: each estimate three columns of its effect."""
    tables = dict(document["tables"])
    estimates = tables.pop("effect_estimate")
    effects = []
    for effect in tables["effect"]:
        columns = {f"{name}_{point}": None for name in ("speedup", "saved_ms", "acceptance", "draft_cost", "removed",
                                                        "launches") for point in ("low", "likely", "high")}
        for estimate in (e for e in estimates if e["effect_id"] == effect["id"]):
            columns |= {f"{estimate['input']}_{point}": estimate[point] for point in ("low", "likely", "high")}
        effects.append(effect | columns)
    return {**document, "version": 1, "tables": {**tables, "effect": effects}}


def test_a_version_1_backup_restores_its_estimates_as_rows(app, client, rich_campaign):
    with new_session(app.state.engine) as session:
        current = export_campaign(session, rich_campaign)
    old = as_version_1(current)
    assert "speedup_likely" in old["tables"]["effect"][0] and "effect_estimate" not in old["tables"]
    with new_session(app.state.engine) as session:
        restored = import_campaign(session, old).id
    with new_session(app.state.engine) as session:
        again = export_campaign(session, restored)
    assert again == current  # version 2, every estimate a row, every other row as it was
    plan = client.get(f"/api/campaigns/{rich_campaign}/plan").json()
    assert client.get(f"/api/campaigns/{restored}/plan").json()["regimes"] == plan["regimes"]


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(format="other"), "not a tierplan campaign backup"),
    (lambda d: d["tables"]["regime"][0].update(colour="red"), "regime row 1: unknown column 'colour'"),
    (lambda d: d["tables"]["gate"][0].update(regime_id=99), "gate row 1: regime_id 99 names no regime row"),
    (lambda d: d["tables"]["measurement"][0].update(measured_at="yesterday"), "measurement row 1: measured_at"),
    (lambda d: d["tables"]["regime"][0].update(concurrency="8"), "regime row 1: concurrency '8' does not fit the column"),
    (lambda d: d["tables"]["regime"][0].update(name="x" * 500), "regime row 1: name"),
    (lambda d: d["tables"]["effect"][0].update(kind="magic"), "effect row 1: kind 'magic' is not one of bucket"),
    (lambda d: d["tables"]["effect_estimate"][0].update(likely="2"), "effect_estimate row 1: likely '2' does not"),
    (lambda d: d.update(version=3), "backup format version 3; this tierplan reads 1, 2"),
])
def test_a_bad_backup_names_the_table_and_row_and_writes_nothing(app, demo_id, change, message):
    with new_session(app.state.engine) as session:
        document = export_campaign(session, demo_id)
    change(document)
    with new_session(app.state.engine) as session:
        with pytest.raises(FormInvalid) as refused:
            import_campaign(session, document)
        assert message in refused.value.errors["file"]
    with new_session(app.state.engine) as session:
        assert len(export_campaign(session, demo_id)["tables"]["campaign"]) == 1
        from sqlmodel import func, select

        from tierplan.db.tables import Campaign
        assert session.exec(select(func.count()).select_from(Campaign)).one() == 1


def test_the_cli_round_trips_a_campaign(sqlite_url, tmp_path):
    env = {**os.environ, "TIERPLAN_DATABASE_URL": sqlite_url}

    def tierplan(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tierplan.cli", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    assert tierplan("demo").returncode == 0
    backup = tmp_path / "campaign-1.json"
    assert tierplan("export", "1", "--json", "--out", str(backup)).returncode == 0
    restored = tierplan("import-campaign", str(backup))
    assert restored.returncode == 0 and "as campaign 2" in restored.stdout
    again = tmp_path / "campaign-2.json"
    assert tierplan("export", "2", "--json", "--out", str(again)).returncode == 0
    assert json.loads(again.read_text()) == json.loads(backup.read_text())
    backup.write_text(backup.read_text()[:200])
    broken = tierplan("import-campaign", str(backup))
    assert broken.returncode == 1 and "not JSON" in broken.stderr
