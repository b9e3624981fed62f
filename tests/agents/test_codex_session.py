"""The codex backend's session harness (`--harness session`): the REAL pinned `codex exec` per
query-run against the loopback Responses fake (`agent_fake_api`), offline, each session ended at
its first move and classified from the CLI's own `--json` events; under strace, every connection
of every CLI process goes to 127.0.0.1. One capture and six short sessions, ~10 s."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from agent_fake_api import FakeAgentAPI, Reply

from skillbench.backends import registry
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.codex.session import CodexSessionJudge, as_response_event
from skillbench.backends.codex.spec import CODEX_SPEC
from skillbench.backends.spec import register_backend, unregister_backend
from skillbench.cli import main
from skillbench.errors import BackendError

TARGET = SkillEntry("csv-cleanup", "Clean CSV files: duplicates, delimiters.", "# CSV\n")
CATALOG = (SkillEntry("sql-review", "Review SQL queries for slow joins.", "# SQL\n"),)
_ADDRESS = re.compile(r'inet_(?:addr|pton)\((?:AF_INET6, )?"([^"]+)"')


def cat(path: str) -> Reply:
    return Reply("call", "exec", f'await tools.exec_command({{cmd: "{path}"}})', custom=True)


def answer(kind: str, body: dict[str, Any]) -> Reply:
    text = json.dumps(body)
    if "please fire" in text:
        return cat("cat .agents/skills/csv-cleanup/SKILL.md")
    if "an other skill" in text:
        return cat("cat .agents/skills/sql-review/SKILL.md")
    if "look first" in text:
        return cat("ls -la")
    if "broken one" in text:
        return Reply("failed")
    return Reply("text", text="Just an answer.")


def _follow_up(body: dict[str, Any]) -> bool:
    """A request carrying a tool's output: the turn after a first move."""
    items = body.get("input") or []
    return any(
        str(i.get("type", "")).endswith("_call_output") for i in items if isinstance(i, dict)
    )


def test_session_runs_the_real_cli_offline_and_classifies_its_first_move(
    tmp_path: Path, agent_templates: Path
) -> None:
    try:
        codex = CODEX.locate()
    except BackendError as exc:
        pytest.skip(str(exc))
    binary: Path = codex
    trace = tmp_path / "trace"
    if shutil.which("strace"):  # every process of every CLI run, traced for its connections
        binary = tmp_path / "codex-traced"
        binary.write_text(
            f'#!/bin/sh\nexec strace -f -qq -e trace=connect -o "{trace}" -ff "{codex}" "$@"\n'
        )
        binary.chmod(0o755)
    register_backend(CODEX_SPEC)
    try:
        with FakeAgentAPI(answer) as fake:
            judge = registry.get_judge(
                "codex",
                harness="session",
                api_key="dummy-offline",
                base_url=fake.url + "/v1",
                binary=binary,
                template_dir=agent_templates,
                max_retries=0,
                timeout=90,
            )
            assert isinstance(judge, CodexSessionJudge)
            queries = ["please fire", "an other skill", "look first", "just answer", "broken one"]

            async def go() -> list[Any]:
                await judge.template(TARGET, CATALOG)  # the capture (listing, cache key) first
                return list(
                    await asyncio.gather(
                        *(judge.judge(TriggerRequest(TARGET, CATALOG, q, 0)) for q in queries)
                    )
                )

            captured = len(fake.requests)
            outcomes = asyncio.run(go())
            sessions = fake.requests[captured:]
    finally:
        unregister_backend("codex")
    moves = {
        q: (o.detail.get("outcome"), o.fired, o.undecided)
        for q, o in zip(queries, outcomes, strict=True)
    }
    assert moves == {
        "please fire": ("target", "csv-cleanup", None),
        "an other skill": ("other-skill", "sql-review", None),
        "look first": ("other-tool", None, "command_execution"),
        "just answer": ("text", None, None),
        "broken one": ("error", None, None),
    }
    assert outcomes[0].triggered and not any(o.triggered for o in outcomes[1:])
    assert outcomes[4].error and outcomes[4].detail["error_kind"] == "failed"
    assert all(o.detail["harness"] == "codex session" for o in outcomes)
    assert outcomes[3].usage.input_tokens > 0  # the CLI's own usage of the turn
    # each session ended at its first move: one first request each, the CLI's own (not a
    # replay). A command's session may post the command's output before its kill lands (the
    # CLI runs `cat` in microseconds); such a follow-up never decides the outcome.
    firsts = [r for r in sessions if not _follow_up(r.body)]
    assert len(firsts) == len(queries)
    assert len(sessions) - len(firsts) <= 3  # at most one follow-up per command query
    assert all(r.path.startswith("/v1/responses") for r in sessions)
    assert judge.harness_info().name == "codex session"
    assert judge.request_fields(TriggerRequest(TARGET, CATALOG, "q", 0))["harness"] == "session"
    if shutil.which("strace"):
        addresses = {a for f in tmp_path.glob("trace*") for a in _ADDRESS.findall(f.read_text())}
        assert addresses and addresses <= {"127.0.0.1"}, addresses


