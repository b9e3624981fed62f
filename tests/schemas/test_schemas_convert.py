"""Conversions between writing-skills and skill-creator, in both directions, losses asserted."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from seed_examples import all_examples

from skillbench.errors import InputError
from skillbench.schemas import CONCEPTS, convert, dump, from_data
from skillbench.schemas.skill_creator import SCEvals, SCGrading, SCHistory
from skillbench.schemas.writing_skills import WSEvals, WSGrading, WSHistory

EXAMPLES = {ex.name: ex.data for ex in all_examples()}
PAIRS = {
    "evals": ("002-0-evals", "004-0-evals"),
    "history": ("002-1-history", "004-1-history"),
    "grading": ("002-2-grading", "004-2-grading"),
    "comparison": ("002-3-comparison", "upstream-comparison"),
    "analysis": ("002-4-analysis", "upstream-analysis"),
}


def _convert(name: str, to: str) -> tuple[Any, list[str]]:
    result = convert(from_data(copy.deepcopy(EXAMPLES[name])), to)
    return result.model, result.losses


@pytest.mark.parametrize("concept", CONCEPTS)
def test_both_directions_give_valid_documents_and_name_losses(concept: str) -> None:
    ws_name, sc_name = PAIRS[concept]
    for name, to in ((ws_name, "skill-creator"), (sc_name, "writing-skills")):
        model, losses = _convert(name, to)
        assert type(model).model_validate(dump(model)) == model  # the output validates
        if dump(model).keys() != {"winner", "reasoning"}:  # that bare pair fits both dialects
            again = from_data(dump(model))
            assert (again.kind, again.dialect) == (concept, to)
        assert losses, f"{name} → {to} cannot be lossless"


def test_same_dialect_is_identity() -> None:
    loaded = from_data(EXAMPLES["002-0-evals"])
    result = convert(loaded, "writing-skills")
    assert result.model is loaded.model and result.losses == []


def test_grading_ws_to_sc_drops_scores_and_says_so() -> None:
    model, losses = _convert("002-2-grading", "skill-creator")
    assert isinstance(model, SCGrading)
    assert [(e.text, e.passed) for e in model.expectations] == [("frontmatter", True)]
    assert (model.summary.passed, model.summary.total, model.summary.pass_rate) == (1, 1, 1.0)
    assert "score: skill-creator keeps pass/fail only; 1–5 scores dropped (frontmatter=4)" in losses
    for name in (
        "case_id",
        "version",
        "run",
        "overall_score",
        "required_score",
        "convention_compliance",
    ):
        assert f"{name}: skill-creator grading has no such field; dropped" in losses


def test_grading_sc_to_ws_maps_pass_fail_to_band_minimums_and_says_so() -> None:
    model, losses = _convert("004-2-grading", "writing-skills")
    assert isinstance(model, WSGrading)
    assert [(r.score, r.passed) for r in model.results] == [(3, True), (1, False)]
    assert model.overall == "fail" and model.overall_score == 2.0
    assert any(
        loss.startswith("score: skill-creator grades pass/fail only; passed mapped to 3")
        for loss in losses
    )
    assert "required: unknown; every criterion treated as required for overall" in losses
    assert "timing: writing-skills grading has no such field; dropped" in losses
    assert "claims[].type: writing-skills claims have no type; dropped" in losses


def test_evals_round_trip_ws_sc_ws_states_each_loss() -> None:
    model, losses = _convert("002-0-evals", "skill-creator")
    assert isinstance(model, SCEvals)
    assert model.evals[0].id == 1
    assert "case ids are integers in skill-creator: case-01→1" in losses
    assert "cases[0] criterion labels dropped: frontmatter, token-efficiency" in losses
    assert any(
        "optional expectations become plain expectations: token-efficiency" in x for x in losses
    )
    back = convert(model, "writing-skills")
    assert isinstance(back.model, WSEvals)
    assert back.model.cases[0].id == "case-01"
    assert all(e.required for e in back.model.cases[0].expectations)
    assert any(x.startswith("required: skill-creator has no required flags") for x in back.losses)


def test_history_sc_to_ws_keeps_order_and_best() -> None:
    model, losses = _convert("004-1-history", "writing-skills")
    assert isinstance(model, WSHistory)
    assert [v.version for v in model.versions] == [0, 1, 2]
    assert model.current_version == 2
    assert "v1.parent: writing-skills history has no such field; dropped" in losses
    assert "v2.expectation_pass_rate: writing-skills history has no such field; dropped" in losses
    assert any(x.startswith("current_version: set to the best version v2") for x in losses)


def test_history_ws_to_sc_infers_parents_and_says_so() -> None:
    data = copy.deepcopy(EXAMPLES["002-1-history"])
    data["versions"].append(
        {
            "version": 1,
            "timestamp": "2026-02-23T10:00:00Z",
            "description": "tighter triggers",
            "git_hash": "abc123",
            "path": "v1/skill",
            "average_score": 3.5,
        }
    )
    data["versions"][0]["average_score"] = 2.5
    result = convert(from_data(data), "skill-creator")
    model = result.model
    assert isinstance(model, SCHistory)
    assert [(i.version, i.parent, i.is_current_best) for i in model.iterations] == [
        ("v0", None, False),
        ("v1", "v0", True),
    ]
    assert "v1.parent: inferred as the previous version v0" in result.losses
    assert "current_best: not recorded; v1 chosen by highest average_score" in result.losses
    assert "v1.git_hash: skill-creator history has no such field; dropped" in result.losses
    assert "current_version: v0 (version being worked on) not carried" in result.losses


def test_comparison_tie_cannot_become_writing_skills() -> None:
    data = copy.deepcopy(EXAMPLES["upstream-comparison"])
    data["winner"] = "TIE"
    with pytest.raises(InputError, match="no tie") as caught:
        convert(from_data(data), "writing-skills")
    assert caught.value.rule == "no-tie"


def test_analysis_losses_both_ways() -> None:
    model, losses = _convert("upstream-analysis", "writing-skills")
    assert dump(model)["suggestions"][0]["before"] == ""
    assert "suggestions[0].before: the source gives no before text; empty" in losses
    assert "suggestions[0].priority: dropped (high)" in losses
    model, losses = _convert("002-4-analysis", "skill-creator")
    assert "suggestions[0].before/after: folded into the suggestion text" in losses


def test_unknown_source_keys_are_losses() -> None:
    data = copy.deepcopy(EXAMPLES["002-3-comparison"])
    data["judge_model"] = "x"
    result = convert(from_data(data), "skill-creator")
    assert "judge_model: unknown writing-skills key, not converted" in result.losses


def test_kind_without_canonical_model_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        convert(from_data(EXAMPLES["004-3-metrics"]), "writing-skills")
    assert caught.value.rule == "no-conversion"


def test_conversion_output_is_json_stable() -> None:
    model, _ = _convert("004-0-evals", "writing-skills")
    text = json.dumps(dump(model), sort_keys=True)
    assert json.dumps(dump(from_data(json.loads(text)).model), sort_keys=True) == text
