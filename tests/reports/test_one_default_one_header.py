"""One default, one header: notebooks and the CLI compete against the same catalog by default
(none), the demo passes the project's sample distractors explicitly, every header names its
catalog (source, skill count, sha256), its runs, the skill repository's commit and skillbench's
version, and `report diff` warns when A and B were measured differently."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillbench.cli import build_parser, main
from skillbench.io import write_json
from skillbench.reports.diff import diff_documents
from skillbench.reports.header import header_html, header_lines
from skillbench.reports.runner import (
    DEMO_NOTEBOOKS,
    available_notebooks,
    declared_parameters,
    demo_parameters,
    resolve_notebook,
)
from skillbench.schemas.report import ReportHeader
from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import evaluate_skill_sync
from skillbench.trigger.verdict import trigger_header

ROOT = Path(__file__).resolve().parents[2]
SKILL = ROOT / "data" / "skills" / "csv-cleanup"
EVALS = ROOT / "data" / "evals" / "csv-cleanup.trigger.json"
CATALOG = ROOT / "data" / "catalog"


def _catalog_notebooks() -> list[str]:
    return [n for n in available_notebooks() if "catalog" in declared_parameters(
        resolve_notebook(n))]  # fmt: skip


def test_notebooks_default_to_no_catalog_like_the_cli() -> None:
    names = _catalog_notebooks()
    assert {"trigger_eval", "improve_description", "report_diff"} <= set(names)
    cli = build_parser().parse_args(["trigger", str(SKILL), "--evals", str(EVALS)]).catalog
    assert cli == "none"
    for name in names:
        assert declared_parameters(resolve_notebook(name))["catalog"] == "None", name


def test_the_demo_passes_the_sample_catalog_explicitly() -> None:
    for name in _catalog_notebooks():
        if name in DEMO_NOTEBOOKS:
            assert Path(demo_parameters(name)["catalog"]) == CATALOG
    assert demo_parameters("validate_library") == {}


def test_demo_runs_notebooks_with_the_demo_parameters(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, dict[str, Any]] = {}

    def fake(name: str, params: dict[str, Any], *, out_root: str) -> Any:
        from types import SimpleNamespace

        seen[name] = params
        return SimpleNamespace(ok=True, folder=Path(out_root) / name, html=None, manifest=None)

    monkeypatch.setattr("skillbench.reports.runner.run_notebook", fake)
    assert main(["demo", "--out", str(tmp_path), "--jobs", "1"]) == 0
    assert Path(seen["trigger_eval"]["catalog"]) == CATALOG
    assert seen["validate_library"] == {}


def _report(**options: Any) -> TriggerReport:
    options.setdefault("runs", 1)
    return evaluate_skill_sync(
        SKILL, EVALS, TriggerOptions(backend="lexical", use_cache=False, **options)
    )


def test_the_header_has_catalog_runs_and_both_commits() -> None:
    report = _report(catalog_dir=CATALOG)
    assert report.catalog is not None and report.catalog.sha256
    stored = ReportHeader.model_validate(report.header)  # the JSON header of the report
    shown = trigger_header(report, eval_set=EVALS)  # the notebook's (no skill_dir given)
    for header in (stored, shown):
        count = len(report.catalog.skills)
        assert header.catalog == f"{CATALOG}: {count} skills, sha256 {report.catalog.sha256[:12]}"
        assert header.catalog_sha256 == report.catalog.sha256
        assert header.runs == "1 per query"
        assert header.tool_version
    lines = header_lines(stored)
    assert any(line.startswith("  catalog: ") and "sha256" in line for line in lines)
    assert any(line.startswith("  runs: ") for line in lines)
    assert any(line.startswith("  tool: skillbench ") for line in lines)
    page = header_html(stored)
    assert ">catalog<" in page and ">runs<" in page
    none = ReportHeader.model_validate(_report().header)
    assert none.catalog is not None and none.catalog.startswith("none: 0 skills")


def test_the_skill_commit_is_the_skill_repositorys(tmp_path: Path) -> None:
    repo = tmp_path / "library"
    skill = repo / "csv-cleanup"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes((SKILL / "SKILL.md").read_bytes())

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              check=True)  # fmt: skip
        return done.stdout.strip()

    git("init", "-q")
    git("-c", "user.email=t@e", "-c", "user.name=t", "add", ".")
    git("-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "skill")
    head = git("rev-parse", "HEAD")
    header = ReportHeader.model_validate(
        evaluate_skill_sync(
            skill, EVALS, options=TriggerOptions(backend="lexical", runs=1, use_cache=False)
        ).header
    )
    assert header.skill_commit == head and header.skill_dirty is False
    assert header.commit != head  # skillbench's own commit is recorded apart
    (skill / "notes.md").write_text("x", encoding="utf-8")
    dirty = ReportHeader.model_validate(
        evaluate_skill_sync(
            skill, EVALS, options=TriggerOptions(backend="lexical", runs=1, use_cache=False)
        ).header
    )
    assert dirty.skill_dirty is True
    assert any("skill commit: " + head[:12] in line for line in header_lines(dirty))


def test_diff_warns_when_a_and_b_were_measured_differently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _report(runs=1)
    same = diff_documents(a, _report(runs=1))
    assert same.warnings == []
    b = _report(runs=2, catalog_dir=CATALOG)
    b.backend = b.backend.model_copy(update={"model": "other-model"})  # type: ignore[union-attr]
    b.config = b.config.model_copy(update={"evals_sha256": "0" * 64})  # type: ignore[union-attr]
    b.harness = None if a.harness else b.harness
    warnings = diff_documents(a, b).warnings
    text = " | ".join(warnings)
    assert "catalogs differ" in text and "runs differ: A 1, B 2" in text
    assert "backend/model differ" in text and "different eval sets" in text
    write_json(tmp_path / "a.json", a)
    write_json(tmp_path / "b.json", b)
    main(["report", "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    out = capsys.readouterr().out
    assert "WARNING: the catalogs differ" in out and "WARNING: runs differ" in out


def test_diff_warns_when_the_harness_differs() -> None:
    from skillbench.schemas.trigger import HarnessInfo

    a, b = _report(), _report()
    a.harness = HarnessInfo(name="replay", claude_code_request=True)
    b.harness = HarnessInfo(name="minimal", claude_code_request=False)
    assert any("harness differs: A replay, B minimal" in w for w in diff_documents(a, b).warnings)
