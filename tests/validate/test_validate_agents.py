"""`validate --profile codex|gemini|opencode`: the open standard's keys plus each agent's limits
(AGENT_LIMIT where the agent enforces them, AGENT_DOCUMENTED_LIMIT where it only documents them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.cli import main
from skillbench.validate.rules import profiles, validate_skill

AGENT_PROFILES = tuple(p for p in profiles().names if p in profiles().limits)


def codes(report: object, level: str) -> list[str]:
    data = json.loads(json.dumps(report.to_json_dict()))  # type: ignore[attr-defined]
    return [f["code"] for f in data[level]]


@pytest.mark.parametrize("profile", AGENT_PROFILES)
def test_clean_skill_passes_every_agent_profile(tmp_path: Path, profile: str) -> None:
    report = validate_skill(make_skill(tmp_path), profile=profile, strict=True)  # type: ignore[arg-type]
    assert report.valid and not report.warnings


def test_codex_refuses_a_multiline_description(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path, frontmatter="name: csv-tidy\ndescription: |\n  Tidy CSV.\n  Use when asked.\n"
    )
    report = validate_skill(folder, profile="codex")
    assert codes(report, "errors") == ["AGENT_LIMIT"]
    assert "one-line" in report.errors[0].message
    assert validate_skill(folder, profile="claude-code").valid


def test_opencode_name_must_match_folder_documented(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, frontmatter=f"name: csv-other\ndescription: {GOOD_DESCRIPTION}\n")
    report = validate_skill(folder, profile="opencode")
    assert report.valid  # documented only: opencode 1.18.33 listed it (a warning)
    assert "AGENT_DOCUMENTED_LIMIT" in codes(report, "warnings")
    assert any("measured" in w.message for w in report.warnings)


def test_claude_code_keys_are_unknown_to_other_agents(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path,
        frontmatter=f"name: csv-tidy\ndescription: {GOOD_DESCRIPTION}\nwhen_to_use: on CSVs\n",
    )
    assert "UNKNOWN_KEYS" in codes(validate_skill(folder, profile="codex"), "warnings")
    assert "UNKNOWN_KEYS" not in codes(validate_skill(folder, profile="claude-code"), "warnings")


def test_cli_profile_codex_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_skill(
        tmp_path, frontmatter="name: csv-tidy\ndescription: |\n  Tidy CSV.\n  Use when asked.\n"
    )
    assert main(["validate", str(folder), "--profile", "codex"]) == 1
    assert "AGENT_LIMIT" in capsys.readouterr().out
    assert main(["validate", str(folder), "--profile", "gemini"]) == 0
