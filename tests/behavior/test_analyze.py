"""The analyzer: unblinded, both dialects, model vs deterministic, no winner → nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from compare_fakes import FakeJudge, make_workspace

from skillbench.behavior.analyze import DETERMINISTIC_NOTE, grouped_findings
from skillbench.behavior.compare_run import compare
from skillbench.behavior.options import CompareOptions
from skillbench.behavior.workspace import Workspace
from skillbench.schemas import load


@pytest.mark.parametrize("dialect", ["writing-skills", "skill-creator"])
async def test_model_analysis_loads_in_its_dialect_with_pinned_labels(
    tmp_path: Path, dialect: str
) -> None:
    skill = make_workspace(tmp_path, runs=1)
    judge = FakeJudge("content", dialect)
    outcome = await compare(skill, "v0", "v1", CompareOptions(dialect=dialect), text_model=judge)
    assert outcome.analysis is not None and outcome.analysis.analyzer == "model"
    loaded = load(Workspace.for_skill(skill).analysis_path)
    assert (loaded.kind, loaded.dialect) == ("analysis", dialect)
    data = loaded.model.to_json_dict()
    assert data["skillbench"]["analyzer"] == "model"
    if dialect == "writing-skills":
        # the fake model answered "WRONG"; the labels come from the comparison
        assert (data["winner_version"], data["loser_version"]) == ("v1", "v0")
        assert data["suggestions"][0]["before"] == "Write short release notes."
    else:
        summary = data["comparison_summary"]
        assert (summary["winner_skill"], summary["loser_skill"]) == ("v1/skill", "v0/skill")
        assert data["improvement_suggestions"][0]["priority"] == "high"
        assert data["instruction_following"]["loser"]["issues"] == ["ignored the marker"]
    analyzer_prompt = judge.prompts[-1]
    assert analyzer_prompt.purpose == "analyze"
    assert "v1 beat v0" in analyzer_prompt.prompt  # unblinded
    assert "Always include the marker." in analyzer_prompt.prompt  # the winning skill's text


@pytest.mark.parametrize("dialect", ["writing-skills", "skill-creator"])
async def test_local_analysis_is_deterministic_and_suggests_nothing(
    tmp_path: Path, dialect: str
) -> None:
    skill = make_workspace(tmp_path, runs=2)
    outcome = await compare(skill, "v1", "v0", CompareOptions(backend="local", dialect=dialect))
    assert outcome.analysis is not None and outcome.analysis.analyzer == "deterministic"
    loaded = load(Workspace.for_skill(skill).analysis_path)
    assert loaded.dialect == dialect
    data = loaded.model.to_json_dict()
    assert data["skillbench"] == {"analyzer": "deterministic", "note": DETERMINISTIC_NOTE}
    findings = grouped_findings(loaded.model)  # type: ignore[arg-type]
    assert findings["suggestions"] == []
    assert len(findings["strengths"]) == 6  # 3 cases x 2 checks separating the versions
    assert all(line.startswith("[deterministic check]") for line in findings["weaknesses"])
    assert any(
        "v0 failed 'the reply contains the GOOD-OUTPUT marker' where v1 passed (case case-1, "
        "run 1, run 2)" in line
        for line in findings["weaknesses"]
    )
    # the unchecked expectation ("the tone is friendly") is never claimed either way
    assert not any("tone" in line for line in findings["strengths"] + findings["weaknesses"])


async def test_no_winner_writes_no_analysis(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)
    outcome = await compare(skill, "v1", "v0", text_model=FakeJudge("always-a"))
    assert outcome.analysis is not None and outcome.analysis.document is None
    assert "no overall winner" in str(outcome.analysis.reason)
    assert not Workspace.for_skill(skill).analysis_path.exists()


async def test_baseline_side_is_labelled_as_no_skill(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)
    space = Workspace.for_skill(skill)
    # a baseline without a skill: rename v0's runs and mark them version None
    (space.runs_dir / "v0").rename(space.runs_dir / "baseline")
    for run_json in (space.runs_dir / "baseline").rglob("run.json"):
        text = run_json.read_text(encoding="utf-8")
        run_json.write_text(
            text.replace('"version": 0', '"version": null').replace('"v0"', '"baseline"'),
            encoding="utf-8",
        )
    outcome = await compare(
        skill, "v1", "baseline", CompareOptions(backend="local", dialect="skill-creator")
    )
    assert outcome.summary.history is None  # not a version-vs-parent comparison
    data = load(space.analysis_path).model.to_json_dict()
    assert data["comparison_summary"]["loser_skill"] == "(no skill)"
    assert "baseline failed" in " ".join(data["loser_weaknesses"])


def test_deterministic_lines_name_the_configuration_beside_the_version() -> None:
    from skillbench.behavior.analyze import ExpectationDiff, Side, deterministic_lists

    with_skill = Side("with_skill", 0, "v0", "v0/skill", "text")
    baseline = Side("baseline", None, "baseline", "(no skill)", "")
    diff = ExpectationDiff("case-1", "writes the file", winner_only=["run 1"])
    strengths, weaknesses = deterministic_lists([diff], with_skill, baseline)
    assert strengths == [
        "[deterministic check] v0 (with_skill) passed 'writes the file' where baseline failed "
        "(case case-1, run 1)"
    ]
    assert weaknesses[0].startswith("[deterministic check] baseline failed 'writes the file'")
