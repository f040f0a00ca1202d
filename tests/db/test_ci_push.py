"""CI as a team would run it: real vLLM results pushed to a real server with `tierplan push`, then
`tierplan gates` read for its exit code, its text and its JUnit XML."""

import html
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.serving import serving

DATA = Path(__file__).parent.parent / "data"


def tierplan(*args: str, url: str = "sqlite:///unused.db") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tierplan.cli", *args], capture_output=True, text=True, timeout=120,
                          env={"TIERPLAN_DATABASE_URL": url, "PATH": "/usr/bin:/bin"})


def vllm_run(tmp_path: Path, name: str, *, concurrency: int, tok_s: float, tpot_ms: float, date: str) -> Path:
    """One run of the vLLM fixture (a `vllm bench serve --save-result` record) with its figures moved."""
    lines = (DATA / "vllm" / "bench_serve_append.json").read_text().splitlines()
    record = next(r for r in map(json.loads, lines) if r["max_concurrency"] == concurrency)
    record.update(date=date, output_throughput=tok_s, mean_tpot_ms=tpot_ms)
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path


@pytest.fixture
def server(tmp_path):
    with serving(f"sqlite:///{tmp_path / 'ci.db'}", tmp_path / "server.log") as base:
        yield base


def push(server: str, *files: Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return tierplan("push", *map(str, files), "--server", server, "--campaign", "1", "--includes", "A1,A2", *extra)


def test_a_passing_result_exits_0_and_a_retry_stores_nothing_twice(server, tmp_path):
    run = vllm_run(tmp_path, "pass.json", concurrency=1, tok_s=44.1, tpot_ms=21.1, date="20261120-101500")
    first = push(server, run)
    assert first.returncode == 0, first.stderr + first.stdout
    assert "PASS         batch 1: output throughput >= 40.0 tok/s" in first.stdout
    assert "44.1 tok/s on 2026-11-20" in first.stdout
    assert "every hard gate passes among the gates these runs decided (exit 0); tier A is not validated: another " \
           "of its gates fails or is pending" in first.stdout  # the concurrency-16 gate, which this run did not decide
    unknown = tierplan("push", str(run), "--server", server, "--campaign", "1", "--includes", "A1,Z9")
    assert unknown.returncode != 0 and "no intervention Z9 in this campaign" in unknown.stderr
    again = push(server, run)
    assert again.returncode == 0 and "already stored by an earlier push: nothing new" in again.stderr
    measurements = json.load(urllib.request.urlopen(f"{server}/api/campaigns/1/measurements"))
    assert sum(m["value"] == 44.1 for m in measurements) == 1
    gates = tierplan("gates", "1", "--tier", "A", "--server", server, "--format", "junit")
    assert gates.returncode == 3  # tier A's concurrency 16 gate has no run yet
    suite = ET.fromstring(gates.stdout).find("testsuite")
    assert suite.get("tests") == "3" and suite.get("failures") == "0" and suite.get("skipped") == "1"
    assert suite.find("testcase/skipped").get("message") == "pending: no measurement since the tier started"


def test_a_failing_result_exits_1_with_the_evidence(server, tmp_path):
    run = vllm_run(tmp_path, "slow.json", concurrency=1, tok_s=35.0, tpot_ms=28.4, date="20261121-090000")
    pushed = push(server, run, extra=("--format", "markdown"))
    assert pushed.returncode == 1, pushed.stderr
    assert "### ❌ a gate fails" in pushed.stdout
    assert "| ❌ fail | batch 1 | output throughput >= 40.0 tok/s | 35.0 tok/s on 2026-11-21" in pushed.stdout
    junit = tmp_path / "gates.xml"
    gates = tierplan("gates", "1", "--tier", "A", "--server", server, "--format", "junit", "--out", str(junit))
    assert gates.returncode == 1
    failures = ET.parse(junit).getroot().findall(".//failure")
    assert {f.get("type") for f in failures} == {"fail"} and len(failures) == 2  # throughput and TPOT


def test_too_few_runs_exit_3_and_more_runs_decide(server, tmp_path):
    body = json.dumps({"tier_id": 1, "regime_id": 2, "metric": "output_tok_s", "comparator": ">=", "threshold": 40,
                       "aggregation": "median", "window": 5, "min_samples": 3}).encode()
    request = urllib.request.Request(f"{server}/api/campaigns/1/gates", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(request).status == 201
    runs = [vllm_run(tmp_path, f"c16-{i}.json", concurrency=16, tok_s=tok_s, tpot_ms=240.0,
                     date=f"2026112{i}-100000") for i, tok_s in enumerate((61.7, 60.9, 62.4))]
    one = push(server, runs[0])
    assert one.returncode == 3, one.stdout + one.stderr
    assert "INCONCLUSIVE" in one.stdout and "1 of the 3 runs it needs since the tier started" in one.stdout
    assert push(server, runs[1]).returncode == 3
    three = push(server, runs[2])
    assert three.returncode == 0, three.stdout
    assert "median of the last 5 runs (3 needed): output throughput >= 40.0 tok/s" in three.stdout
    assert "3 runs 2026-11-20 to 2026-11-22: 61.7 tok/s (90% interval 60.9 tok/s to 62.4 tok/s)" in three.stdout


def test_gates_from_the_database_and_bad_arguments(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert tierplan("demo", url=url).returncode == 0
    pending = tierplan("gates", "1", url=url)
    assert pending.returncode == 3 and "PENDING      batch 1: output throughput >= 40.0 tok/s" in pending.stdout
    as_json = json.loads(tierplan("gates", "1", "--format", "json", url=url).stdout)
    assert as_json["exit_code"] == 3 and [t["tier"] for t in as_json["tiers"]] == ["A", "B", "C"]
    unknown = tierplan("gates", "1", "--tier", "Z", url=url)
    assert unknown.returncode == 2 and "has no tier 'Z' (it has A, B, C)" in unknown.stderr
    assert tierplan("gates", "8", url=url).returncode == 2
    assert tierplan("push", str(DATA / "vllm" / "bench_serve_append.json"), "--server", "ftp://x", "--campaign", "1"
                    ).returncode == 1


def test_a_prototype_s_benchmark_is_pushed_as_the_intervention_s_evidence(server, tmp_path):
    """A branch's benchmark pushed with --prototype-of: the intervention's evidence, not the regime's history."""
    run = vllm_run(tmp_path, "branch.json", concurrency=1, tok_s=44.1, tpot_ms=21.1, date="20261120-101500")
    before = len(json.load(urllib.request.urlopen(f"{server}/api/campaigns/1/measurements")))
    pushed = tierplan("push", str(run), "--server", server, "--campaign", "1", "--regime", "batch 1",
                      "--prototype-of", "A1")
    assert pushed.returncode == 0, pushed.stderr + pushed.stdout
    assert "values stored as the evidence of A1's prototype" in pushed.stderr
    assert len(json.load(urllib.request.urlopen(f"{server}/api/campaigns/1/measurements"))) == before
    plan = html.unescape(urllib.request.urlopen(f"{server}/campaigns/1").read().decode())
    assert "Sized by a prototype's benchmark in batch 1" in plan
    unknown = tierplan("push", str(run), "--server", server, "--campaign", "1", "--prototype-of", "Z9")
    assert unknown.returncode != 0 and "no intervention 'Z9' in this campaign" in unknown.stderr
