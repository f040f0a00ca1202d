"""The plan's head: a tier's progress and the next gate to pass, read from the page's views."""

from tierplan.views.plan import GateView, InterventionView, TierView
from tierplan.views.summary import next_gate, tier_progress


def gate(status: str, severity: str = "hard", gate_id: int = 1) -> GateView:
    return GateView(id=gate_id, tier_key="A", regime="batch 1", metric="output_tok_s",
                    condition_text="output throughput >= 40.0 tok/s", status=status, severity=severity,
                    evidence_text="", projected_text="", provenance="assumed")


def intervention(status: str) -> InterventionView:
    return InterventionView(id=1, key="A1", title="t", description="", links=[], status=status, effort_text="1 d",
                            effort_provenance="assumed", effects=[])


def tier(key: str, gates: list[GateView]) -> TierView:
    return TierView(id=1, key=key, name=key, description="", started_text="", interventions=[], gates=gates,
                    gates_text="", outcome=[], effort_text="")


def test_progress_counts_landed_and_validated_and_leaves_rejected_out():
    progress = tier_progress([intervention(s) for s in ("proposed", "landed", "validated", "rejected")],
                             [gate("pass"), gate("pending"), gate("fail", severity="warn")], validated=False)
    assert progress.done_text == "2 of 3 landed, 1 validated, 1 rejected"
    assert progress.width_pct(progress.validated) == 33.3 and progress.width_pct(progress.landed) == 33.3
    assert progress.gates_text == "1 of 2 hard gates pass" and progress.state == "pending"


def test_a_failing_hard_gate_marks_the_tier_and_all_passing_validates_it():
    assert tier_progress([], [gate("pass"), gate("fail")], validated=False).state == "failing"
    assert tier_progress([], [gate("pass"), gate("pass")], validated=True).state == "validated"
    assert tier_progress([], [gate("fail", severity="warn")], validated=False).state == "no gate"


def test_the_next_gate_is_the_first_open_hard_gate_of_the_first_tier_not_validated_failing_first():
    a = tier("A", [gate("pass", gate_id=1)])
    b = tier("B", [gate("pending", gate_id=2), gate("fail", gate_id=3), gate("fail", "warn", gate_id=4)])
    found = next_gate([a, b])
    assert found.tier_key == "B" and found.gate.id == 3
    assert next_gate([a]) is None
