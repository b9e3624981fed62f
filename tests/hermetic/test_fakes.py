"""Fake binaries and their router: routes by regex, answers one per call, refusals (a route's
and the unmatched call's), the log's sequence under concurrent calls, the PATH guard."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillbench.errors import InputError
from skillbench.hermetic.calls import read_calls
from skillbench.hermetic.environment import parse_environment
from skillbench.hermetic.fakes import GUARD_EXIT, install_fakes

BLOCK = {
    "fakes": {
        "gh": [
            {"match": "^pr create", "stdout": "https://github.com/o/r/pull/7"},
            {"match": "^repo delete", "refuse": "destructive"},
            {"match": "^pr view", "answers": [{"stdout": "OPEN"}, {"stdout": "MERGED", "exit": 3}]},
        ],
        "kubectl": [],
    }
}


def run(fakes: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(fakes / argv[0]), *argv[1:]], capture_output=True, text=True)


def test_routes_answers_and_refusals_are_logged(tmp_path: Path) -> None:
    fakes = install_fakes(parse_environment(BLOCK), tmp_path)
    created = run(fakes.folder, "gh", "pr", "create", "--title", "x")
    assert (created.returncode, created.stdout) == (0, "https://github.com/o/r/pull/7\n")
    deleted = run(fakes.folder, "gh", "repo", "delete", "o/old", "--yes")
    assert deleted.returncode == 126 and "refused (destructive)" in deleted.stderr
    views = [run(fakes.folder, "gh", "pr", "view") for _ in range(3)]
    assert [(v.returncode, v.stdout) for v in views] == [
        (0, "OPEN\n"),
        (3, "MERGED\n"),
        (3, "MERGED\n"),
    ]
    other = run(fakes.folder, "kubectl", "delete", "ns", "prod")
    assert other.returncode == 127 and "no route matches" in other.stderr
    calls = read_calls(fakes.log)
    assert [c.sequence for c in calls] == list(range(1, 7))
    assert [(c.command, c.route, c.refused) for c in calls] == [
        ("gh", 0, False),
        ("gh", 1, True),
        ("gh", 2, False),
        ("gh", 2, False),
        ("gh", 2, False),
        ("kubectl", None, True),
    ]
    assert calls[0].argv == ["pr", "create", "--title", "x"] and calls[1].reason == "destructive"


def test_parallel_calls_get_distinct_sequence_numbers(tmp_path: Path) -> None:
    fakes = install_fakes(parse_environment(BLOCK), tmp_path)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: run(fakes.folder, "gh", "pr", "create", str(i)), range(16)))
    calls = read_calls(fakes.log)
    assert sorted(c.sequence for c in calls) == list(range(1, 17))
    assert sorted(c.argv[-1] for c in calls) == sorted(str(i) for i in range(16))


def test_the_guard_stops_a_shell_where_a_real_binary_comes_first(tmp_path: Path) -> None:
    """The guard runs in the agent's shell before each command: it puts the fakes first; a
    shell that then finds another `gh` first (a function, an alias, a later PATH change) is
    stopped, and the name recorded."""
    fakes = install_fakes(parse_environment(BLOCK), tmp_path / "s")
    guard = tmp_path / "guard.sh"
    guard.write_text(fakes.guard())
    env = {"PATH": os.environ["PATH"]}
    ok = subprocess.run(
        ["sh", "-c", f". {guard}; command -v gh"], capture_output=True, text=True, env=env
    )
    assert ok.returncode == 0 and ok.stdout.strip() == str(fakes.folder / "gh")
    assert fakes.shell_checked() and fakes.path_failures() == []
    shadowed = f"gh() {{ echo real; }}; . {guard}; echo ran"
    bad = subprocess.run(["bash", "-c", shadowed], capture_output=True, text=True, env=env)
    assert bad.returncode == GUARD_EXIT and "ran" not in bad.stdout
    assert "not first on PATH" in bad.stderr and fakes.path_failures() == ["gh"]


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ({"network": "offline"}, "cases[0].environment.network"),
        ({"fakes": {"gh": [{"match": "("}]}}, "cases[0].environment.fakes.gh.0.match"),
        ({"fakes": {"../gh": []}}, "cases[0].environment.fakes"),
        (
            {"fakes": {"gh": [{"match": "x", "stdot": "typo"}]}},
            "cases[0].environment.fakes.gh.0.stdot",
        ),
        (
            {"mcp": {"linear": {"tools": [{"name": "a b"}]}}},
            "cases[0].environment.mcp.linear.tools.0.name",
        ),
    ],
)
def test_a_bad_block_is_an_input_error_naming_the_field(block: dict, field: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_environment(block, path="evals.json", field="cases[0].environment")
    assert caught.value.field == field, caught.value
    json.dumps(block)
