"""`skillbench gate --behavior`: with_skill of the base vs the head, paired by case and run,
through a registered fake text-model backend (no network)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cost_fakes import flat_factory
from gate_fakes import git
from grade_fixtures import auto_reply

from skillbench.backends import registry
from skillbench.backends.base import CallUsage, TextRequest, TextResponse
from skillbench.backends.spec import CONVERSATION, register_backend
from skillbench.cli import main
from skillbench.cost.estimate import register_estimator, unregister_estimator

NAME = "bgate-fake"
GOOD = "Always end the answer with the word DONE."
BAD = "Answer briefly."
CASES = [f"summarise report number {i} for the team" for i in range(6)]


class PassingText:
    """Answers a task with DONE at a rate set by the skill's body (0.9 with GOOD, 0.1 without),
    deterministic per (prompt, run); counts the calls it gets."""

    calls = 0

    def __init__(self) -> None:
        self.name, self.model = NAME, "bgate-1"

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        PassingText.calls += 1
        if request.purpose == "grade":  # the grader's other questions (machine checks decide)
            return TextResponse(text=auto_reply(request), usage=CallUsage(10, 10))
        rate = 0.9 if GOOD in (request.system or "") else 0.1
        digest = hashlib.sha256(f"{request.prompt}|{request.run_index}".encode()).digest()
        done = digest[0] / 256 < rate
        return TextResponse(text="DONE" if done else "not yet", usage=CallUsage(10, 10))

    async def aclose(self) -> None:
        return None


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    registry.register_text_model(NAME, lambda **_: PassingText())
    spec = registry.backend_spec(NAME)  # a conversation executor runs the cases with it
    register_backend(dataclasses.replace(spec, executor=CONVERSATION))
    register_estimator(NAME, flat_factory(NAME))
    PassingText.calls = 0
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    yield NAME
    registry.unregister(NAME)
    unregister_estimator(NAME)


def write_skill(folder: Path, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: gate-skill\ndescription: Summarises reports.\n---\n\n# gate-skill\n\n{body}\n",
        encoding="utf-8",
    )


def skill_repo(root: Path, base: str, head: str, *, judged: str | None = None) -> Path:
    """skills/gate-skill committed on main with body `base` and its behavior eval cases (with
    `judged`, each case also has that expectation, which only the model grader decides); the
    working tree's body is `head` (uncommitted when it differs)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    skill = root / "skills" / "gate-skill"
    write_skill(skill, base)
    check = {"type": "contains", "target": "final_text", "value": "DONE"}
    cases = [
        {"id": f"c{i}", "prompt": p, "expectations": [
            {"criterion": "done", "description": "ends with DONE", "required": True,
             "check": check}]}
        for i, p in enumerate(CASES)
    ]  # fmt: skip
    if judged is not None:
        for case in cases:
            case["expectations"].append(
                {"criterion": "judged", "description": judged, "required": True}
            )
    (skill / "evals").mkdir()
    (skill / "evals" / "evals.json").write_text(
        json.dumps({"version": "1.0", "skill": "gate-skill", "cases": cases}), encoding="utf-8"
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    write_skill(skill, head)
    return skill


def args(skill: Path, out: Path, *extra: str) -> list[str]:
    return ["gate", str(skill), "--behavior", "--base", "main", "--backend", NAME, "--runs",
            "4", "--out", str(out), "--cache", str(out.parent / "cache.sqlite"), *extra]  # fmt: skip


def report(out: Path) -> dict[str, Any]:
    return json.loads((out / "gate_report.json").read_text(encoding="utf-8"))


def test_a_behavior_regression_exits_1_paired_by_case_without_touching_the_skill(
    tmp_path: Path,
    backend: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skill = skill_repo(tmp_path / "repo", GOOD, BAD)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out, junit = tmp_path / "out", tmp_path / "junit.xml"
    code = main(args(skill, out, "--format", "markdown", "--junit", str(junit)))
    stdout, stderr = capsys.readouterr()
    assert code == 1, stderr
    doc = report(out)
    assert doc["kind"] == "behavior" and doc["verdict"] == "regressed"
    assert doc["pairs"] == 24 and doc["regressed"] > doc["improved"]
    assert doc["base"]["pass_rate"] > 0.6 > 0.4 > doc["head"]["pass_rate"]
    assert [q["pairs"] for q in doc["queries"]] == [4] * 6
    assert doc["base"]["commit"] and doc["head"]["dirty"] is True
    assert doc["header"]["title"].startswith("Gate (behavior)")
    assert doc["cost"]["lines"] and (out / "gate_report.html").is_file()
    assert stdout.startswith("### ❌") and "REGRESSED" in summary.read_text(encoding="utf-8")
    assert "Cases that dropped" in stdout and "runs per case per side" in stdout
    assert "failures" in junit.read_text(encoding="utf-8")
    # the user's skill folder and its workspace are never written: the sides live in out/
    assert not (skill.parent / "gate-skill-workspace").exists()
    assert sorted(p.name for p in skill.iterdir()) == ["SKILL.md", "evals"]
    assert (out / "behavior" / "base" / "workspace" / "runs" / "with_skill").is_dir()
    status = git(skill.parents[1], "status", "--porcelain")
    assert status.strip() == "M skills/gate-skill/SKILL.md"


def test_an_unchanged_pr_says_what_it_can_detect_and_a_rerun_makes_no_call(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = skill_repo(tmp_path / "repo", GOOD, GOOD)
    assert main(args(skill, tmp_path / "first")) == 0
    doc = report(tmp_path / "first")
    assert doc["verdict"] == "no change detected" and doc["regressed"] == doc["improved"] == 0
    assert doc["mde"] is not None and "4 runs × 6 cases" in doc["mde_line"]
    # the head's runs are the base's (one call per case and run), and so are their gradings
    assert PassingText.calls == 48
    capsys.readouterr()
    assert main(args(skill, tmp_path / "again")) == 0
    assert PassingText.calls == 48  # base and head from the call cache: no call
    assert report(tmp_path / "again")["cost"]["lines"][0]["calls"] == 0


def test_dry_run_plans_both_sides_and_max_cost_refuses_before_any_call(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = skill_repo(tmp_path / "repo", GOOD, BAD)
    out = tmp_path / "out"
    assert main(args(skill, out, "--dry-run")) == 0
    text = capsys.readouterr().out
    assert "base:" in text and "head:" in text and "calls 48, cache hits 0" in text
    assert not out.exists() and PassingText.calls == 0
    assert main(args(skill, out, "--max-cost", "0.01")) == 3
    assert PassingText.calls == 0


def test_bad_input_exits_2(tmp_path: Path, backend: str) -> None:
    skill = skill_repo(tmp_path / "repo", GOOD, BAD)
    assert main(args(skill, tmp_path / "o", "--evals", str(tmp_path / "missing.json"))) == 2
    assert main(args(skill, tmp_path / "o", "--aa", "2")) == 2
    assert main(["gate", str(skill), "--base", "main"]) == 2  # no --evals without --behavior


def test_the_local_backend_replays_the_recorded_samples_on_both_sides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "repo"
    skill = repo / "skills" / "csv-cleanup"  # data/runs/csv-cleanup holds its samples
    shutil.copytree(Path(__file__).resolve().parents[2] / "data" / "skills" / "csv-cleanup", skill)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    out = tmp_path / "out"
    code = main(["gate", str(skill), "--behavior", "--base", "main", "--backend", "local",
                 "--runs", "1", "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    doc = report(out)
    assert doc["verdict"] == "no change detected" and doc["pairs"] >= 1
    assert doc["cost"]["lines"] == [] or doc["cost"]["lines"][0]["calls"] == 0
    assert any("REPLAYED RECORDED SAMPLE" in w for w in doc["warnings"])


def test_a_change_that_rewrites_its_eval_cases_is_graded_on_the_bases(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The head degrades the skill and loosens every expectation ("contains e": "not yet"
    passes); both sides run the base's cases, so the gate still says regressed and names the
    edited cases; --evals-from head grades on the loosened ones and says so."""
    from skillbench.gate.evalsource import HEAD_MARK

    skill = skill_repo(tmp_path / "repo", GOOD, BAD)
    path = skill / "evals" / "evals.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for case in data["cases"]:
        case["expectations"][0]["check"]["value"] = "e"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(args(skill, tmp_path / "out")) == 1
    doc = report(tmp_path / "out")
    assert doc["eval_set"]["used"] == "base"
    assert doc["eval_set"]["edited"] == [f"c{i}" for i in range(6)]
    assert "this change edited it" in doc["header"]["eval_set"]
    capsys.readouterr()
    assert main(args(skill, tmp_path / "head", "--evals-from", "head")) == 0
    doc = report(tmp_path / "head")
    assert doc["verdict"] != "regressed" and HEAD_MARK in doc["verdict_line"]


def test_a_model_graded_verdict_is_provisional_until_a_current_calibration_folds_j_into_power(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.calibration.binding import Binding, CalibrationFile, prompt_hash, rubric_hash
    from skillbench.io import write_json

    skill = skill_repo(tmp_path / "repo", GOOD, GOOD, judged="The answer is polite")
    assert main(args(skill, tmp_path / "first")) == 0
    plain = report(tmp_path / "first")
    assert plain["verdict_line"].endswith("[provisional: grader uncalibrated]")
    assert any("grader uncalibrated" in n for n in plain["notes"])
    # a calibration of this grader, prompt and rubric with J = 0.5 (TPR = TNR = 0.75)
    binding = Binding(grader=f"{NAME} (bgate-1)", prompt_sha256=prompt_hash(),
                      rubric_sha256=rubric_hash(skill))  # fmt: skip
    doc = CalibrationFile(binding=binding, created_at="2026-12-01T00:00:00Z", labels={},
                          tpr=0.75, tnr=0.75, attenuation=0.5, summary={})  # fmt: skip
    target = skill.parent / "gate-skill-workspace" / "calibration.json"
    write_json(target, doc.model_dump(mode="json"))
    assert main(args(skill, tmp_path / "second")) == 0
    calibrated = report(tmp_path / "second")
    assert "provisional" not in calibrated["verdict_line"]
    assert "J = 0.500 folded into the power" in calibrated["mde_line"]
    # a true drop shows as half of it: the detectable true drop is larger
    assert calibrated["mde"] > plain["mde"]
    # another grader model: the calibration is stale, the verdict provisional again
    write_json(target, doc.model_copy(update={"binding": binding.model_copy(
        update={"grader": f"{NAME} (other-model)"})}).model_dump(mode="json"))  # fmt: skip
    assert main(args(skill, tmp_path / "third")) == 0
    stale = report(tmp_path / "third")
    assert stale["verdict_line"].endswith("[provisional: grader calibration stale]")
    assert any("grader model changed" in n for n in stale["notes"])
    assert stale["mde"] == plain["mde"]
