"""Issue 35 on the other agents' session harness: the REAL Codex CLI, Gemini CLI and opencode
(`run --backend codex|gemini|opencode`) against scripted loopback model APIs
(tests/agent_session_fakes.py), a case with an `environment` block under `api-only`.

The scripted agent runs, in its own shell tool: `command -v gh`, `gh pr create …` (answered by
the fake), `gh repo delete o/old --yes` (refused by the fake), a connection to a loopback
listener outside the session (unreachable under `api-only`), a git clone and push (rewired to a
local bare repository with a fixed identity); then it calls the fake MCP server's tool through
the agent's own MCP configuration. A real `gh` sits first on the caller's PATH and leaves a
marker file when it runs: it must never run. Grading is model-free (`called`, `not_called`,
`no_refusals`, `no_egress`). One session per agent (module-scoped), then the assertions; the
`allow` control (the same probe reaches the listener) runs on Codex, the quickest CLI."""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from agent_session_fakes import REAL_KEYS, Step, agent_missing, agent_param, scripted_agent
from loopback_listener import Listener

from skillbench.cli import main
from skillbench.hermetic.netns import namespace_problem
from skillbench.schemas.cost import format_dollars

SKILL_MD = "---\nname: pr-helper\ndescription: Use when opening pull requests.\n---\n# PR\n"
PR_URL = "https://github.com/o/r/pull/7"
REPO = "https://github.com/o/r.git"
GIT = (
    f"git clone -q {REPO} r && cd r && git commit -q --allow-empty -m first && "
    "git push -q origin HEAD:main && git log -1 --format='%an <%ae>'"
)


pytestmark = pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem()))


@dataclass
class Outcome:
    """One `run` + `grade` of the case: the run folder, the tool results the agent's shell
    printed, the keys the fake received, the listener, the real gh's marker, exit codes and
    stderr."""

    name: str
    run: Path
    results: list[str]
    keys: list[str]
    listener: Listener
    marker: Path
    code: int
    err: str
    graded: int

    def calls(self) -> list[dict]:
        return [json.loads(x) for x in (self.run / "calls.jsonl").read_text().splitlines()]

    def verdicts(self) -> dict[str, bool]:
        grading = json.loads((self.run / "grading.json").read_text())
        return {e["text"].split(":")[0].strip(): e["passed"] for e in grading["expectations"]}


def make_skill(root: Path, network: str) -> Path:
    folder = root / "pr-helper"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    checks = [
        {"type": "called", "target": "gh", "pattern": "^pr create"},
        {"type": "not_called", "target": "gh", "pattern": "^repo delete"},
        {"type": "called", "target": "mcp:linear", "pattern": "^create_issue .*Broken build"},
        {"type": "no_refusals", "target": "calls"},
        {"type": "no_egress", "target": "calls"},
    ]
    expectations = [
        {"criterion": c["type"], "description": c["type"], "required": True, "check": c}
        for c in checks
    ]
    environment = {
        "network": network,
        "fakes": {
            "gh": [
                {"match": "^pr create", "stdout": PR_URL},
                {"match": "^repo delete", "refuse": "destructive"},
            ]
        },
        "mcp": {
            "linear": {
                "tools": [{"name": "create_issue", "responses": [{"result": {"id": "LIN-1"}}]}]
            }
        },
        "git": {"remotes": "local-bare", "repos": [REPO], "name": "Bench Bot",
                "email": "bot@example.invalid"},
    }  # fmt: skip
    case = {
        "id": "open-pr",
        "prompt": "Open a pull request, tidy up the old repo, file the issue.",
        "expectations": expectations,
        "environment": environment,
    }
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    return folder


def run_case(name: str, root: Path, network: str) -> Outcome:
    """`run --backend <name>` (its stderr kept) then `grade --backend local`, in a fresh folder
    under `root`."""
    listener = Listener()
    realbin = root / "realbin"
    realbin.mkdir(parents=True)
    marker = root / "real-gh-ran"
    (realbin / "gh").write_text(f'#!/bin/sh\necho "$@" >> {marker}\necho REAL-GH\n')
    (realbin / "gh").chmod(0o755)
    steps = [
        Step("command -v gh"),
        Step("gh pr create --title Fix --body Body"),
        Step("gh repo delete o/old --yes"),
        Step(listener.probe()),
        Step(GIT),
        Step(args={"title": "Broken build"}),
    ]
    skill = make_skill(root, network)
    mp = pytest.MonkeyPatch()
    try:
        mp.chdir(root)
        mp.setenv("PATH", f"{realbin}:{os.environ['PATH']}")
        mp.setenv("SKILLBENCH_CACHE", str(root / "cache.sqlite"))
        mp.delenv("SKILLBENCH_BACKEND", raising=False)
        with scripted_agent(name, steps) as agent:
            for variable, value in agent.caller_env().items():
                mp.setenv(variable, value)
            argv = ["run", str(skill), "--configs", "with_skill", "--runs", "1"]
            with contextlib.redirect_stderr(io.StringIO()) as stderr:
                code = main([*argv, "--backend", name, "--timeout", "180", "--no-cache"])
            err = stderr.getvalue()
            results, keys = list(agent.results), list(agent.keys)
        graded = main(["grade", str(skill), "--backend", "local"])
    finally:
        mp.undo()
        listener.close()
    run = root / "pr-helper-workspace" / "runs" / "with_skill" / "open-pr" / "run-1"
    return Outcome(name, run, results, keys, listener, marker, code, err, graded)


