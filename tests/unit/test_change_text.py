"""What an edit changed, in words."""

from tierplan.models.effects import EffectCreate
from tierplan.models.plan_rows import InterventionCreate
from tierplan.services.change_text import change_text


def test_each_changed_field_is_named_with_its_old_and_new_value():
    before = {"status": "proposed", "effort_low_days": 1.0, "effort_likely_days": 2.0, "effort_high_days": 4.0,
              "prerequisite_ids": []}
    after = before | {"status": "landed", "effort_likely_days": 2500.0, "prerequisite_ids": [3, 4]}
    assert change_text(InterventionCreate, before, after) == (
        "Status proposed → landed, Effort likely (days) 2 → 2,500, Needs first blank → 3, 4")


def test_unchanged_fields_say_nothing_long_texts_are_named_and_many_are_counted():
    same = {"speedup_likely": 2.0, "note": "x"}
    assert change_text(EffectCreate, same, dict(same)) == ""
    assert change_text(EffectCreate, same, same | {"note": "a much longer note that nobody wants quoted in a log"}) \
        == "Note changed"
    many = same | {"speedup_low": 1.0, "speedup_likely": 3.0, "speedup_high": 4.0, "provenance": "measured",
                   "note": "y"}
    assert change_text(EffectCreate, same, many).endswith(" and 2 more")
