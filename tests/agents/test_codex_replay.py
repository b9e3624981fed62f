"""The codex backend: Codex CLI's first move classified from a streamed Responses reply (through
the openai SDK against the loopback fake), the listing read from the request, and, with the real
pinned CLI, the replayed request equal to the CLI's own."""

from __future__ import annotations

import asyncio
import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from agent_fake_api import FakeAgentAPI, Reply, cli_own_request

pytest.importorskip("openai")

from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.install import cli_skills
from skillbench.backends.codex.agent import CODEX, CodexAgent, capture_config
from skillbench.backends.codex.judge import CodexJudge
from skillbench.backends.codex.listing import codex_listing, parse_listing
from skillbench.backends.replay.move import ERROR, OTHER_SKILL, OTHER_TOOL, TARGET, TEXT
from skillbench.errors import BackendError

ROOT = "/tmp/skillbench-agent/project/.agents/skills"
SYSTEM = "/tmp/skillbench-agent/home/.codex/skills/.system"
TARGET_SKILL = SkillEntry("csv-cleanup", "Clean CSV files: duplicates, delimiters, encodings.")
OTHER = SkillEntry("sql-query-reviewer", "Review SQL queries for bugs and performance.")
LISTING = (
    "<skills_instructions>\n## Skills\nA skill is …\n### Skill roots\n"
    f"- `r0` = `{SYSTEM}`\n- `r1` = `{ROOT}`\n### Available skills\n"
    "- imagegen: Generate or edit raster images (file: r0/imagegen/SKILL.md)\n"
    f"- csv-cleanup: {TARGET_SKILL.description} (file: r1/csv-cleanup/SKILL.md)\n"
    f"- sql-query-reviewer: {OTHER.description} (file: r1/sql-query-reviewer/SKILL.md)\n"
    "</skills_instructions>"
)
BODY: dict[str, Any] = {
    "model": "gpt-6.1-sol",
    "input": [
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": LISTING}],
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "fix my csv"}],
        },
    ],
    "tool_choice": "auto",
    "parallel_tool_calls": False,
    "store": False,
    "reasoning": {"effort": "low"},
}


def move_for(reply: Reply) -> Any:
    """The first move `CODEX.first_move` reads from the fake answering `reply`."""
    skills = tuple(cli_skills(TARGET_SKILL, (OTHER,)))

    async def run() -> Any:
        with FakeAgentAPI(answer=lambda kind, body: reply) as fake:
            client = CODEX.client(
                api_key="dummy", base_url=fake.url + "/v1", timeout=30, http_client=None
            )
            try:
                return await CODEX.first_move(
                    client,
                    "/v1/responses",
                    {"originator": "codex_exec"},
                    BODY,
                    target="csv-cleanup",
                    skills=skills,
                    stop_when_decided=True,
                )
            finally:
                await client.close()

    return asyncio.run(run())


def exec_cell(command: str) -> Reply:
    """The responses-lite `exec` custom tool call running `command` (as gpt-6.1-sol calls it)."""
    source = f"const r = await tools.exec_command({{cmd: {json.dumps(command)}}});\ntext(r);"
    return Reply("call", "exec", source, custom=True, namespace="functions")


@pytest.mark.parametrize(
    ("reply", "kind", "fired", "tool"),
    [
        (exec_cell(f"cat {ROOT}/csv-cleanup/SKILL.md"), TARGET, "csv-cleanup", "functions.exec"),
        (
            Reply(
                "call",
                "exec_command",
                json.dumps({"cmd": f"sed -n 1,200p {ROOT}/csv-cleanup/SKILL.md"}),
            ),
            TARGET,
            "csv-cleanup",
            "exec_command",
        ),
        (  # a relative path from the project
            exec_cell("cat .agents/skills/csv-cleanup/SKILL.md"),
            TARGET,
            "csv-cleanup",
            "functions.exec",
        ),
        (
            exec_cell(f"cat {ROOT}/sql-query-reviewer/SKILL.md"),
            OTHER_SKILL,
            "sql-query-reviewer",
            "functions.exec",
        ),
        (exec_cell(f"cat {SYSTEM}/imagegen/SKILL.md"), OTHER_SKILL, "imagegen", "functions.exec"),
        (exec_cell("ls -la && cat bank.csv"), OTHER_TOOL, None, "functions.exec"),
        (  # a preamble message first decides nothing; the call after it does
            Reply(
                "call",
                "exec",
                f'await tools.exec_command({{cmd: "cat {ROOT}/csv-cleanup/SKILL.md"}})',
                custom=True,
                preamble="Let me open the csv-cleanup skill.",
            ),
            TARGET,
            "csv-cleanup",
            "exec",
        ),
        (Reply("text", text="Use pandas drop_duplicates."), TEXT, None, None),
    ],
)
def test_first_move_is_classified(
    reply: Reply, kind: str, fired: str | None, tool: str | None
) -> None:
    move = move_for(reply)
    assert (move.kind, move.fired) == (kind, fired)
    if tool is not None:
        assert move.tool == tool


def test_broken_answers_are_errors_with_their_kind() -> None:
    incomplete = move_for(Reply("incomplete"))
    assert (incomplete.kind, incomplete.error_kind) == (ERROR, "max_tokens")
    failed = move_for(Reply("failed"))
    assert (failed.kind, failed.error_kind) == (ERROR, "failed")


def test_usage_separates_cached_input() -> None:
    move = move_for(exec_cell(f"cat {ROOT}/csv-cleanup/SKILL.md"))
    assert move.usage.input_tokens == 200
    assert move.usage.cache_read_input_tokens == 1000
    assert move.usage.output_tokens == 42
    assert move.stop_reason == "completed"


