"""The gate grades both sides on the base's eval set: a change cannot grade itself (fake judge,
no network)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gate_fakes import ProbabilityJudge, git, skill_repo, table_rates

from skillbench.backends import registry
from skillbench.cli import main
from skillbench.gate.evalsource import HEAD_MARK

QUERIES = [f"clean up the quoting in csv export {i}" for i in range(8)]
OLD, NEW = "Cleans CSV exports.", "Writes poems."


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ProbabilityJudge]:
    """The old description triggers on every query, the degraded one on none but the last."""
    worse = {q: 0.0 for q in QUERIES[:-1]}
    fake = ProbabilityJudge(table_rates({q: 0.95 for q in QUERIES}, {NEW: worse}),
                            name="gate-evals-fake")  # fmt: skip
    registry.register_judge("gate-evals-fake", lambda **_: fake)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    yield fake
    registry.unregister("gate-evals-fake")


def write_evals(path: Path, rows: list[tuple[str, bool]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    items = [{"query": q, "should_trigger": s} for q, s in rows]
    path.write_text(json.dumps(items, indent=1), encoding="utf-8")
    return path


def pr(tmp_path: Path, head_rows: list[tuple[str, bool]] | None) -> tuple[Path, Path]:
    """A repository whose base commit holds the skill and its eval set (every query should
    trigger); the working tree degrades SKILL.md and, with `head_rows`, rewrites the eval set."""
    skill = skill_repo(tmp_path / "repo", OLD)
    evals = write_evals(skill / "evals" / "trigger.json", [(q, True) for q in QUERIES])
    git(tmp_path / "repo", "add", "-A")
    git(tmp_path / "repo", "commit", "-q", "-m", "eval set")
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text().replace(OLD, NEW))
    if head_rows is not None:
        write_evals(evals, head_rows)
    return skill, evals


def gate(skill: Path, evals: Path, out: Path, *extra: str) -> list[str]:
    return ["gate", str(skill), "--evals", str(evals), "--base", "main", "--backend",
            "gate-evals-fake", "--runs", "10", "--out", str(out), *extra]  # fmt: skip


# every label flipped but the last's: the degraded skill now "passes" every query
FLIPPED = [*((q, False) for q in QUERIES[:-1]), (QUERIES[-1], True)]


def test_a_change_that_flips_its_eval_set_is_graded_on_the_bases(
    tmp_path: Path, judge: ProbabilityJudge, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = pr(tmp_path, FLIPPED)
    code = main(gate(skill, evals, tmp_path / "r", "--format", "markdown"))
    out = capsys.readouterr().out
    assert code == 1, out
    report = json.loads((tmp_path / "r" / "gate_report.json").read_text())
    assert report["verdict"] == "regressed"
    assert report["eval_set"]["used"] == "base"
    assert report["eval_set"]["flipped"] == QUERIES[:-1]
    assert report["eval_set"]["added"] == [] and report["eval_set"]["removed"] == []
    assert all(q["should_trigger"] for q in report["queries"])  # the base's labels
    assert "7 with should_trigger flipped" in out and QUERIES[0] in out
    assert "at base" in report["header"]["eval_set"]


def test_evals_from_head_is_an_opt_in_that_marks_the_verdict(
    tmp_path: Path, judge: ProbabilityJudge, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = pr(tmp_path, FLIPPED)
    code = main(gate(skill, evals, tmp_path / "r", "--evals-from", "head"))
    out = capsys.readouterr().out
    report = json.loads((tmp_path / "r" / "gate_report.json").read_text())
    assert code == 0 and report["verdict"] == "improved"  # what grading itself gives
    assert HEAD_MARK in report["verdict_line"] and HEAD_MARK in out
    assert report["eval_set"]["used"] == "head" and report["eval_set"]["flipped"] == QUERIES[:-1]


def test_an_emptied_eval_set_is_graded_on_the_bases_and_refused_as_the_heads(
    tmp_path: Path, judge: ProbabilityJudge, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = pr(tmp_path, [("what is the weather in Paris", False)])
    assert main(gate(skill, evals, tmp_path / "r")) == 1
    report = json.loads((tmp_path / "r" / "gate_report.json").read_text())
    assert report["eval_set"]["removed"] == QUERIES
    assert report["eval_set"]["added"] == ["what is the weather in Paris"]
    capsys.readouterr()
    calls = judge.calls
    assert main(gate(skill, evals, tmp_path / "r2", "--evals-from", "head")) == 2
    err = capsys.readouterr().err
    assert "vacuous eval set" in err and "trigger.json" in err and judge.calls == calls
    assert not (tmp_path / "r2").exists()


def test_a_vacuous_base_eval_set_exits_2_naming_the_file(
    tmp_path: Path, judge: ProbabilityJudge, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = skill_repo(tmp_path / "repo", OLD)
    evals = write_evals(skill / "evals" / "trigger.json", [(q, False) for q in QUERIES])
    git(tmp_path / "repo", "add", "-A")
    git(tmp_path / "repo", "commit", "-q", "-m", "eval set")
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text().replace(OLD, NEW))
    assert main(gate(skill, evals, tmp_path / "r")) == 2
    err = capsys.readouterr().err
    assert "vacuous eval set: no should-trigger query" in err
    assert "trigger.json as at the base main" in err and judge.calls == 0
    assert main(gate(skill, evals, tmp_path / "r", "--dry-run")) == 2  # refused before a plan
    assert main(gate(skill, evals, tmp_path / "r", "--aa", "2")) == 2  # and for a calibration
    assert judge.calls == 0 and not (tmp_path / "r").exists()


def test_too_few_queries_per_class_for_the_runs_is_vacuous(
    tmp_path: Path, judge: ProbabilityJudge, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = write_evals(tmp_path / "evals.json", [(QUERIES[0], True), (QUERIES[1], False)])
    skill = skill_repo(tmp_path / "repo", OLD, NEW)
    args = gate(skill, outside, tmp_path / "r")
    args[args.index("--runs") + 1] = "4"  # 1 query × 4 runs: even 4 of 4 flips gives p = 0.125
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "vacuous eval set: 1 should-trigger query × 4 runs" in err and "evals.json" in err
    assert judge.calls == 0


def test_an_eval_set_this_change_adds_needs_evals_from_head(
    tmp_path: Path, judge: ProbabilityJudge, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = skill_repo(tmp_path / "repo", OLD, NEW)
    evals = write_evals(skill / "evals" / "trigger.json", [(q, True) for q in QUERIES])
    assert main(gate(skill, evals, tmp_path / "r")) == 2
    assert "--evals-from head" in capsys.readouterr().err and judge.calls == 0
    assert main(gate(skill, evals, tmp_path / "r", "--evals-from", "head")) == 1
    report = json.loads((tmp_path / "r" / "gate_report.json").read_text())
    assert report["eval_set"]["added"] == QUERIES and HEAD_MARK in report["verdict_line"]
