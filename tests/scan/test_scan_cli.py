"""`skillbench scan PATH [--format text|json|sarif] [--out FILE]`: exit codes, a library's
summary first, and SARIF 2.1.0 valid against the official schema."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sarif_schema import needs_schema
from sarif_schema import sarif_errors as _sarif_errors

from skillbench.cli import main
from skillbench.scan.rules import RULES

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "scan"
HOSTILE = DATA / "hostile"


def test_a_clean_skill_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(ROOT / "data" / "skills" / "csv-cleanup")]) == 0
    assert capsys.readouterr().out == "csv-cleanup: no findings\n"


def test_an_error_finding_exits_1_and_a_warning_alone_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["scan", str(HOSTILE / "script-download-exec")]) == 1
    out = capsys.readouterr().out
    assert "SCRIPT_DOWNLOAD_EXEC  scripts/bootstrap.sh:4  downloads code and runs it" in out
    assert main(["scan", str(HOSTILE / "secret-likely")]) == 0
    assert "warning  SECRET_LIKELY  config.yaml:3" in capsys.readouterr().out


@pytest.mark.parametrize("case", ["missing", "file", "empty", "bad-out"])
def test_bad_input_exits_2_naming_it(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "x"
    argv = ["scan", str(target)]
    if case == "file":
        target.write_text("not a folder", encoding="utf-8")
    elif case == "empty":
        target.mkdir()
    elif case == "bad-out":  # its folder is a file
        target.write_text("a file", encoding="utf-8")
        argv = ["scan", str(HOSTILE / "secret"), "--out", str(target / "o.sarif")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert ("--out" if case == "bad-out" else str(target)) in captured.err


def test_a_library_gets_its_summary_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(HOSTILE)]) == 1
    lines = capsys.readouterr().out.splitlines()
    errors = sum(rule.severity == "error" for rule in RULES)
    warned = len(RULES) - errors
    assert lines[0].startswith(
        f"{len(RULES)} skills scanned: 0 clean, {errors} with errors, {warned} with warnings only"
    )
    assert lines[2] == "with errors:"
    assert any(line.startswith("warnings (skills per rule): ") for line in lines)
    assert "  error    SECRET  secret/scripts/upload.py:4  AWS Access Key" in "\n".join(lines)


def test_json_is_the_scan_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(HOSTILE / "frontmatter-hooks"), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["library"] is False
    [finding] = data["skills"][0]["findings"]
    assert finding | {"reason": ""} == {
        "rule": "FRONTMATTER_HOOKS", "severity": "error", "file": "SKILL.md", "line": 4,
        "reason": "",
    }  # fmt: skip


@needs_schema
def test_sarif_validates_against_the_official_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "scan.sarif"
    assert main(["scan", os.path.relpath(HOSTILE), "--format", "sarif", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{len(RULES)} skills scanned")  # the text summary still shows
    document = json.loads(out.read_text(encoding="utf-8"))
    assert _sarif_errors(document) == []
    assert document["version"] == "2.1.0" and document["$schema"].endswith("sarif-2.1.0.json")
    run = document["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [r.id for r in RULES]
    assert {r["ruleId"] for r in run["results"]} == {r.id for r in RULES}
    secret = next(r for r in run["results"] if r["ruleId"] == "SECRET")
    location = secret["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "tests/data/scan/hostile/secret/scripts/upload.py"},
        "region": {"startLine": 4},
    }
    assert secret["level"] == "error"
    assert "AKIA" not in out.read_text(encoding="utf-8")


@needs_schema
def test_the_schema_check_can_fail() -> None:
    """The schema does reject a malformed log (the test above is not vacuous)."""
    assert _sarif_errors({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})
    bad_level = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
            {"ruleId": "R", "level": "fatal", "message": {"text": "m"}}]}],
    }  # fmt: skip
    assert _sarif_errors(bad_level)
