"""Where the gate's report goes and how it looks: the reports index, never the gated repository
unless asked, and a page like the other reports (fake judge, no network)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from gate_fakes import ProbabilityJudge, git, skill_repo, table_rates

from skillbench.backends import registry
from skillbench.cli import main

QUERIES = [f"sort the rows of csv export {i}" for i in range(24)]
OLD, NEW = "Cleans CSV exports.", "Cleans CSV exports, reworded."


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ProbabilityJudge]:
    worse = {q: 0.1 for q in QUERIES[:8]}
    fake = ProbabilityJudge(table_rates({q: 0.9 for q in QUERIES}, {NEW: worse}), name="gr-fake")
    registry.register_judge("gr-fake", lambda **_: fake)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    yield fake
    registry.unregister("gr-fake")


def gated(tmp_path: Path) -> tuple[Path, Path]:
    skill = skill_repo(tmp_path / "repo", OLD, NEW)
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": q, "should_trigger": True} for q in QUERIES]))
    return skill, evals


def args(skill: Path, evals: Path, *extra: str) -> list[str]:
    return ["gate", str(skill), "--evals", str(evals), "--base", "main", "--backend", "gr-fake",
            "--runs", "6", "--cache", str(skill.parents[2] / "c.sqlite"), *extra]  # fmt: skip


def test_by_default_the_gate_never_writes_into_the_repository_it_gates(
    tmp_path: Path, judge: ProbabilityJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = gated(tmp_path)
    monkeypatch.chdir(tmp_path / "repo")  # a CI job runs in the checkout it gates
    assert main(args(skill, evals)) == 1
    assert not (tmp_path / "repo" / "reports").exists()
    assert git(tmp_path / "repo", "status", "--porcelain").strip() == "M skills/gate-skill/SKILL.md"
    root = tmp_path / "data-home" / "skillbench" / "reports"
    (folder,) = [p for p in (root / "gate").iterdir() if p.name != "latest"]
    assert (folder / "gate_report.html").is_file() and (folder / "manifest.json").is_file()
    index = (root / "index.html").read_text(encoding="utf-8")
    assert f'href="gate/{folder.name}/gate_report.html"' in index
    assert "gate/latest/gate_report.html" in index and "✗" in index and "REGRESSED" in index
    assert (root / "gate" / "latest" / "gate_report.html").is_file()


def test_outside_the_gated_repository_reports_go_into_reports_and_its_index(
    tmp_path: Path, judge: ProbabilityJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = gated(tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(args(skill, evals)) == 1
    assert main(args(skill, evals, "--out", str(work / "reports" / "gate" / "pr-7"))) == 1
    index = (work / "reports" / "index.html").read_text(encoding="utf-8")
    assert "2 report(s)" in index and 'href="gate/pr-7/gate_report.html"' in index
    assert not (tmp_path / "data-home").exists()


def test_the_page_looks_like_the_other_reports(
    tmp_path: Path, judge: ProbabilityJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = gated(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r"
    assert main(args(skill, evals, "--out", str(out))) == 1
    page = (out / "gate_report.html").read_text(encoding="utf-8")
    report = json.loads((out / "gate_report.json").read_text(encoding="utf-8"))
    text = re.sub(r"<[^>]+>", " ", page)
    assert "✗ REGRESSED" in text
    assert not re.search(r"\b(True|False|None)\b", text)  # ✓/✗ and yes/no, never `ok False`
    # the header's cost is both sides' (the report's), stated once
    assert report["cost"]["calls"] == 2 * 6 * len(QUERIES)
    assert report["header"]["cost"].startswith(f"${report['cost']['dollars']:.4f}: 288 calls")
    assert text.count("288 calls") == 1 and text.count("144 calls") == 0
    assert all(q in text for q in QUERIES)  # every query, not the first 20
    assert "flagged alone with" in text