@pytest.fixture(
    scope="module", params=[agent_param("codex"), agent_param("gemini"), agent_param("opencode")]
)
def api_only(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    """One hermetic session per agent under `api-only`, graded."""
    name = request.param
    return run_case(name, tmp_path_factory.mktemp(f"hermetic-{name}"), "api-only")


def test_the_scripted_session_ran_and_was_graded(api_only: Outcome) -> None:
    record = json.loads((api_only.run / "run.json").read_text())
    assert api_only.code == 0, (record.get("error"), api_only.err)
    assert record["status"] == "ok" and record["final_text"].startswith("All done"), record
    assert len(api_only.results) == 6, api_only.results


def test_the_fake_answers_in_the_agents_own_shell_and_is_graded_called(api_only: Outcome) -> None:
    first, created = api_only.results[0], api_only.results[1]
    assert "skillbench-fakes/gh" in first, first  # `command -v gh` in the agent's shell
    assert PR_URL in created, created
    calls = api_only.calls()
    assert calls[0]["argv"] == ["pr", "create", "--title", "Fix", "--body", "Body"]
    assert calls[0]["exit"] == 0 and not calls[0]["refused"]
    world = json.loads((api_only.run / "environment.json").read_text())
    assert world["shell_checked"] and world["path_failures"] == [], world
    assert api_only.verdicts()["called"] is True


def test_the_destructive_call_is_refused_and_fails_not_called(api_only: Outcome) -> None:
    assert "refused" in api_only.results[2], api_only.results[2]
    refused = [c for c in api_only.calls() if c["refused"]]
    assert [(c["command"], c["argv"][:2]) for c in refused] == [("gh", ["repo", "delete"])]
    record = json.loads((api_only.run / "run.json").read_text())
    assert (record["calls"], record["refusals"]) == (3, 1)
    verdicts = api_only.verdicts()
    assert verdicts["not_called"] is False and verdicts["no_refusals"] is False, verdicts
    assert api_only.graded == 1  # a required expectation failed


def test_the_real_binary_of_the_same_name_never_runs(api_only: Outcome) -> None:
    assert not api_only.marker.exists()
    assert not any("REAL-GH" in r for r in api_only.results)


def test_the_outside_listener_is_never_reached_under_api_only(api_only: Outcome) -> None:
    assert "REACHED" not in api_only.results[3], api_only.results[3]
    assert api_only.listener.accepted == 0
    world = json.loads((api_only.run / "environment.json").read_text())
    assert world["network"] == "api-only" and world["network_confined"]
    assert api_only.verdicts()["no_egress"] is True


def test_git_remotes_are_rewired_to_a_local_bare_repository(api_only: Outcome) -> None:
    assert "Bench Bot <bot@example.invalid>" in api_only.results[4], api_only.results[4]


def test_the_fake_mcp_server_is_loaded_by_the_agent_and_logged(api_only: Outcome) -> None:
    assert "LIN-1" in api_only.results[5], api_only.results[5]
    mcp = [c for c in api_only.calls() if c["command"] == "mcp:linear"]
    assert [c["argv"][0] for c in mcp] == ["create_issue"], mcp
    assert api_only.verdicts()["called"] is True


def test_the_key_stays_with_skillbench(api_only: Outcome) -> None:
    """The provider saw the real key (the forwarder's swap); no run file holds it."""
    _, key = REAL_KEYS[api_only.name]
    assert api_only.keys and all(key in k for k in api_only.keys), api_only.keys
    for path in api_only.run.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(errors="replace"), path


def test_usage_and_cost_flow_into_the_record_and_the_meter(api_only: Outcome) -> None:
    """The session's tokens reach run.json, timing.json and the cost block `run` prints; its
    dollars are the ones opencode states, "unknown" for a model the price table lacks."""
    record = json.loads((api_only.run / "run.json").read_text())
    usage = record["usage"]
    assert usage["output_tokens"] > 0 and usage["input_tokens"] > 0, usage
    timing = json.loads((api_only.run / "timing.json").read_text())
    assert timing["total_tokens"] == sum(usage.values()), (timing, usage)
    tokens = (
        f"tokens: input {usage['input_tokens']}, cache writes "
        f"{usage['cache_creation_input_tokens']}, cache reads "
        f"{usage['cache_read_input_tokens']}, output {usage['output_tokens']}"
    )
    assert tokens in api_only.err, api_only.err
    line = next(x for x in api_only.err.splitlines() if f"  {api_only.name} " in x and "[run]" in x)
    if api_only.name == "opencode":  # it states each step's dollars
        events = (api_only.run / "transcript.jsonl").read_text().splitlines()
        stated = sum(
            float(e["part"].get("cost") or 0)
            for e in map(json.loads, events)
            if e.get("type") == "step_finish"
        )
        assert stated > 0 and f"calls 1, hits 0, {format_dollars(stated)}" in line, line
    else:
        assert "calls 1, hits 0, unknown" in line, line


@pytest.mark.skipif(agent_missing("codex") is not None, reason=str(agent_missing("codex")))
def test_allow_reaches_the_listener_the_control(tmp_path: Path) -> None:
    """The control: under `allow` the same probe reaches the outside listener (so the
    api-only test can fail), the fakes still answer and refuse, the real-world warning stays."""
    outcome = run_case("codex", tmp_path, "allow")
    assert "acting on the real world" in outcome.err, outcome.err
    assert "REACHED" in outcome.results[3], outcome.results
    assert outcome.listener.accepted == 1
    assert not outcome.marker.exists()
    assert [c["refused"] for c in outcome.calls()] == [False, True, False]
    assert outcome.verdicts()["no_egress"] is False
