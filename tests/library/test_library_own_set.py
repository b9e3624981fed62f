"""Issue 31 item 4: a tested skill failing its own eval set fails the library (exit 1, ✗ on
that skill) under `trigger`'s rule; a should-not-trigger query of one skill that fires nothing is
charged to no other skill."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cost_fakes import flat_factory
from library_fakes import RouterJudge, q, write_skill

from skillbench.backends import registry
from skillbench.cli import main
from skillbench.cost.estimate import register_estimator, unregister_estimator
from skillbench.library.document import NONE, LibraryReport

BACKEND = "ownsetfake"
SCRIPT = {
    "x1": ["xlsx"],  # xlsx fires on one of its three queries: recall 1/3
    "x2": [""],
    "x3": [""],
    "d1": ["docx"],
    "d2": ["docx"],
    "w": [""],  # only a should-not-trigger query of docx, and nothing fires
}


@pytest.fixture
def library(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    registry.register_judge(BACKEND, lambda **_: RouterJudge(SCRIPT, name=BACKEND))
    register_estimator(BACKEND, flat_factory(BACKEND))
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)
    root = tmp_path / "lib"
    write_skill(root, "xlsx", "Spreadsheets.", [q("x1"), q("x2"), q("x3")])
    write_skill(root, "docx", "Documents.", [q("d1"), q("d2"), q("w", False)])
    yield root
    registry.unregister(BACKEND)
    unregister_estimator(BACKEND)


def test_a_skill_failing_its_own_eval_set_fails_the_library(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    code = main(["library", str(library), "--backend", BACKEND, "--runs", "3", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 1  # no pair crosses, nothing hidden: only xlsx's own eval set fails
    report = LibraryReport.model_validate_json(out.read_text())
    skills = {s.name: s for s in report.per_skill}
    xlsx = skills["xlsx"]
    assert (xlsx.passed, xlsx.failed, xlsx.failing) == (1, 2, ["x2", "x3"])
    assert (xlsx.recall.value, xlsx.recall.n) == (round(1 / 3, 4), 3)
    assert "✗ 1/3" in text and "✓ 3/3" in text  # the per-skill table
    assert report.pairs == []
    from skillbench.library.verdict import library_verdict

    verdict = library_verdict(report)
    assert verdict.ok is False and "1 skill(s) fail their own eval set: xlsx" in verdict.line
    assert verdict.failures == [
        "fails its own eval set: xlsx: 2 of 3 queries fail (recall 0.33); e.g. 'x2'"
    ]


def test_a_should_not_query_that_fires_nothing_is_charged_to_no_other_skill(
    library: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    main(["library", str(library), "--backend", BACKEND, "--runs", "3", "--out", str(out)])
    report = LibraryReport.model_validate_json(out.read_text())
    skills = {s.name: s for s in report.per_skill}
    xlsx, docx = skills["xlsx"], skills["docx"]
    assert (docx.passed, docx.failed) == (3, 0)  # "w" passes docx's set: docx fired 0 of 3
    assert (xlsx.passed or 0) + (xlsx.failed or 0) == 3  # not in xlsx's set, not charged to it
    assert (xlsx.precision.n, docx.precision.n) == (1, 2)  # fired by nothing: nobody's n
    assert not any(f.skill == NONE or f.runs == 0 for s in skills.values() for f in s.stolen_by)
    assert not any(f.skill == NONE for s in skills.values() for f in s.steals_from)
    row = report.matrix.rows.index(NONE)
    assert [(report.matrix.columns[j], n) for i, j, n in report.matrix.nonzero() if i == row] == [
        (NONE, 3)
    ]


def test_a_large_library_table_shows_the_skills_that_fail_first(
    library: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli import library_cmd

    monkeypatch.setattr(library_cmd, "MAX_SKILLS_SHOWN", 1)
    main(["library", str(library), "--backend", BACKEND, "--runs", "3"])
    text = capsys.readouterr().out
    assert "✗ 1/3" in text and "✓ 3/3" not in text  # xlsx fails: shown; docx passes: not
    assert "the 1 of 2 skills that fail or fire least" in text
