"""Deterministic expectation checks: verdicts and evidence, missing targets fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.behavior.checks import RunMaterial, run_check
from skillbench.behavior.records import ExpectationCheck


@pytest.fixture
def run(tmp_path: Path) -> RunMaterial:
    (tmp_path / "outputs" / "sub").mkdir(parents=True)
    (tmp_path / "outputs" / "report.md").write_text("# Title\nline two\nline three\n")
    (tmp_path / "outputs" / "sub" / "data.json").write_text('{"a": 1}')
    (tmp_path / "outputs" / "bad.json").write_text("{not json")
    (tmp_path / "transcript.md").write_text("## Assistant\nI created report.md for you.\n")
    return RunMaterial(tmp_path, final_text="All done: 3 files written.")


def check(**raw: object) -> ExpectationCheck:
    return ExpectationCheck.model_validate(raw)


def test_file_exists_and_glob(run: RunMaterial) -> None:
    assert run_check(check(type="file_exists", target="outputs/report.md"), run).passed
    found = run_check(check(type="file_exists", target="outputs/**/*.json"), run)
    assert found.passed and "sub/data.json" in found.evidence
    missing = run_check(check(type="file_exists", target="outputs/nope.txt"), run)
    assert not missing.passed and "does not exist" in missing.evidence


def test_regex_reports_the_match(run: RunMaterial) -> None:
    hit = run_check(check(type="regex", target="outputs/report.md", pattern=r"^line \w+"), run)
    assert hit.passed and "line two" in hit.evidence
    miss = run_check(check(type="regex", target="transcript", pattern=r"deleted"), run)
    assert not miss.passed and "no match" in miss.evidence


def test_regex_invalid_pattern_fails_with_reason(run: RunMaterial) -> None:
    outcome = run_check(check(type="regex", target="final_text", pattern="(unclosed"), run)
    assert not outcome.passed and "invalid regex" in outcome.evidence


def test_contains_is_case_sensitive(run: RunMaterial) -> None:
    assert run_check(check(type="contains", target="final_text", value="All done"), run).passed
    assert not run_check(check(type="contains", target="final_text", value="all done"), run).passed


def test_json_valid(run: RunMaterial) -> None:
    assert run_check(check(type="json_valid", target="outputs/sub/data.json"), run).passed
    bad = run_check(check(type="json_valid", target="outputs/bad.json"), run)
    assert not bad.passed and "not valid JSON" in bad.evidence


def test_max_lines(run: RunMaterial) -> None:
    assert run_check(check(type="max_lines", target="outputs/report.md", value=3), run).passed
    over = run_check(check(type="max_lines", target="outputs/report.md", value=2), run)
    assert not over.passed and "3 lines" in over.evidence


@pytest.mark.parametrize("kind", ["regex", "contains", "json_valid", "max_lines"])
def test_missing_target_fails_saying_so(run: RunMaterial, kind: str) -> None:
    extra: dict[str, object] = {"regex": {"pattern": "x"}, "contains": {"value": "x"}}.get(kind, {})
    if kind == "max_lines":
        extra = {"value": 10}
    outcome = run_check(check(type=kind, target="outputs/absent.md", **extra), run)
    assert not outcome.passed and "does not exist" in outcome.evidence


def test_missing_transcript(tmp_path: Path) -> None:
    outcome = run_check(
        check(type="contains", target="transcript", value="x"), RunMaterial(tmp_path)
    )
    assert not outcome.passed and "no transcript" in outcome.evidence


def test_symlink_escaping_outputs_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("outside")
    (tmp_path / "run" / "outputs").mkdir(parents=True)
    (tmp_path / "run" / "outputs" / "link.txt").symlink_to(tmp_path / "secret.txt")
    outcome = run_check(
        check(type="contains", target="outputs/link.txt", value="outside"),
        RunMaterial(tmp_path / "run"),
    )
    assert not outcome.passed


def test_catastrophic_regex_is_time_bounded_and_undecided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from skillbench.behavior import checks

    monkeypatch.setattr(checks, "REGEX_TIMEOUT_SECONDS", 0.2)
    material = RunMaterial(tmp_path, final_text="a" * 60 + "!")
    started = time.monotonic()
    outcome = run_check(check(type="regex", target="final_text", pattern=r"(a|aa)+$"), material)
    assert time.monotonic() - started < 10  # `re` takes minutes on this input
    assert outcome.passed is None and "timed out after 0.2 s" in outcome.evidence
