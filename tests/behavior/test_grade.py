"""The grader: checks first, model judgements with verified quotes, UNGRADED on local, dialects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from grade_fixtures import (
    CHECKED_AND_UNGRADED,
    GOOD,
    FakeTextModel,
    RunSpec,
    asked_ids,
    auto_reply,
    grader_reply,
    make_run,
    make_skill,
    standard_workspace,
)

from skillbench.backends.base import TextRequest, TextResponse
from skillbench.backends.cache import CachingTextModel, CallCache
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.options import GradeOptions
from skillbench.behavior.workspace import Workspace
from skillbench.errors import InputError
from skillbench.schemas import load


def _by_run(summary: Any) -> dict[tuple[str, str, int], Any]:
    return {
        (r.run.record.config, r.run.record.case_id, r.run.record.run_number): r
        for r in summary.runs
    }


def test_local_grades_checks_and_leaves_the_rest_ungraded(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    summary = grade_workspace_sync(skill, GradeOptions(backend="local"))
    runs = _by_run(summary)
    good = runs[("with_skill", "case-one", 1)]
    assert [i.method for i in good.items] == ["check", "check", "ungraded"]
    assert good.passed == 2 and len(good.graded) == 2 and len(good.ungraded) == 1
    assert good.pass_rate == 1.0
    bad = runs[("baseline", "case-one", 2)]
    assert bad.passed == 0 and "does not exist" in bad.items[0].evidence
    assert summary.ungraded == 4 and summary.graded == 12
    doc = load(good.run.grading_path)
    assert doc.dialect == "skill-creator"
    data = json.loads(good.run.grading_path.read_text())
    assert data["summary"] == {
        "passed": 2,
        "failed": 0,
        "total": 2,
        "pass_rate": 1.0,
        "ungraded": 1,
    }
    assert data["ungraded"][0]["text"] == "The summary is written in a neutral tone"
    assert data["execution_metrics"]["total_tool_calls"] == 1
    assert data["timing"] == json.loads((good.run.dir / "timing.json").read_text())
    # seed 001 output needs model dimensions: not written, and said so
    assert "skill-creator-v3" in good.skipped
    assert not (good.run.dir / "behavior_grading.json").exists()


def test_local_writes_seed002_with_ungraded_criteria_stated(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    grade_workspace_sync(skill)
    path = space.grading_dir / "case-one_v0_run1.json"
    doc = load(path)
    assert doc.kind == "grading" and doc.dialect == "writing-skills"
    data = json.loads(path.read_text())
    assert [r["criterion"] for r in data["results"]] == ["file", "title"]
    assert data["ungraded"] == [{"criterion": "tone", "reason": data["ungraded"][0]["reason"]}]
    assert data["overall"] == "pass"
    assert (space.grading_dir / "case-two_baseline_run2.json").is_file()


def test_seed002_skipped_when_required_criterion_is_ungraded(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, CHECKED_AND_UNGRADED)
    space = Workspace.for_skill(skill)
    make_run(space, RunSpec("with_skill", "only", 1, {"x.md": "hi"}))
    summary = grade_workspace_sync(skill)
    assert "overall undecidable" in summary.runs[0].skipped["writing-skills"]
    assert not any(space.grading_dir.glob("*.json"))


def test_model_grader_writes_every_dialect(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    fake = FakeTextModel(auto_reply)
    summary = grade_workspace_sync(skill, text_model=fake)
    good = _by_run(summary)[("with_skill", "case-one", 1)]
    tone = good.items[2]
    assert tone.method == "model" and tone.score == 4 and tone.passed and tone.quote_verified
    assert not good.ungraded and not good.skipped
    kinds = {load(p).dialect for p in good.written.values()}
    assert kinds == {"skill-creator", "writing-skills", "skill-creator-v3"}
    v3 = json.loads((good.run.dir / "behavior_grading.json").read_text())
    assert v3["overall_score"] == 4.0 and v3["weak_assertions"] == ["tone"]
    sc = json.loads(good.run.grading_path.read_text())
    assert sc["claims"][0]["type"] == "process"
    assert sc["user_notes_summary"]["uncertainties"] == ["tone unclear"]
    assert sc["eval_feedback"]["suggestions"][0]["assertion"] == "tone"
    # one judgement asked per model-graded expectation: case-one asks only #3
    asked = [asked_ids(r.prompt) for r in fake.requests]
    assert sorted(asked) == sorted([[3]] * 4 + [[]] * 4)


def test_unverifiable_quote_is_marked(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)

    def reply(request: TextRequest) -> str:
        return json.dumps(grader_reply(asked_ids(request.prompt), quote="words never said"))

    summary = grade_workspace_sync(skill, text_model=FakeTextModel(reply))
    tone = _by_run(summary)[("with_skill", "case-one", 1)].items[2]
    assert tone.quote_verified is False
    assert tone.evidence.startswith("[UNVERIFIED")


def test_invalid_json_retried_once_then_ungraded(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    fake = FakeTextModel(["this is not json"])
    summary = grade_workspace_sync(skill, GradeOptions(configs=["with_skill"]), text_model=fake)
    run = _by_run(summary)[("with_skill", "case-one", 1)]
    assert run.items[2].method == "ungraded" and run.items[2].passed is None
    assert "invalid twice" in (run.grader_note or "")
    assert len(fake.requests) == 4 * 2  # one retry per run
    assert "previous reply was invalid" in fake.requests[1].prompt
    # the reason, never "no model" after the grader was asked (issue 31)
    assert "not valid JSON" in (run.grader_problem or "")
    assert "'this is not json'" in (run.grader_problem or "")
    reasons = [why for r in summary.runs for why in r.skipped.values()]
    assert reasons and all("not valid JSON" in why for why in reasons), reasons
    assert not any("no model" in why for why in reasons), reasons


def test_a_reply_off_the_schema_names_the_field(tmp_path: Path) -> None:
    skill = make_skill(tmp_path)
    make_run(Workspace.for_skill(skill), RunSpec("with_skill", "case-one", 1, GOOD))
    bad = grader_reply([3])
    bad["judgements"][0]["score"] = "high"
    summary = grade_workspace_sync(skill, text_model=FakeTextModel([json.dumps(bad)]))
    run = summary.runs[0]
    assert "judgements.0.score" in (run.grader_problem or ""), run.grader_problem
    assert "2 calls made" in (run.grader_problem or "")
    assert all("no model" not in why for why in run.skipped.values()), run.skipped


def test_retry_recovers_from_a_missing_judgement(tmp_path: Path) -> None:
    skill = make_skill(tmp_path)
    make_run(Workspace.for_skill(skill), RunSpec("with_skill", "case-one", 1, GOOD))
    fake = FakeTextModel([json.dumps(grader_reply([])), json.dumps(grader_reply([3]))])
    summary = grade_workspace_sync(skill, text_model=fake)
    assert (
        len(fake.requests) == 2 and "no judgement for expectation(s) [3]" in fake.requests[1].prompt
    )
    tone = summary.runs[0].items[2]
    assert tone.method == "model" and tone.passed is True


class StructuredFake(FakeTextModel):
    """Offers complete_json like AnthropicTextModel (structured output)."""

    async def complete_json(self, request: TextRequest, output_model: Any) -> TextResponse:
        self.requests.append(request)
        parsed = output_model.model_validate(grader_reply(asked_ids(request.prompt))).model_dump()
        return TextResponse(text="", parsed=parsed)


def test_structured_path_goes_through_the_cache(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    fake = StructuredFake([])
    cache = CallCache(tmp_path / "cache.sqlite")
    try:
        grade_workspace_sync(skill, text_model=CachingTextModel(fake, cache))
        first = len(fake.requests)
        distinct = {(r.prompt, r.run_index) for r in fake.requests}
        assert first == len(distinct) >= 6 and "JSON schema" not in fake.requests[0].prompt
        grade_workspace_sync(skill, text_model=CachingTextModel(fake, cache))
        assert len(fake.requests) == first  # every call replayed from the cache
    finally:
        cache.close()


def test_dialect_option_limits_outputs(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    grade_workspace_sync(skill, GradeOptions(dialect="skill-creator"))
    assert not space.grading_dir.exists() or not any(space.grading_dir.iterdir())
    with pytest.raises(InputError):
        grade_workspace_sync(skill, GradeOptions(dialect="bogus"))


def test_missing_evals_and_runs_are_input_errors(tmp_path: Path) -> None:
    skill = make_skill(tmp_path)
    with pytest.raises(InputError, match="runs"):
        grade_workspace_sync(skill)
    (skill / "evals" / "evals.json").unlink()
    Workspace.for_skill(skill).runs_dir.mkdir(parents=True)
    with pytest.raises(InputError, match="evals"):
        grade_workspace_sync(skill)


def test_conventions_from_validator_and_model(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    bad_skill = "---\nname: Bad_Name\ndescription: writes <things>\n---\nbody\n"
    make_run(space, RunSpec("v1", "case-two", 1, {"made/SKILL.md": bad_skill}, final_text="done"))

    def reply(request: TextRequest) -> str:
        data = grader_reply(asked_ids(request.prompt))
        data["conventions"] = [
            {"key": "progressive_disclosure", "passed": True, "details": "short"},
            {"key": "type_alignment", "passed": False, "details": "no table"},
        ]
        return json.dumps(data)

    grade_workspace_sync(skill, GradeOptions(configs=["v1"]), text_model=FakeTextModel(reply))
    data = json.loads((space.grading_dir / "case-two_v1_run1.json").read_text())
    conv = data["convention_compliance"]
    assert (
        conv["frontmatter"]["passed"] is False and "NAME_FORMAT" in conv["frontmatter"]["details"]
    )
    assert conv["description_field"]["details"].startswith("validator:")
    assert conv["type_alignment"] == {"passed": False, "details": "model: no table"}
    grade_workspace_sync(
        skill, GradeOptions(configs=["v1"], force=True)
    )  # local (replacing the model's)
    data = json.loads((space.grading_dir / "case-two_v1_run1.json").read_text())
    assert "convention_compliance" not in data
    assert set(data["convention_compliance_ungraded"]) == {
        "progressive_disclosure",
        "type_alignment",
    }


def test_seed002_gradings_agree_with_the_evals(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))
    evals = load(skill / "evals" / "evals.json").model
    for path in sorted(space.grading_dir.glob("*.json")):
        doc = load(path).model
        assert doc.check_against(evals) == [], path.name  # type: ignore[attr-defined]


def test_evidence_is_escaped_in_the_report_table(tmp_path: Path) -> None:
    from skillbench.behavior.grade_frames import expectations_frame, pass_rate_frame
    from skillbench.reports.notebook import table_html

    skill, space = standard_workspace(tmp_path)
    make_run(space, RunSpec("v1", "case-one", 1, GOOD, transcript="</script><b>x</b>"))

    def reply(request: TextRequest) -> str:
        return json.dumps(grader_reply(asked_ids(request.prompt), quote="</script><b>x</b>"))

    summary = grade_workspace_sync(
        skill, GradeOptions(configs=["v1"]), text_model=FakeTextModel(reply)
    )
    html = table_html(expectations_frame(summary))
    assert "</script>" not in html and "&lt;/script&gt;" in html
    rates = pass_rate_frame(
        grade_workspace_sync(skill, GradeOptions(force=True))
    )  # local replaces v1's
    row = rates[(rates["case"] == "case-one") & (rates["config"] == "with_skill")].iloc[0]
    assert (row["passed"], row["graded"], row["ungraded"], row["pass rate (graded)"]) == (
        4,
        4,
        2,
        1.0,
    )


def test_grading_files_mark_how_each_score_was_decided(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    summary = grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))
    good = _by_run(summary)[("with_skill", "case-one", 1)]
    seed002 = json.loads((space.grading_dir / "case-one_v0_run1.json").read_text())
    assert [(r["criterion"], r["score_source"]) for r in seed002["results"]] == [
        ("file", "check"),
        ("title", "check"),
        ("tone", "model"),
    ]
    assert "placeholder" in seed002["score_note"]
    seed004 = json.loads(good.run.grading_path.read_text())
    marks = [(e["method"], e.get("score")) for e in seed004["expectations"]]
    assert marks == [("check", None), ("check", None), ("model", 4)]
    assert load(good.run.grading_path).dialect == "skill-creator"
    assert load(space.grading_dir / "case-one_v0_run1.json").dialect == "writing-skills"


def test_a_regex_over_its_time_bound_is_ungraded_not_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillbench.behavior import checks

    skill, _space = standard_workspace(tmp_path)
    evals_file = skill / "evals" / "evals.json"
    evals = json.loads(evals_file.read_text())
    evals["cases"][0]["expectations"][1]["check"]["pattern"] = r"^(a|aa)+$"
    evals_file.write_text(json.dumps(evals))
    for summary_md in tmp_path.rglob("summary.md"):
        summary_md.write_text("a" * 60 + "!")
    monkeypatch.setattr(checks, "REGEX_TIMEOUT_SECONDS", 0.2)
    summary = grade_workspace_sync(skill, GradeOptions(backend="local"))
    good = _by_run(summary)[("with_skill", "case-one", 1)]
    assert [i.method for i in good.items] == ["check", "ungraded", "ungraded"]
    assert "timed out after 0.2 s" in good.items[1].evidence
    assert good.passed == 1 and len(good.graded) == 1


def test_draft_cases_without_expectations_are_noted_not_graded(tmp_path: Path) -> None:
    draft = {
        "skill_name": "demo-skill",
        "evals": [
            {"id": "draft", "prompt": "Reply", "expected_output": "A reply"},
            {"id": "ready", "prompt": "Reply", "assertions": ["The reply says done"]},
        ],
    }
    skill = make_skill(tmp_path, draft)
    space = Workspace.for_skill(skill)
    make_run(space, RunSpec("with_skill", "draft", 1, final_text="done"))
    make_run(space, RunSpec("with_skill", "ready", 1, final_text="done"))
    summary = grade_workspace_sync(skill, GradeOptions(backend="local"))
    assert [r.run.record.case_id for r in summary.runs] == ["ready"]
    assert [i.text for i in summary.runs[0].items] == ["The reply says done"]
    assert any("'draft' has no expectations yet" in note for note in summary.notes)
