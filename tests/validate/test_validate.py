"""One test per seed-001 code: seed JSON shape, right level, both profiles, strict variants."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.schemas.validation import ValidationReport
from skillbench.validate.rules import (
    findings_frame,
    profiles,
    summary_frame,
    validate_description,
    validate_library,
    validate_skill,
)

D = GOOD_DESCRIPTION
CLAUDE_CODE_VALUE_CODES = (
    "EFFORT_VALUE",
    "CONTEXT_VALUE",
    "FLAG_VALUE",
    "STRING_LIST_TYPE",
    "SHELL_VALUE",
)


def fm(**extra: str) -> str:
    """Frontmatter with a good name and description plus `extra` raw YAML lines."""
    lines = ["name: csv-tidy", f"description: {D}", *(f"{k}: {v}" for k, v in extra.items())]
    return "\n".join(lines) + "\n"


def seed_shape(report: ValidationReport) -> dict[str, Any]:
    """The report as JSON, asserting exactly the seed-001 keys."""
    data = json.loads(json.dumps(report.to_json_dict()))
    assert list(data) == ["skill_path", "valid", "errors", "warnings", "summary"]
    assert list(data["summary"]) == ["error_count", "warning_count"]
    for finding in data["errors"] + data["warnings"]:
        assert list(finding) == ["level", "code", "message"]
    assert data["summary"]["error_count"] == len(data["errors"])
    assert data["summary"]["warning_count"] == len(data["warnings"])
    assert data["valid"] is (not data["errors"])
    return data


def levels(data: dict[str, Any], code: str) -> set[str]:
    return {f["level"] for f in data["errors"] + data["warnings"] if f["code"] == code}


# (code, kwargs for make_skill, profile, strict, expected level)
CASES: list[tuple[str, dict[str, Any], str, bool, str]] = [
    ("SKILL_MD_MISSING", {"raw": None, "files": {"notes.md": "x"}}, "claude-code", False, "error"),
    ("FRONTMATTER_PARSE", {"raw": b"name: x\n"}, "claude-code", False, "error"),
    ("FRONTMATTER_PARSE", {"raw": b"---\nname: x\n"}, "agentskills", False, "error"),
    ("FRONTMATTER_INVALID", {"frontmatter": "name: [unclosed\n"}, "agentskills", False, "error"),
    ("FRONTMATTER_INVALID", {"frontmatter": "name: a: b\n"}, "claude-code", False, "error"),
    ("FRONTMATTER_INVALID", {"frontmatter": "- a\n- b\n"}, "claude-code", False, "error"),
    ("FRONTMATTER_INVALID", {"frontmatter": "just a string\n"}, "claude-code", False, "error"),
    ("UNKNOWN_KEYS", {"frontmatter": fm(colour="red")}, "claude-code", False, "warning"),
    ("UNKNOWN_KEYS", {"frontmatter": fm(colour="red")}, "claude-code", True, "error"),
    ("UNKNOWN_KEYS", {"frontmatter": fm(model="opus")}, "agentskills", False, "warning"),
    ("UNKNOWN_KEYS", {"frontmatter": fm(version="1.0.0")}, "agentskills", True, "error"),
    ("MISSING_RECOMMENDED_KEY", {"frontmatter": f"description: {D}\n"}, "claude-code", False, "warning"),
    ("MISSING_RECOMMENDED_KEY", {"frontmatter": f"description: {D}\n"}, "agentskills", True, "error"),
    ("MISSING_RECOMMENDED_KEY", {"frontmatter": "name: csv-tidy\n"}, "claude-code", False, "warning"),
    ("MISSING_RECOMMENDED_KEY", {"frontmatter": ""}, "claude-code", False, "warning"),
    ("NAME_TYPE", {"frontmatter": f"name: [a]\ndescription: {D}\n"}, "claude-code", False, "error"),
    ("NAME_EMPTY", {"frontmatter": f"name: ''\ndescription: {D}\n"}, "claude-code", False, "error"),
    ("NAME_EMPTY", {"frontmatter": f"name:\ndescription: {D}\n"}, "agentskills", False, "error"),
    ("NAME_TOO_LONG", {"folder": "a" * 65, "frontmatter": f"name: {'a' * 65}\ndescription: {D}\n"}, "claude-code", False, "error"),
    ("NAME_FORMAT", {"frontmatter": f"name: CSV_Tidy\ndescription: {D}\n"}, "claude-code", False, "error"),
    ("NAME_FORMAT", {"frontmatter": f"name: csv--tidy\ndescription: {D}\n"}, "claude-code", False, "error"),
    ("NAME_FORMAT", {"frontmatter": f"name: csv-tidy-\ndescription: {D}\n"}, "agentskills", False, "error"),
    ("NAME_RESERVED_PREFIX", {"folder": "claude-csv", "frontmatter": f"name: claude-csv\ndescription: {D}\n"}, "claude-code", False, "error"),
    ("NAME_RESERVED_PREFIX", {"folder": "anthropic-x", "frontmatter": f"name: anthropic-x\ndescription: {D}\n"}, "agentskills", False, "error"),
    ("NAME_FOLDER_MISMATCH", {"frontmatter": f"name: other-name\ndescription: {D}\n"}, "claude-code", False, "warning"),
    ("DESCRIPTION_TYPE", {"frontmatter": "name: csv-tidy\ndescription: {a: 1}\n"}, "claude-code", False, "error"),
    ("DESCRIPTION_EMPTY", {"frontmatter": "name: csv-tidy\ndescription: '   '\n"}, "claude-code", False, "error"),
    ("DESCRIPTION_EMPTY", {"frontmatter": "name: csv-tidy\ndescription:\n"}, "agentskills", False, "error"),
    ("DESCRIPTION_EMPTY", {"frontmatter": "name: csv-tidy\n"}, "agentskills", False, "error"),
    ("DESCRIPTION_EMPTY", {"frontmatter": "# only a comment\n"}, "agentskills", False, "error"),
    ("DESCRIPTION_TOO_LONG", {"frontmatter": f"name: csv-tidy\ndescription: Use when {'x' * 1020}\n"}, "claude-code", False, "error"),
    ("DESCRIPTION_ANGLE_BRACKETS", {"frontmatter": "name: csv-tidy\ndescription: Use when <b>bold</b>\n"}, "claude-code", False, "error"),
    ("DESCRIPTION_TRIGGER_HINT", {"frontmatter": "name: csv-tidy\ndescription: Formats CSV files.\n"}, "claude-code", False, "warning"),
    ("COMPATIBILITY_TYPE", {"frontmatter": fm(compatibility="[linux]")}, "agentskills", False, "error"),
    ("COMPATIBILITY_TOO_LONG", {"frontmatter": fm(compatibility="y" * 501)}, "claude-code", False, "error"),
    ("ALLOWED_TOOLS_TYPE", {"frontmatter": fm(**{"allowed-tools": "{a: 1}"})}, "claude-code", False, "error"),
    ("ALLOWED_TOOLS_ITEM_TYPE", {"frontmatter": fm(**{"allowed-tools": "[Read, 3]"})}, "agentskills", False, "error"),
    ("MODEL_TYPE", {"frontmatter": fm(model="[opus]")}, "claude-code", False, "error"),
    ("HOOKS_TYPE", {"frontmatter": fm(hooks="not-a-mapping")}, "claude-code", False, "error"),
    ("CONTEXT_FORK_NO_AGENT", {"frontmatter": fm(context="fork")}, "claude-code", False, "warning"),
    ("AGENT_WITHOUT_FORK", {"frontmatter": fm(agent="Explore")}, "claude-code", False, "warning"),
    ("SKILL_MD_TOO_LONG", {"body": "line\n" * 600}, "claude-code", False, "warning"),
    ("WHEN_TO_USE_IN_BODY", {"body": "# Tidy\n\n### WHEN TO USE this skill\n"}, "claude-code", False, "warning"),
    ("DEEP_LINK_TARGET", {"body": "See [the guide](../other/guide.md) and ![i](./a/../../x.png).\n"}, "claude-code", False, "warning"),
    ("DEEP_LINK_TARGET", {"body": "[ref]: ../../secret.md\n"}, "agentskills", False, "warning"),
    ("README_PRESENT", {"files": {"README.md": "hi"}}, "claude-code", False, "warning"),
    ("README_PRESENT", {"files": {"docs/readme.MD": "hi"}}, "agentskills", True, "error"),
]  # fmt: skip


@pytest.mark.parametrize(("code", "kwargs", "profile", "strict", "level"), CASES)
def test_code(
    tmp_path: Path, code: str, kwargs: dict[str, Any], profile: str, strict: bool, level: str
) -> None:
    kwargs = dict(kwargs)
    if "raw" in kwargs and kwargs["raw"] is None:
        path = tmp_path / "csv-tidy"
        path.mkdir()
        for rel, text in kwargs["files"].items():
            (path / rel).write_text(text)
    else:
        path = make_skill(tmp_path, **kwargs)
    data = seed_shape(validate_skill(path, profile=profile, strict=strict))  # type: ignore[arg-type]
    assert levels(data, code) == {level}, data
    assert data["skill_path"] == str(path)
    if level == "error":
        assert data["valid"] is False


def test_every_code_has_a_case_and_a_row() -> None:
    seed_codes = {c[0] for c in CASES} | {
        "SKILL_DIR_MISSING",
        "SKILL_PATH_NOT_DIR",
        "SKILL_MD_LINK_OUTSIDE",  # tests/validate/test_validate_library.py
        "SKILL_MD_LINKED",
        "AGENT_LIMIT",  # tests/validate/test_validate_agents.py
        "AGENT_DOCUMENTED_LIMIT",
        *CLAUDE_CODE_VALUE_CODES,  # tests/validate/test_claude_code_keys.py
    }
    # the seed's 30, the two SKILL.md link codes, the two agent limits, Claude Code's values
    codes = profiles().codes()
    assert len(codes) == 34 + len(CLAUDE_CODE_VALUE_CODES)
    assert seed_codes == set(codes) == {r.code for r in profiles().rules}
    assert codes["README_PRESENT"].level == "warning/error"
    assert codes["NAME_FORMAT"].level == "error"


def test_dir_missing_and_not_dir(tmp_path: Path) -> None:
    data = seed_shape(validate_skill(tmp_path / "nope"))
    assert [f["code"] for f in data["errors"]] == ["SKILL_DIR_MISSING"]
    file = tmp_path / "file.txt"
    file.write_text("x")
    data = seed_shape(validate_skill(file))
    assert [f["code"] for f in data["errors"]] == ["SKILL_PATH_NOT_DIR"]


def test_clean_skill_has_no_findings_in_both_profiles(tmp_path: Path) -> None:
    path = make_skill(
        tmp_path,
        files={"scripts/run.py": "print(1)\n"},
        body="[ok](scripts/run.py) [web](https://x.org/../a)\n",
    )
    for profile in profiles().names:
        report = validate_skill(path, profile=profile, strict=True)
        assert report.valid and not report.warnings, report


def test_claude_code_keys_allowed_only_in_claude_code_profile(tmp_path: Path) -> None:
    extra = "argument-hint: '[file]'\ndisable-model-invocation: true\nuser-invocable: false\nmodel: opus\ncontext: fork\nagent: Explore\nhooks: {}\nversion: 1.0.0\n"
    path = make_skill(
        tmp_path,
        frontmatter=fm()
        + extra
        + "license: MIT\ncompatibility: linux\nmetadata: {a: 1}\nallowed-tools: Read Grep\n",
    )
    assert validate_skill(path, profile="claude-code", strict=True).valid
    report = validate_skill(path, profile="agentskills", strict=True)
    assert [f.code for f in report.errors] == ["UNKNOWN_KEYS"]
    for key in ("argument-hint", "model", "hooks", "version"):
        assert key in report.errors[0].message


def test_stop_rule_ends_validation(tmp_path: Path) -> None:
    path = make_skill(
        tmp_path, frontmatter="- a\n", files={"README.md": "x"}, body="# When to use\n"
    )
    report = validate_skill(path)
    assert [f.code for f in report.errors + report.warnings] == ["FRONTMATTER_INVALID"]


def test_crlf_and_bom_accepted(tmp_path: Path) -> None:
    text = f"---\r\nname: csv-tidy\r\ndescription: >\r\n  {D}\r\n---\r\n# Body\r\n"
    path = make_skill(tmp_path, raw=b"\xef\xbb\xbf" + text.encode())
    report = validate_skill(path)
    assert report.valid and not report.warnings, report


def test_trigger_words_are_whole_words_any_case() -> None:
    def codes(text: str) -> list[str]:
        return [f.code for f in validate_description(text)]

    assert codes("Tidies CSV. USE WHENEVER a CSV appears.") == []
    assert codes("Tidies CSV. use for csv files") == []
    assert codes("Tidies CSV. Use  when asked") == []
    assert codes("Tidies CSV. Reuse whenever; misuse for fun") == ["DESCRIPTION_TRIGGER_HINT"]
    assert codes("Tidies CSV. use whence") == ["DESCRIPTION_TRIGGER_HINT"]


def test_trigger_hint_accepts_anthropics_own_phrasings() -> None:
    def codes(text: str) -> list[str]:
        return [f.code for f in validate_description(text)]

    # anthropics/skills pdf: "Use this skill whenever the user wants to do anything with PDF files"
    assert codes("Extracts PDF text. Use this skill whenever the user wants PDF work.") == []
    assert codes("Formats tables. This skill should be used when the user asks for it.") == []
    assert codes("Reviews SQL. Use it if a query is slow.") == []
    assert codes("Reviews SQL. Use the reviewer; whenever possible.") == [
        "DESCRIPTION_TRIGGER_HINT"
    ]  # punctuation ends the phrase


def test_validate_description_alone() -> None:
    assert validate_description(D) == []
    assert [f.code for f in validate_description(42)] == ["DESCRIPTION_TYPE"]
    assert [f.code for f in validate_description("")] == ["DESCRIPTION_EMPTY"]
    long = validate_description("Use when " + "z" * 2000, name="csv-tidy")
    assert [f.code for f in long] == ["DESCRIPTION_TOO_LONG"]
    assert len(long[0].message) < 200


def test_when_to_use_inside_code_fence_is_ignored(tmp_path: Path) -> None:
    body = "# Tidy\n\n```md\n## When to use\n[x](../y)\n```\n"
    assert validate_skill(make_skill(tmp_path, body=body)).warnings == []


def test_long_values_are_truncated_in_messages(tmp_path: Path) -> None:
    name = "N" * 5000
    path = make_skill(tmp_path, frontmatter=f"name: {name}\ndescription: {D}\n")
    report = validate_skill(path)
    assert report.errors and all(len(f.message) < 300 for f in report.errors + report.warnings)


def test_library_and_frames(tmp_path: Path) -> None:
    make_skill(tmp_path, "b-skill", frontmatter=f"name: b-skill\ndescription: {D}\n")
    make_skill(
        tmp_path / "nested", "a-skill", frontmatter="name: a-skill\ndescription: No trigger.\n"
    )
    make_skill(tmp_path / ".git", "c-skill")
    make_skill(tmp_path / "node_modules" / "pkg", "d-skill")
    (tmp_path / "empty").mkdir()
    reports = validate_library(tmp_path)
    assert [Path(r.skill_path).name for r in reports] == ["b-skill", "a-skill"]
    frame = findings_frame(reports)
    assert list(frame.columns) == ["skill", "skill_path", "valid", "level", "code", "message"]
    assert frame.loc[frame.skill == "b-skill", "code"].isna().all()
    assert frame.loc[frame.skill == "a-skill", "code"].tolist() == ["DESCRIPTION_TRIGGER_HINT"]
    summary = summary_frame(reports)
    assert summary.to_dict("records") == [
        {"skill": "b-skill", "valid": True, "errors": 0, "warnings": 0},
        {"skill": "a-skill", "valid": True, "errors": 0, "warnings": 1},
    ]


def test_library_root_that_is_a_skill_is_included(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "csv-tidy")
    make_skill(root, "inner", frontmatter=f"name: inner\ndescription: {D}\n")
    assert [Path(r.skill_path).name for r in validate_library(root)] == ["csv-tidy", "inner"]


def test_bad_profile_is_input_error(tmp_path: Path) -> None:
    from skillbench.errors import InputError

    with pytest.raises(InputError, match="profile"):
        validate_skill(tmp_path, profile="nope")  # type: ignore[arg-type]
