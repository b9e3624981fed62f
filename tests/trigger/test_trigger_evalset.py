"""Loading trigger eval sets (seed 001 Formats A and B) with precise errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillbench.errors import InputError
from skillbench.trigger.evalset import load_eval_set


def write(tmp_path: Path, data: Any, name: str = "evals.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_format_a_and_b(tmp_path: Path) -> None:
    a = load_eval_set(write(tmp_path, [{"query": "make a skill", "should_trigger": True}]))
    assert [(x.text, x.should_trigger) for x in a] == [("make a skill", True)]
    b = load_eval_set(
        write(
            tmp_path,
            {"evals": [{"prompt": "fib", "should_trigger": False, "family": "code"}]},
            "b.json",
        )
    )
    assert (b[0].text, b[0].should_trigger, b[0].family) == ("fib", False, "code")


def test_duplicates_are_merged(tmp_path: Path) -> None:
    items = [
        {"query": "same", "should_trigger": True},
        {"query": "other", "should_trigger": False},
        {"query": "  same ", "should_trigger": True},
    ]
    queries = load_eval_set(write(tmp_path, items))
    assert [x.text for x in queries] == ["same", "other"]
    assert queries[0].sources == (0, 2) and queries[0].merged == 1


def test_conflicting_duplicates_are_an_error(tmp_path: Path) -> None:
    items = [{"query": "same", "should_trigger": True}, {"query": "same", "should_trigger": False}]
    with pytest.raises(InputError) as err:
        load_eval_set(write(tmp_path, items))
    assert err.value.field == "[1].should_trigger"
    assert "[0]" in str(err.value) and "evals.json" in str(err.value)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        (
            {
                "evals": [{"query": "a", "should_trigger": True}] * 3
                + [{"query": "b", "should_trigger": "yes"}]
            },
            "evals[3].should_trigger",
            "must be a boolean",
        ),
        ([{"query": "", "should_trigger": True}], "[0].query", "non-empty"),
        ([{"prompt": 5, "should_trigger": True}], "[0].prompt", "must be a string"),
        ([{"query": "a", "prompt": "a", "should_trigger": True}], "[0]", "not both"),
        ([{"should_trigger": True}], "[0].query", "needs"),
        ([{"query": "a"}], "[0].should_trigger", "is required"),
        ([{"query": "a", "should_trigger": 1}], "[0].should_trigger", "boolean"),
        ([["a", True]], "[0]", "must be an object"),
        ({"evals": {"query": "a"}}, "evals", "must be an array"),
        ({"queries": []}, "evals", "Format B"),
        ([], None, "no queries"),
        ([{"query": "a", "should_trigger": True, "family": 3}], "[0].family", "string"),
    ],
)
def test_bad_input_names_file_and_field(
    tmp_path: Path, data: Any, field: str | None, words: str
) -> None:
    path = write(tmp_path, data)
    with pytest.raises(InputError) as err:
        load_eval_set(path)
    assert err.value.field == field
    assert words in str(err.value)
    assert str(path) in str(err.value)


def test_not_json_or_missing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON"):
        load_eval_set(bad)
    with pytest.raises(InputError, match="not found"):
        load_eval_set(tmp_path / "missing.json")
    with pytest.raises(InputError, match="Format A"):
        load_eval_set(write(tmp_path, "just a string"))


def test_catalog_skips_caches_and_vendored_folders_not_agent_folders(tmp_path: Path) -> None:
    from skillbench.trigger.run import load_catalog

    def skill(folder: Path, name: str) -> None:
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Use when testing {name}.\n---\nBody.\n",
            encoding="utf-8",
        )

    skill(tmp_path / "real-one", "real-one")
    skill(tmp_path / "node_modules" / "pkg" / "vendored", "vendored")
    skill(tmp_path / ".cache" / "hidden", "hidden")
    skill(tmp_path / ".venv" / "lib" / "pkg", "in-venv")
    skill(tmp_path / ".claude" / "skills" / "agent-one", "agent-one")
    assert [e.name for e in load_catalog(tmp_path)] == ["agent-one", "real-one"]