def test_cli_events_become_the_folds_events() -> None:
    started = {
        "type": "item.started",
        "item": {"id": "item_0", "type": "command_execution", "command": "cat a/SKILL.md"},
    }
    seen = as_response_event(started)
    assert seen is not None and seen["item"]["type"] == "custom_tool_call"
    assert "a/SKILL.md" in seen["item"]["input"] and "item_0" not in seen["item"]["input"]
    message = {"type": "item.completed", "item": {"type": "agent_message", "text": "Hi"}}
    assert as_response_event(message)["item"]["content"][0]["text"] == "Hi"  # type: ignore[index]
    assert as_response_event({"type": "turn.failed"}) == {"type": "error"}
    assert as_response_event({"type": "thread.started"}) is None


def test_harness_session_is_codex_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: csv-cleanup\ndescription: CSV.\n---\n")
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "fix my csv", "should_trigger": True}]))
    register_backend(CODEX_SPEC)
    try:
        argv = ["trigger", str(skill), "--evals", str(evals), "--agent", "codex"]
        assert main([*argv, "--harness", "minimal"]) == 2  # the anthropic backend's
        assert "replay, session" in capsys.readouterr().err
        assert main([*argv, "--harness", "session", "--cache-before-query"]) == 2
        assert "--cache-before-query" in capsys.readouterr().err
    finally:
        unregister_backend("codex")


CANARIES = {
    "GITHUB_TOKEN": "ghp_CANARYgithub0123456789abcdef",
    "AWS_SECRET_ACCESS_KEY": "CANARYaws/0123456789+abcdef",
    "ANTHROPIC_API_KEY": "sk-ant-api03-CANARYanthropic0123456789",
    "OPENAI_API_KEY": "sk-proj-CANARYopenai0123456789abcdef",
}


def test_a_session_holds_no_secret_and_its_key_reaches_the_api_through_the_forwarder(
    tmp_path: Path, agent_templates: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38: the caller's secrets (a GitHub token, an AWS secret, other providers' keys)
    never reach the CLI's environment, nor does the OpenAI key itself: the session holds a dummy
    and the fake API receives the real key, added by the loopback key forwarder."""
    try:
        codex = CODEX.locate()
    except BackendError as exc:
        pytest.skip(str(exc))
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    dumps = tmp_path / "env"
    dumps.mkdir()
    wrapper = tmp_path / "codex-env"  # writes the environment each CLI start gets
    wrapper.write_text(f'#!/bin/sh\nenv > "{dumps}/$$"\nexec "{codex}" "$@"\n')
    wrapper.chmod(0o755)
    register_backend(CODEX_SPEC)
    try:
        with FakeAgentAPI(answer) as fake:
            judge = registry.get_judge(
                "codex",
                harness="session",
                base_url=fake.url + "/v1",
                binary=wrapper,
                template_dir=agent_templates,
                max_retries=0,
                timeout=90,
            )
            assert isinstance(judge, CodexSessionJudge)

            async def go() -> Any:
                await judge.template(TARGET, CATALOG)
                outcome = await judge.judge(TriggerRequest(TARGET, CATALOG, "please fire", 0))
                await judge.aclose()
                return outcome

            captured = len(fake.requests)
            outcome = asyncio.run(go())
            session_keys = fake.keys[captured:]
    finally:
        unregister_backend("codex")
    assert outcome.triggered, outcome.error
    # every request of the session reached the API with the real key (one, or more when the CLI
    # retries a slow stream on a loaded machine), never with the session's dummy
    assert session_keys and set(session_keys) == {f"Bearer {CANARIES['OPENAI_API_KEY']}"}
    environments = [path.read_text() for path in dumps.iterdir()]
    assert environments
    for text in environments:
        for name, value in CANARIES.items():
            assert value not in text, f"{name} reached the CLI"
    session = [
        t
        for t in environments
        if "SKILLBENCH_CODEX_CAPTURE_KEY=sk-ant-api03-skillbench-dummy-" in t
    ]
    assert session, "the session got a dummy key"