def test_http_failures_are_classified_for_the_limiter() -> None:
    import openai

    with pytest.raises(openai.APIStatusError) as caught:
        move_for(Reply("http_error", status=503))
    failure = CODEX.classify_failure(caught.value)
    assert failure is not None and failure.retryable
    with pytest.raises(openai.APIStatusError) as caught:
        move_for(Reply("http_error", status=400))
    failure = CODEX.classify_failure(caught.value)
    assert failure is not None and not failure.retryable


def test_listing_shows_shortened_descriptions_and_expands_roots() -> None:
    short = LISTING.replace(TARGET_SKILL.description, "Clean CSV files")
    body = {**BODY, "input": [{"role": "developer", "content": [{"text": short}]}]}
    listing = codex_listing(body)
    assert listing.visibility("csv-cleanup", TARGET_SKILL.description) == "shortened"
    assert listing.visibility("sql-query-reviewer", OTHER.description) == "full"
    assert listing.visibility("pdf-tools", "x") == "absent"
    files = {s.name: s.file for s in parse_listing(body)}
    assert files["imagegen"] == f"{SYSTEM}/imagegen/SKILL.md"


def test_normalising_drops_session_fields_and_fixes_ids() -> None:
    captured = {
        **BODY,
        "input": [{**BODY["input"][0], "id": "msg_01a217b2-0137-7942-bb88-c2c5be03781d"}],
        "prompt_cache_key": "01a217b2-00eb-7001-b532-533bb8176398",
        "client_metadata": {"x-codex-turn-metadata": '{"installation_id": "3452e66d"}'},
        "stream": True,
    }
    kept = CODEX.normalise(captured, "/tmp/whatever")
    assert "client_metadata" not in kept and "stream" not in kept
    assert kept["input"][0]["id"] == "msg_skillbench_0"
    assert kept["prompt_cache_key"].startswith("skillbench-")
    again = CODEX.normalise({**captured, "prompt_cache_key": "another-session"}, "/tmp/whatever")
    assert again == kept


def test_the_date_is_swapped_for_the_day() -> None:
    text = "<environment_context>\n  <current_date>2026-11-26</current_date>\n"
    assert CODEX.dated(text)
    assert "<current_date>2027-01-04</current_date>" in CODEX.swap_day(
        text, datetime.date(2027, 1, 4)
    )


def test_settings_that_change_the_request_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLBENCH_CODEX_REASONING_EFFORT", "high")
    settings = CodexAgent().settings()
    assert settings["reasoning_effort"] == "high" and settings["sandbox"] == "read-only"
    call = CodexAgent().capture_call(Path("/bin/codex"), "gpt-6.1-sol", "q")
    assert 'model_reasoning_effort="high"' in call.argv and call.argv[-1] == "-"
    assert call.stdin == b"q"
    monkeypatch.setenv("SKILLBENCH_CODEX_SANDBOX", "none")
    with pytest.raises(BackendError, match="SKILLBENCH_CODEX_SANDBOX"):
        CodexAgent().settings()


def test_capture_config_turns_websockets_off() -> None:
    config = capture_config("http://127.0.0.1:9999")
    assert "supports_websockets = false" in config
    assert 'base_url = "http://127.0.0.1:9999/v1"' in config


# -- with the real pinned CLI -------------------------------------------------------------------


def real_codex() -> Path:
    try:
        return CODEX.locate()
    except BackendError as exc:
        pytest.skip(str(exc))


def test_replayed_request_is_the_clis_own(tmp_path: Path, agent_templates: Path) -> None:
    """Capture (sentinel) → replay through the openai SDK with the query: what reaches the API
    (body and kept headers) equals what the CLI itself sends for that query, normalised; a read
    of the target's SKILL.md is a trigger; the built-in `.system` skills stay listed."""
    binary = real_codex()
    query = "my bank export has duplicate rows and semicolons, fix it"
    reply = exec_cell(f"cat {ROOT}/csv-cleanup/SKILL.md")
    with FakeAgentAPI(answer=lambda kind, body: reply) as fake:
        judge = CodexJudge(
            api_key="dummy", base_url=fake.url + "/v1", template_dir=agent_templates, binary=binary
        )
        outcome = asyncio.run(judge.judge(TriggerRequest(TARGET_SKILL, (OTHER,), query, 0)))
        replayed = [r for r in fake.requests if CODEX.is_agent_request(r.path, r.body)]
    assert outcome.error is None, outcome.error
    assert outcome.triggered and outcome.fired == "csv-cleanup"
    assert len(replayed) == 1
    template = next(iter(judge.templates_used.values()))
    shown = template.view()
    assert shown.visibility("csv-cleanup", TARGET_SKILL.description) == "full"
    assert {"imagegen", "openai-docs", "skill-creator", "skill-installer"} <= set(shown.shown)
    for name, value in template.headers.items():
        assert replayed[0].headers.get(name) == value
    assert "unverified" in (judge.harness_info().note or "")  # gpt-6.1-sol: responses-lite
    own_path, own = cli_own_request(CODEX, binary, (TARGET_SKILL, OTHER), query, tmp_path / "own")
    sent = json.loads(json.dumps(replayed[0].body))
    assert replayed[0].path == own_path
    sent.pop("stream")
    # the cache key is a digest of the template (one per skill set), the CLI's one per session
    assert sent.pop("prompt_cache_key").startswith("skillbench-")
    own.pop("prompt_cache_key")
    assert sent == own
