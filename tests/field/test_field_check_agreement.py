"""`field.check.agreement`: undecided first moves (lab or field) and failed replays are counted
apart, never as agreement; κ is Cohen's on "a skill first" over the turns decided on both sides."""

from __future__ import annotations

from skillbench.backends.base import SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.field.check import CheckTurn, agreement
from skillbench.field.records import FieldRecord, Offered
from skillbench.stats import cohen_kappa


def _turn(first_tool: str | None, first_skill: str | None) -> CheckTurn:
    record = FieldRecord(
        agent="claude", agent_version="2.1.197", session="s", project="p", turn="t", index=0,
        time=None, prompt_sha256="0" * 64, prompt_chars=1, text="q",
        offered=[Offered(skill="a", listing="full", description="A")],
        offered_source="transcript", invoked=[], first_tool=first_tool, first_skill=first_skill,
    )  # fmt: skip
    return CheckTurn(record, TriggerRequest(SkillEntry("a", "A"), (), "q", 0))


def test_undecided_and_failed_are_apart() -> None:
    turns = [
        _turn("Skill", "a"),  # same skill
        _turn("Skill", "a"),  # other skill
        _turn(None, None),  # neither
        _turn(None, None),  # lab only
        _turn("Skill", "a"),  # field only
        _turn("Bash", None),  # undecided in the field
        _turn("Skill", "a"),  # undecided in the lab
        _turn("Skill", "a"),  # failed replay
    ]
    outcomes = [
        TriggerOutcome(True, fired="a"),
        TriggerOutcome(False, fired="b"),
        TriggerOutcome(False),
        TriggerOutcome(True, fired="a"),
        TriggerOutcome(False),
        TriggerOutcome(True, fired="a"),
        TriggerOutcome(False, undecided="Read"),
        TriggerOutcome(False, error="api: 500"),
    ]
    result = agreement(turns, outcomes)
    assert (result.turns, result.compared) == (8, 5)
    assert (result.same_skill, result.other_skill, result.neither) == (1, 1, 1)
    assert (result.lab_only, result.field_only) == (1, 1)
    assert (result.undecided_field, result.undecided_lab, result.errors) == (1, 1, 1)
    assert result.agreement == 2 / 5
    field = [True, True, False, False, True]
    lab = [True, True, False, True, False]
    assert result.kappa is not None and result.kappa.value == cohen_kappa(field, lab)
    assert result.kappa.n == 5
