"""The behavior workspace: init, snapshot, git hash, average score, history in both dialects."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from grade_fixtures import (
    CHECKED_AND_UNGRADED,
    FakeTextModel,
    RunSpec,
    auto_reply,
    make_run,
    make_skill,
    standard_workspace,
)

from skillbench.behavior.benchmark import build_benchmark
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.records import (
    RunRecord,
    expectation_checks,
    parse_check,
    write_run_record,
)
from skillbench.behavior.workspace import (
    Workspace,
    git_hash,
    init_workspace,
    read_evals,
    read_history,
    record_result,
    snapshot,
    version_scores,
    write_history,
)
from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.schemas import load

DATA_SKILL = Path(__file__).resolve().parents[2] / "data" / "skills" / "csv-cleanup"


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    folder = tmp_path / "csv-cleanup"
    shutil.copytree(DATA_SKILL, folder)
    shutil.rmtree(folder / "evals")
    return folder


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _grading(case: str, version: int, run: int, scores: list[int]) -> dict[str, object]:
    results = [
        {"criterion": f"c{i}", "score": s, "passed": s >= 3, "reasoning": "r"}
        for i, s in enumerate(scores)
    ]
    return {
        "case_id": case,
        "version": version,
        "run": run,
        "overall_score": round(sum(scores) / len(scores), 1),
        "required_score": round(sum(scores) / len(scores), 1),
        "results": results,
        "overall": "pass" if all(s >= 3 for s in scores) else "fail",
    }


def test_init_creates_layout_and_is_idempotent(skill: Path) -> None:
    result = init_workspace(skill)
    space = result.workspace
    assert space.root == skill.parent / "csv-cleanup-workspace"
    assert (skill / "evals" / "evals.json").is_file()
    assert "EXAMPLE" in (skill / "evals" / "evals.json").read_text()
    assert (space.version_dir(0) / "SKILL.md").read_bytes() == (skill / "SKILL.md").read_bytes()
    assert (space.version_dir(0) / "scripts" / "profile_csv.py").is_file()
    assert space.grading_dir.is_dir()
    history = json.loads(space.history_path.read_text())
    version = history["versions"][0]
    assert version["version"] == 0 and version["description"] == "baseline"
    assert version["path"] == "v0/skill" and version["average_score"] is None
    assert version["git_hash"] is None  # no repository
    assert history["current_version"] == 0
    assert load(space.history_path).dialect == "writing-skills"
    before = space.history_path.read_bytes()
    again = init_workspace(skill)
    assert again.already_initialised and again.created == []
    assert space.history_path.read_bytes() == before


def test_init_refuses_to_clobber_and_rejects_bad_evals(skill: Path, tmp_path: Path) -> None:
    space = Workspace.for_skill(skill)
    space.version_dir(0).mkdir(parents=True)
    with pytest.raises(InputError, match="refusing"):
        init_workspace(skill)
    assert not (skill / "evals").exists()  # nothing half-written
    (skill / "evals").mkdir()
    (skill / "evals" / "evals.json").write_text('{"cases": [{"id": "Bad Id"}]}')
    with pytest.raises(InputError) as info:
        init_workspace(skill, tmp_path / "other")
    assert "evals.json" in str(info.value)


def test_snapshot_records_parent_and_average_score(skill: Path) -> None:
    space = init_workspace(skill).workspace
    for run, scores in ((1, [4, 5]), (2, [2, 3])):
        (space.grading_path("case-a", 0, run)).write_text(
            json.dumps(_grading("case-a", 0, run, scores))
        )
    (space.grading_path("case-a", None, 1)).write_text(
        json.dumps(_grading("case-a", 0, 1, [1, 1]))
    )  # baseline gradings do not count for v0
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "\nMore.\n")
    version = snapshot(skill, description="adds a line")
    assert version.label == "v1" and version.parent == "v0"
    assert (space.version_dir(1) / "SKILL.md").read_text().endswith("More.\n")
    data = json.loads(space.history_path.read_text())
    assert data["versions"][0]["average_score"] == 3.5  # mean of 4, 5, 2, 3
    assert data["versions"][0]["expectation_pass_rate"] == 0.75
    assert data["versions"][1]["description"] == "adds a line"
    assert data["current_version"] == 1
    assert snapshot(skill).label == "v2"
    assert json.loads(space.history_path.read_text())["versions"][1]["average_score"] is None


def test_git_hash_null_when_dirty_or_untracked(skill: Path) -> None:
    repo = skill.parent
    shutil.copytree(DATA_SKILL / "evals", skill / "evals")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "init")
    head = _git(repo, "rev-parse", "HEAD")
    assert git_hash(skill) == head
    space = init_workspace(skill).workspace  # the workspace is a sibling: the skill stays clean
    assert json.loads(space.history_path.read_text())["versions"][0]["git_hash"] == head
    (skill / "notes.txt").write_text("untracked")
    assert git_hash(skill) is None
    assert snapshot(skill).git_hash is None
    (skill / "notes.txt").unlink()
    (skill / "SKILL.md").write_text("---\nname: csv-cleanup\ndescription: x\n---\nchanged\n")
    assert git_hash(skill) is None
    _git(repo, "commit", "-qam", "change")
    assert git_hash(skill) == _git(repo, "rev-parse", "HEAD") != head


def test_history_in_both_dialects_round_trips(skill: Path) -> None:
    space = init_workspace(skill, dialect="skill-creator").workspace
    raw = json.loads(space.history_path.read_text())
    assert raw["iterations"][0]["version"] == "v0" and raw["current_best"] == "v0"
    assert load(space.history_path).dialect == "skill-creator"
    snapshot(skill, description="second")
    record_result(space, "v1", "won", pass_rate=0.8)
    raw = json.loads(space.history_path.read_text())
    it = raw["iterations"][1]
    assert it["parent"] == "v0" and it["grading_result"] == "won" and it["is_current_best"]
    assert raw["current_best"] == "v1"
    assert it["description"] == "second" and it["path"] == "v1/skill"  # carried as extras
    doc = read_history(space)
    doc.dialect = "writing-skills"
    write_history(space, doc)
    ws_raw = json.loads(space.history_path.read_text())
    assert [v["version"] for v in ws_raw["versions"]] == [0, 1]
    assert ws_raw["versions"][1]["grading_result"] == "won"
    assert ws_raw["current_best"] == "v1" and ws_raw["current_version"] == 1
    back = read_history(space)
    assert back.dialect == "writing-skills"
    assert back.history.best == "v1"
    assert back.version("v1").pass_rate == 0.8 and back.version("v1").parent == "v0"
    with pytest.raises(InputError, match="grading_result"):
        record_result(space, "v1", "great")


def test_layout_paths_and_iter_runs(tmp_path: Path) -> None:
    space = Workspace(tmp_path / "ws")
    assert space.run_dir("with_skill", 3, 2) == tmp_path / "ws/runs/with_skill/3/run-2"
    assert space.grading_path("case-a", 1, 2).name == "case-a_v1_run2.json"
    assert space.grading_path("case-a", None, 2).name == "case-a_baseline_run2.json"
    assert space.comparison_path("c", "v0", "v1", 1).name == "c_v0_vs_v1_run1.json"
    with pytest.raises(InputError):
        space.run_dir("with_skill", "../up", 1)
    with pytest.raises(InputError):
        space.run_dir("nonsense", "c", 1)
    for config, case, run in (("baseline", "b", 2), ("baseline", "b", 10), ("v1", "a", 1)):
        record = RunRecord(
            case_id=case,
            config=config,
            version=None,
            run_number=run,
            prompt="p",
            backend="local",
            model=None,
            status="ok",
            started_at="t",
            duration_s=1.0,
        )
        write_run_record(record, space.run_dir(config, case, run) / "run.json")
    runs = space.iter_runs()
    assert [(r.record.config, r.record.run_number) for r in runs] == [
        ("baseline", 2),
        ("baseline", 10),
        ("v1", 1),
    ]
    assert runs[0].metrics_path == runs[0].dir / "outputs" / "metrics.json"
    assert [r.record.case_id for r in space.iter_runs("v1")] == ["a"]


def test_expectation_checks_are_validated() -> None:
    evals = read_evals(DATA_SKILL / "evals" / "evals.json")
    checks = expectation_checks(evals.model, path=evals.path)
    assert checks["dedupe-crm-export"][0] is not None
    assert checks["dedupe-crm-export"][0].type == "file_exists"
    assert checks["dedupe-crm-export"][-1] is None
    with pytest.raises(InputError) as info:
        parse_check({"type": "max_lines", "target": "final_text", "value": "x"}, path="e.json")
    assert "e.json" in str(info.value) and "check" in str(info.value)
    with pytest.raises(InputError):
        parse_check({"type": "regex", "target": "/etc/passwd", "pattern": "x"})


def test_cli_init_and_snapshot(skill: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(skill)]) == 0
    assert main(["snapshot", str(skill), "--description", "next"]) == 0
    assert "v1" in capsys.readouterr().err
    assert main(["snapshot", str(skill.parent / "nope")]) == 2


def _marked(case: str, run: int, items: list[tuple[int, str]]) -> dict[str, object]:
    """A seed 002 grading whose criteria carry `score_source` marks."""
    data = _grading(case, 0, run, [score for score, _ in items])
    for result, (_, source) in zip(data["results"], items, strict=True):  # type: ignore[arg-type]
        result["score_source"] = source
    return data


def test_average_score_counts_model_scores_only(skill: Path) -> None:
    space = init_workspace(skill).workspace
    for run, items in ((1, [(3, "check"), (3, "check")]), (2, [(3, "check"), (1, "check")])):
        space.grading_path("case-a", 0, run).write_text(json.dumps(_marked("case-a", run, items)))
    scores = version_scores(space, 0)
    assert scores.average_score is None  # check placeholders 3/1 are not judgements
    assert scores.check_pass_rate() == {"rate": 0.75, "passed": 3, "n": 4, "runs": 2}
    assert scores.pass_rate == 0.75
    space.grading_path("case-b", 0, 1).write_text(
        json.dumps(_marked("case-b", 1, [(5, "model"), (3, "check"), (2, "model")]))
    )
    assert version_scores(space, 0).average_score == 3.5  # (5 + 2) / 2, checks left out
    snapshot(skill)
    data = json.loads(space.history_path.read_text())["versions"][0]
    assert data["average_score"] == 3.5
    assert data["check_pass_rate"] == {"rate": 0.8, "passed": 4, "n": 5, "runs": 3}
    assert data["score_basis"]["runs"] == 3 and data["score_basis"]["model_scores"] == 2
    assert read_history(space).version("v0").extra["check_pass_rate"]["n"] == 5


def test_check_only_history_has_null_average_and_separate_check_rate(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    init_workspace(skill)
    grade_workspace_sync(skill)  # local: checks only
    snapshot(skill)
    v0 = json.loads(space.history_path.read_text())["versions"][0]
    assert v0["average_score"] is None  # every run passing every check no longer averages 3.0
    assert v0["check_pass_rate"] == {"rate": 1.0, "passed": 6, "n": 6, "runs": 4}
    assert v0["score_basis"]["configs"] == ["with_skill"]


def test_history_average_uses_the_model_judgements(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    init_workspace(skill)
    grade_workspace_sync(skill, text_model=FakeTextModel(auto_reply))
    snapshot(skill)
    v0 = json.loads(space.history_path.read_text())["versions"][0]
    assert v0["average_score"] == 4.0  # the two tone judgements (4), not mixed with 3/1 checks
    assert v0["score_basis"]["model_scores"] == 2


def test_history_and_benchmark_pass_rates_agree_despite_skipped_gradings(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, CHECKED_AND_UNGRADED)
    space = Workspace.for_skill(skill)
    for config in ("with_skill", "baseline"):
        make_run(space, RunSpec(config, "only", 1, {"x.md": "hi"}))  # seed 002 skipped
        make_run(space, RunSpec(config, "only", 2))  # check fails: seed 002 written
    init_workspace(skill)
    summary = grade_workspace_sync(skill)
    assert sum("writing-skills" in r.skipped for r in summary.runs) == 2
    snapshot(skill)
    v0 = json.loads(space.history_path.read_text())["versions"][0]
    bench = build_benchmark(skill).run_summary["with_skill"]
    assert not isinstance(bench, dict)
    assert v0["expectation_pass_rate"] == bench.pass_rate.mean == 0.5  # not 0.0 (failures only)
    assert v0["check_pass_rate"] == {"rate": 0.5, "passed": 1, "n": 2, "runs": 2}
    assert v0["average_score"] is None


NUL_SKILL_MD = "---\nname: s\ndescription: Tidies CSV files. Use when a CSV is messy.\n---\n\n# s\n"
_EXPECTATION = {"criterion": "c", "description": "d", "required": True}


@pytest.mark.parametrize(
    ("evals", "field"),
    [
        # (a seed 002 id is kebab-case, so its schema already refuses a NUL)
        ({"evals": [{"id": "a\0b", "prompt": "hi", "expected_output": "x"}]}, "evals[0].id"),
        (
            {"cases": [{"id": "ab", "prompt": "h\0i", "expectations": [_EXPECTATION]}]},
            "cases[0].prompt",
        ),
        ([{"id": "a\0b", "prompt": "hi", "expected_output": "x"}], "[0].id"),
        (
            {"skill_name": "s", "evals": [{"id": 1, "prompt": "hi", "files": ["a\0b"]}]},
            "evals[0].files[0]",
        ),
    ],
)
def test_a_nul_byte_in_an_id_prompt_or_file_is_bad_input_naming_file_and_field(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    evals: object,
    field: str,
) -> None:
    skill = tmp_path / "s"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(NUL_SKILL_MD, encoding="utf-8")
    (skill / "evals" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    fake = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(fake))
    monkeypatch.chdir(tmp_path)
    argv = ["run", str(skill), "--backend", "claude-code", "--runs", "1", "--configs", "baseline"]
    assert main([*argv, "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert f"evals.json: {field}: contains a NUL byte" in err and "[nul-byte]" in err, err
    assert not (tmp_path / "s-workspace" / "runs").exists()


def test_init_writes_relative_paths_only(skill: Path) -> None:
    """The evals file and history travel with the library: no absolute path of this machine."""
    init_workspace(skill)
    evals = json.loads((skill / "evals" / "evals.json").read_text())
    assert evals["skill"] == "../../csv-cleanup"  # from <skill>/evals/ back to the skill
    assert (skill / "evals" / evals["skill"]).resolve() == skill.resolve()
    history = Workspace.for_skill(skill).history_path.read_text()
    assert str(skill.parent) not in history and str(skill.parent) not in json.dumps(evals)


def test_a_library_with_an_initialised_workspace_still_counts_its_skills(skill: Path) -> None:
    from skillbench.skill import find_skills
    from skillbench.validate.rules import validate_library

    library = skill.parent
    before = find_skills(library)
    init_workspace(skill)
    snapshot(skill)
    assert (library / "csv-cleanup-workspace" / "v1" / "skill" / "SKILL.md").is_file()
    assert find_skills(library) == before == [skill]
    assert [r.skill_path for r in validate_library(library)] == [str(skill)]


def test_a_skill_whose_name_ends_in_workspace_is_still_a_skill(tmp_path: Path) -> None:
    from skillbench.skill import find_skills

    folder = tmp_path / "lib" / "slack-workspace"
    shutil.copytree(DATA_SKILL, folder)
    assert find_skills(tmp_path / "lib") == [folder]


def test_editing_the_evals_is_not_a_change_of_the_skill(skill: Path) -> None:
    from skillbench.behavior.execute import config_skill

    init_workspace(skill)
    space = Workspace.for_skill(skill)
    evals = skill / "evals" / "evals.json"
    evals.write_text(evals.read_text().replace("EXAMPLE CASE", "A real case"))
    (skill / "evals" / "files").mkdir()
    (skill / "evals" / "files" / "input.csv").write_text("a,b\n1,2\n")
    _, number, note = config_skill(space, "with_skill", skill)
    assert number == 0 and note is None
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "\nOne more line.\n")
    _, _, note = config_skill(space, "with_skill", skill)
    assert note is not None and "changed since snapshot v0" in note
