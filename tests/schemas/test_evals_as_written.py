"""skill-creator evals.json files as authors write them: first drafts without expectations,
`assertions`, string ids, a bare list without the `skill_name` wrapper. All are read and
normalised; only a draft (grading needs expectations) draws a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from validate_helpers import make_skill

from skillbench.behavior.records import expectation_checks
from skillbench.behavior.workspace import init_workspace, read_evals
from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.schemas import check, detect

DRAFT = {
    "skill_name": "csv-tidy",
    "evals": [
        {"id": 1, "prompt": "Tidy data.csv", "expected_output": "A clean CSV with one header row"},
        {"id": 2, "prompt": "Fix quoting", "expected_output": "Quotes balanced", "files": []},
    ],
}
ASSERTIONS = {
    "skill_name": "csv-tidy",
    "evals": [
        {"id": 1, "prompt": "Tidy data.csv", "assertions": ["has one header row", "no blank rows"]},
        {
            "id": 2,
            "prompt": "Fix quoting",
            "assertions": [{"text": "quotes balanced", "type": "contains"}, {"weight": 2}],
        },
    ],
}
STRING_IDS = {
    "skill_name": "python-uv",
    "evals": [
        {
            "id": "python-uv-run-not-python3",
            "prompt": "Run the script",
            "expectations": ["uses `uv run`, not python3"],
        },
        {"id": "python-uv-add", "prompt": "Add requests", "expectations": ["runs `uv add`"]},
    ],
}
BARE_LIST = [
    {"id": 1, "prompt": "Tidy data.csv", "expected_output": "Clean", "expectations": ["clean"]},
    {"id": 2, "prompt": "Fix quoting", "expected_output": "Balanced"},
]
BARE_LIST_NO_IDS = [{"prompt": "Tidy data.csv", "expected_output": "Clean"}]

SHAPES: dict[str, Any] = {
    "draft": DRAFT,
    "assertions": ASSERTIONS,
    "string-ids": STRING_IDS,
    "bare-list": BARE_LIST,
}
EXPECTED_TEXTS = {
    "draft": [[], []],
    "assertions": [
        ["has one header row", "no blank rows"],
        ["quotes balanced", '{"weight": 2}'],
    ],
    "string-ids": [["uses `uv run`, not python3"], ["runs `uv add`"]],
    "bare-list": [["clean"], []],
}
DRAFT_WARNINGS = {"draft": [0, 1], "assertions": [], "string-ids": [], "bare-list": [1]}


def write(folder: Path, data: Any) -> Path:
    path = folder / "evals" / "evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_is_read_and_normalised(tmp_path: Path, shape: str) -> None:
    path = write(tmp_path, SHAPES[shape])
    assert detect(SHAPES[shape], "evals.json") == ("evals", "skill-creator")
    result = check(path)
    assert result.valid, result.errors
    drafts = [w for w in result.warnings if "no expectations yet" in w]
    assert len(drafts) == len(DRAFT_WARNINGS[shape])
    assert all("grading needs expectations" in w for w in drafts)
    evals = read_evals(path)
    assert [[e.text for e in case.expectations] for case in evals.evals.cases] == (
        EXPECTED_TEXTS[shape]
    )
    assert list(evals.warnings) == drafts
    checks = expectation_checks(evals.model, path=path)
    assert [len(v) for v in checks.values()] == [len(t) for t in EXPECTED_TEXTS[shape]]


def test_string_ids_are_kept(tmp_path: Path) -> None:
    evals = read_evals(write(tmp_path, STRING_IDS)).evals
    assert [case.id for case in evals.cases] == ["python-uv-run-not-python3", "python-uv-add"]


def test_cases_without_ids_are_numbered_by_position(tmp_path: Path) -> None:
    path = write(tmp_path, [*BARE_LIST_NO_IDS, {"prompt": "b", "expectations": ["x"]}])
    evals = read_evals(path)
    assert [case.id for case in evals.evals.cases] == [1, 2]
    assert list(expectation_checks(evals.model, path=path)) == ["1", "2"]
    clash = write(tmp_path, [{"prompt": "a", "expectations": ["x"]}, {"id": 1, "prompt": "b"}])
    assert not check(clash).valid


def test_duplicate_ids_across_types_are_refused(tmp_path: Path) -> None:
    data = {"evals": [{"id": 1, "prompt": "a"}, {"id": "1", "prompt": "b"}]}
    result = check(write(tmp_path, data))
    assert not result.valid
    assert any(e.startswith("evals[1].id: duplicate eval id '1'") for e in result.errors)
    with pytest.raises(InputError, match=r"\[unique-id\]"):
        read_evals(write(tmp_path, [{"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"}]))


def test_trigger_eval_lists_are_still_trigger_evals() -> None:
    assert detect([{"prompt": "p", "should_trigger": True}], "evals.json") == (
        "trigger-evals",
        "skill-creator-v3",
    )
    assert detect({"evals": [{"query": "q", "should_trigger": False}]}, "evals.json")[0] == (
        "trigger-evals"
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_init_accepts_every_shape(
    tmp_path: Path, shape: str, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path)
    write(skill, SHAPES[shape])
    result = init_workspace(skill)
    assert result.workspace.history_path.is_file()
    assert len(result.warnings) == len(DRAFT_WARNINGS[shape])
    other = make_skill(tmp_path / "cli")
    write(other, SHAPES[shape])
    assert main(["init", str(other)]) == 0
    err = capsys.readouterr().err
    assert ("no expectations yet" in err) is bool(DRAFT_WARNINGS[shape])
