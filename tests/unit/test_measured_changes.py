"""The measured changes of calibration found in one pass, kept as runs arrive, and the runs an import keeps."""

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from tierplan.planning.calibration import changes_by_set, newer_changes
from tierplan.planning.gates import evaluate_gate
from tierplan.planning.model import Comparator, Gate, Measurement, MeasurementKind, Tier
from tierplan.planning.runs_kept import RunsKept
from tierplan.planning.stats import Aggregation

START = datetime(2026, 1, 1, tzinfo=UTC)
STATES = [frozenset(), frozenset({"A1"}), frozenset({"A2"}), frozenset({"A1", "A2"}), frozenset({"A1", "A2", "B1"})]


def quadratic_pairs(measurements, regime):
    """The definition as first written: for each run, every earlier run whose includes are a proper subset."""
    series = sorted((m for m in measurements if m.regime == regime and m.metric == "output_tok_s" and m.value > 0),
                    key=lambda m: m.measured_at)
    newest = {}
    for n, after in enumerate(series):
        earlier = [m for m in series[:n] if m.includes < after.includes and m.measured_at < after.measured_at]
        if earlier:
            before = max(earlier, key=lambda m: (len(m.includes), m.measured_at))
            newest[after.includes - before.includes] = (before, after)
    return newest


runs = st.lists(st.tuples(st.integers(0, 40), st.integers(0, len(STATES) - 1), st.floats(1, 100)),
                min_size=0, max_size=40)


def history(spec) -> list[Measurement]:
    """Runs as stored: newest first, the later-stored first among runs of one time (as the database gives them)."""
    made = [Measurement("b1", "output_tok_s", value, START + timedelta(hours=hour), includes=STATES[state], ref=n)
            for n, (hour, state, value) in enumerate(spec)]
    return sorted(made, key=lambda m: (m.measured_at, m.ref), reverse=True)


@settings(max_examples=300, deadline=None)
@given(runs)
def test_one_pass_finds_the_changes_the_definition_does(spec):
    measurements = history(spec)
    assert changes_by_set(measurements, "b1") == quadratic_pairs(measurements, "b1")


@settings(max_examples=300, deadline=None)
@given(runs, st.integers(1, 5))
def test_changes_kept_as_runs_arrive_in_time_order_are_the_changes_of_the_whole_history(spec, batch):
    """Runs added a batch at a time, each after every earlier run: the changes kept from the newest run of each
    state and the new runs are those found in the whole history."""
    ordered = sorted(history(spec), key=lambda m: (m.measured_at, m.ref))
    kept: dict = {}
    stored: list[Measurement] = []
    start = 0
    while start < len(ordered):
        fresh = ordered[start:start + batch]
        if stored and fresh[0].measured_at <= max(m.measured_at for m in stored):
            fresh = [m for m in ordered[start:] if m.measured_at == ordered[start].measured_at]  # ties: found again
            stored += fresh
            kept = changes_by_set(sorted(stored, key=lambda m: (m.measured_at, m.ref), reverse=True), "b1")
        else:
            newest = {}
            for m in sorted(stored, key=lambda m: (m.measured_at, m.ref)):
                newest[m.includes] = m
            newest_first = sorted(newest.values(), key=lambda m: (m.measured_at, m.ref), reverse=True)
            fresh_newest_first = sorted(fresh, key=lambda m: (m.measured_at, m.ref), reverse=True)
            kept.update(newer_changes(newest_first, fresh_newest_first, "b1"))
            stored += fresh
        start += len(fresh)
    whole = changes_by_set(sorted(stored, key=lambda m: (m.measured_at, m.ref), reverse=True), "b1")
    assert kept == whole


def test_an_import_keeps_the_newest_run_of_each_state_and_each_gates_windows():
    tiers = [Tier("A", "quick wins", 0, started_at=START + timedelta(days=50))]
    gates = [Gate("A", "b1", "output_tok_s", Comparator.AT_LEAST, threshold=10, relative_pct=20,
                  aggregation=Aggregation.MEDIAN, window=5, min_samples=3)]
    kept = RunsKept(gates, tiers)
    every = []
    for day in range(100):
        run = Measurement("b1", "output_tok_s", 10 + day % 7, START + timedelta(days=day),
                          MeasurementKind.GATE_CHECK if day % 3 else MeasurementKind.BASELINE,
                          STATES[day // 25], ref=day)
        kept.add(run)
        every.append(run)
    picked = kept.runs()
    assert len(picked) < 20
    whole = sorted(every, key=lambda m: m.measured_at, reverse=True)
    assert evaluate_gate(gates[0], tiers[0], picked) == evaluate_gate(gates[0], tiers[0], whole)
    for state in STATES[:4]:
        newest = max((m for m in every if m.includes == state), key=lambda m: m.measured_at)
        assert newest in picked
