"""ClaudeCodeJudge / ClaudeCodeTextModel against the fake `claude` (tests/fake_claude/claude).

The fake checks its flags, the installed skill and the HOME isolation itself and fails loudly
(exit 97), so every "error is None" assertion below also asserts the harness called it right.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends.base import (
    SkillEntry,
    TextRequest,
    TriggerJudge,
    TriggerRequest,
)
from skillbench.backends.claude_cli import session as claude_code
from skillbench.backends.claude_cli.session import (
    ClaudeCodeJudge,
    ClaudeCodeTextModel,
    resolve_claude_bin,
    skill_markdown,
)
from skillbench.errors import BackendError, InputError
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import EvalContext, TriggerOptions

FAKE = Path(__file__).resolve().parents[1] / "fake_claude" / "claude"
SECRET = "sk-ant-test-SECRET-0123456789"
TARGET = SkillEntry(
    name="pdf-tools",
    description="Use when merging, splitting or filling PDF files: forms, pages, text.",
    body="# PDF tools\n\nMerge with pypdf.\n",
)
CATALOG = (
    SkillEntry("csv-cleaner", "Use when cleaning CSV tables.", "# CSV\n"),
    SkillEntry("pdf-tools", "An installed older copy that must not compete.", "# old\n"),
)


@pytest.fixture
def record(tmp_path: Path) -> Path:
    folder = tmp_path / "calls"
    folder.mkdir()
    return folder


def judge(record: Path, scenario: str, **kwargs: Any) -> ClaudeCodeJudge:
    env = {
        "FAKE_CLAUDE_SCENARIO": scenario,
        "FAKE_CLAUDE_SKILL": TARGET.name,
        "FAKE_CLAUDE_OTHER": "csv-cleaner",
        "FAKE_CLAUDE_RECORD": str(record),
        "FAKE_CLAUDE_EXPECT_DESCRIPTION": TARGET.description,
        "FAKE_CLAUDE_EXPECT_BODY": "Merge with pypdf.",
        **kwargs.pop("env", {}),
    }
    return ClaudeCodeJudge(claude_bin=FAKE, env=env, timeout=kwargs.pop("timeout", 20), **kwargs)


def request(query: str = "merge these two PDFs", run_index: int = 0) -> TriggerRequest:
    return TriggerRequest(target=TARGET, catalog=CATALOG, query=query, run_index=run_index)


def calls(record: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(record.glob("call-*.json"))]


@pytest.fixture(autouse=True)
def _caller_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's environment: a key (the CLI gets a dummy), a user variable that must not pass, Claude Code session
    variables that must not leak (the fake fails when it sees them)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("SKILLBENCH_CANARY", "passes-through")
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv(claude_code.BIN_ENV, raising=False)


def test_is_a_trigger_judge(record: Path) -> None:
    assert isinstance(judge(record, "skill_first"), TriggerJudge)


async def test_skill_call_is_a_trigger_with_usage_and_cost(record: Path) -> None:
    outcome = await judge(record, "skill_first", stop_on_trigger=False).judge(request())
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.triggered is True
    assert outcome.fired == "pdf-tools"
    assert outcome.usage.input_tokens == 1500
    assert outcome.usage.output_tokens == 80
    assert outcome.usage.cache_read_input_tokens == 300
    assert outcome.usage.cost_usd == pytest.approx(0.0125)
    assert outcome.duration_seconds > 0
    assert outcome.detail["bad_lines"] == 1  # the fake's non-JSON debug line
    assert outcome.detail["num_turns"] == 3
    assert outcome.detail["model"] == "claude-fake-1"
    assert outcome.detail["skills_available"] == ["csv-cleaner", "pdf-tools"]
    assert outcome.detail["ended_early"] is False


SESSION_FIELDS = ["skills_invoked", "first_tool", "tool_calls", "tool_errors"]
AFTER_TURNS = ["exit_code", "session_id", "skills_available", "bad_lines", "model", "cli_version"]


async def test_an_outcome_records_its_session_fields_in_a_fixed_order(record: Path) -> None:
    """The detail a print run records (and caches), key for key and in order: the fields both
    CLI modes share around print mode's own (`session_detail`), then what its end adds."""
    turns = ["num_turns", "duration_ms", "result_subtype"]
    fired = await judge(record, "skill_first", keep_workdirs=True).judge(request())
    shared = [*SESSION_FIELDS, *turns, *AFTER_TURNS, "ended_early"]
    assert list(fired.detail) == [*shared, "workdir", "cost_known"]
    failed = await judge(record, "no_result").judge(request())
    assert failed.error is not None and list(failed.detail) == [*shared, "stderr_tail"]


def _gone(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(") ")[1].startswith("Z")


@pytest.mark.parametrize("detach", ["0", "1"], ids=["child-in-group", "detached-child"])
async def test_session_ends_once_the_target_fires_and_leaves_no_process(
    record: Path, detach: str
) -> None:
    """The fake fires the skill, then lingers a minute with a child process (in its group, or
    detached into a session of its own): the run must end at the Skill call, count the
    trigger, and leave no process behind."""
    j = judge(record, "skill_then_linger", timeout=30, env={"FAKE_CLAUDE_DETACH": detach})
    outcome = await j.judge(request())
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.triggered is True and outcome.fired == "pdf-tools"
    assert outcome.detail["ended_early"] is True
    assert outcome.duration_seconds < 15  # not the minute the fake would take
    assert outcome.usage.input_tokens == 700  # from the streamed message_start
    assert outcome.usage.cache_read_input_tokens == 300
    assert outcome.usage.output_tokens == 12  # the deciding message was read to its end
    assert outcome.detail["cost_known"] is False  # the fake's model has no price
    assert j.ended_early == 1
    child = int((record / "child.pid").read_text())
    for _ in range(50):
        if _gone(child):
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail(f"child process {child} survived the early stop")
    assert not j._procs


async def test_an_early_stop_leaves_the_child_to_asyncio_to_reap(
    record: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Killing the session must not reap the CLI behind asyncio's child watcher (it would log
    "Unknown child process ... returncode 255" on the user's terminal, once per run)."""
    caplog.set_level("WARNING", logger="asyncio")
    j = judge(record, "skill_then_linger", timeout=30, env={"FAKE_CLAUDE_DETACH": "0"})
    outcomes = await asyncio.gather(*(j.judge(request()) for _ in range(8)))
    assert all(o.triggered for o in outcomes)
    await asyncio.sleep(0.2)  # let the watcher threads report
    assert "Unknown child process" not in caplog.text


async def test_without_early_stop_the_session_runs_to_its_end(record: Path) -> None:
    """Control: the same scenario read to the end takes the fake's full minute (bounded here
    by the timeout, so it becomes an error) — the early stop is what makes it fast."""
    outcome = await judge(record, "skill_then_linger", timeout=3, stop_on_trigger=False).judge(
        request()
    )
    assert outcome.error is not None and outcome.error.startswith("timeout")


async def test_a_session_without_the_target_runs_to_its_result(record: Path) -> None:
    outcome = await judge(record, "other_skill").judge(request())
    assert outcome.error is None
    assert outcome.detail["ended_early"] is False
    assert outcome.detail["result_subtype"] == "success"
    assert outcome.usage.input_tokens == 1500  # the result event's totals


async def test_the_model_the_cli_reports_is_recorded(record: Path) -> None:
    j = judge(record, "skill_first", model="claude-haiku-x", env={})
    outcome = await j.judge(request())
    assert outcome.detail["model"] == "claude-haiku-x"
    assert outcome.detail["cli_version"] == "2.1.197-fake"
    assert j.versions()["claude_code_model"] == "claude-haiku-x"
    assert j.versions()["claude_code"] == "2.1.197-fake"


async def test_skill_after_a_first_bash_call_still_counts(record: Path) -> None:
    outcome = await judge(record, "bash_then_skill").judge(request())
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.detail["first_tool"] == "Bash"
    assert outcome.triggered is True
    assert outcome.fired == "pdf-tools"
    assert outcome.detail["tool_calls"] == {"Bash": 1, "Skill": 1}


async def test_read_of_the_skill_md_counts(record: Path) -> None:
    outcome = await judge(record, "read_skill_md").judge(request())
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.triggered is True
    assert outcome.detail["tool_calls"] == {"Read": 1}


async def test_another_skill_firing_is_recorded(record: Path) -> None:
    outcome = await judge(record, "other_skill").judge(request())
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.triggered is False
    assert outcome.fired == "csv-cleaner"


async def test_no_tool_is_a_clean_not_triggered(record: Path) -> None:
    outcome = await judge(record, "no_tool").judge(request())
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.triggered is False
    assert outcome.fired is None


async def test_timeout_is_an_error_and_kills_the_process_group(record: Path) -> None:
    outcome = await judge(record, "hang", timeout=1.0).judge(request())
    assert outcome.triggered is False
    assert outcome.error is not None and outcome.error.startswith("timeout")
    assert outcome.duration_seconds < 10
    child = int((record / "child.pid").read_text())
    for _ in range(50):  # the orphaned grandchild must be gone (or a zombie awaiting reaping)
        stat = Path(f"/proc/{child}/stat")
        if not stat.exists() or stat.read_text().split(") ")[1].startswith("Z"):
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail(f"child process {child} of the hung CLI survived the timeout")


async def test_authentication_failure_is_an_error(record: Path) -> None:
    outcome = await judge(record, "auth_failed").judge(request())
    assert outcome.triggered is False
    assert outcome.error is not None and outcome.error.startswith("authentication_failed")
    assert outcome.detail["exit_code"] == 1


async def test_is_error_result_is_an_error(record: Path) -> None:
    outcome = await judge(record, "is_error").judge(request())
    assert outcome.triggered is False
    assert outcome.error is not None
    assert "error_during_execution" in outcome.error


async def test_missing_result_event_is_an_error(record: Path) -> None:
    outcome = await judge(record, "no_result").judge(request())
    assert outcome.error is not None and outcome.error.startswith("no result event")


async def test_max_turns_after_a_skill_fired_is_a_valid_outcome(record: Path) -> None:
    fired = await judge(record, "max_turns_after_skill").judge(request())
    assert fired.error is None and fired.triggered is True
    wandered = await judge(record, "max_turns_no_skill").judge(request())
    assert wandered.error is not None and "error_max_turns" in wandered.error


async def test_flags_skill_install_and_isolation(record: Path, tmp_path: Path) -> None:
    j = judge(
        record,
        "skill_first",
        model="claude-sonnet-x",
        max_turns=6,
        env={"FAKE_CLAUDE_EXPECT_MODEL": "claude-sonnet-x"},
    )
    outcome = await j.judge(request("a query with 'quotes' and --dashes"))
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    (call,) = calls(record)
    argv = call["argv"]
    assert argv[0] == "-p" and call["prompt"] == "a query with 'quotes' and --dashes"
    assert "a query with 'quotes' and --dashes" not in argv
    assert argv[argv.index("--max-turns") + 1] == "6"
    assert call["has_api_key"] is True
    assert "SKILLBENCH_CANARY" not in call["env_keys"]  # an allowlist only (issue 38)
    assert "CLAUDECODE" not in call["env_keys"]
    assert call["skills"] == ["csv-cleaner", "pdf-tools"]  # the duplicate copy was skipped
    assert not Path(call["cwd"]).exists(), "the temporary project must be removed"


async def test_without_isolation_the_fake_sees_the_real_environment(record: Path) -> None:
    """Control for the isolation check: the fake's check can fail, and the failure is an error."""
    outcome = await judge(record, "skill_first", isolate_home=False).judge(request())
    assert outcome.triggered is False
    assert outcome.error is not None
    assert "fake claude:" in outcome.error


async def test_keep_workdirs_keeps_the_project(record: Path) -> None:
    j = judge(record, "skill_first", keep_workdirs=True)
    outcome = await j.judge(request())
    workdir = Path(outcome.detail["workdir"])
    try:
        skill_md = workdir / "project" / ".claude" / "skills" / "pdf-tools" / "SKILL.md"
        assert skill_md.read_text(encoding="utf-8") == skill_markdown(TARGET)
    finally:
        import shutil

        shutil.rmtree(workdir)


async def test_secrets_never_reach_outcome_or_identity(record: Path) -> None:
    j = judge(record, "is_error", env={"FAKE_CLAUDE_LEAK": "1"})
    outcome = await j.judge(request())
    assert outcome.error is not None and "[REDACTED]" in outcome.error
    blob = json.dumps(outcome.to_cache()) + json.dumps(j.identity()) + json.dumps(j.versions())
    assert SECRET not in blob
    assert "[REDACTED]" in outcome.detail["stderr_tail"]


def test_identity_and_versions(record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://user:pw@proxy.example:8443/api?k=1")
    j = judge(record, "skill_first", model="claude-x", extra_args=["--effort", "low"])
    ident = j.identity()
    assert ident["cli_version"] == "2.1.197-fake"
    assert ident["model"] == "claude-x"
    assert ident["base_url"] == "https://proxy.example:8443/api"
    assert ident["flags"][-2:] == ["--effort", "low"]
    assert "--include-partial-messages" in ident["flags"]
    assert j.versions() == {"claude_code": "2.1.197-fake"}
    assert "pw" not in json.dumps(ident)


async def test_concurrency_is_bounded(record: Path) -> None:
    j = judge(
        record,
        "skill_first",
        max_concurrency=2,
        stop_on_trigger=False,
        env={"FAKE_CLAUDE_SLEEP": "0.4"},
    )
    outcomes = await asyncio.gather(*(j.judge(request(run_index=i)) for i in range(5)))
    assert all(o.error is None and o.triggered for o in outcomes)
    spans = [(c["start"], c["end"]) for c in calls(record)]
    assert len(spans) == 5
    peak = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert peak == 2
    assert len({c["cwd"] for c in calls(record)}) == 5  # every run had its own project


async def test_aclose_removes_leftover_workdirs(record: Path) -> None:
    j = judge(record, "hang", timeout=30)
    task = asyncio.create_task(j.judge(request()))
    for _ in range(100):
        if (record / "child.pid").exists():
            break
        await asyncio.sleep(0.05)
    roots = list(j._workdirs)
    assert len(roots) == 1 and roots[0].exists()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await j.aclose()
    assert not roots[0].exists()


async def test_bad_skill_name_is_an_input_error(record: Path) -> None:
    bad = TriggerRequest(target=SkillEntry("../escape", "d"), catalog=(), query="q", run_index=0)
    with pytest.raises(InputError, match=r"target\.name"):
        await judge(record, "skill_first").judge(bad)


def test_binary_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(claude_code.BIN_ENV, str(FAKE))
    assert resolve_claude_bin() == FAKE
    assert resolve_claude_bin(FAKE) == FAKE
    monkeypatch.setenv(claude_code.BIN_ENV, str(tmp_path / "nope"))
    with pytest.raises(BackendError, match=claude_code.BIN_ENV):
        resolve_claude_bin()
    monkeypatch.delenv(claude_code.BIN_ENV)
    monkeypatch.setattr(claude_code, "REPO_CLAUDE", tmp_path / "missing")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BackendError, match="make claude"):
        resolve_claude_bin()


def test_the_cli_on_path_comes_before_the_checkouts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 32: the CLI the user runs (on PATH) is the one evaluated; the checkout's pinned
    copy only when there is none."""
    monkeypatch.delenv(claude_code.BIN_ENV, raising=False)
    pinned = tmp_path / "pinned" / "claude"
    pinned.parent.mkdir()
    shutil.copy(FAKE, pinned)
    users = tmp_path / "bin" / "claude"
    users.parent.mkdir()
    shutil.copy(FAKE, users)
    monkeypatch.setattr(claude_code, "REPO_CLAUDE", pinned)
    monkeypatch.setenv("PATH", str(users.parent))
    assert resolve_claude_bin() == users
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert resolve_claude_bin() == pinned


def test_skill_markdown_quotes_awkward_descriptions() -> None:
    import yaml

    entry = SkillEntry("a-b", 'Use when: "quoted" #hash\nand a second line', "body")
    text = skill_markdown(entry)
    front = text.split("---\n")[1]
    assert yaml.safe_load(front) == {"name": "a-b", "description": entry.description}
    assert text.endswith("\n\nbody\n")


async def test_text_model_complete(record: Path) -> None:
    model = ClaudeCodeTextModel(claude_bin=FAKE, env={"FAKE_CLAUDE_RECORD": str(record)})
    reply = await model.complete(TextRequest(prompt="improve this", system="be brief"))
    assert reply.text == "echo[be brief]: improve this"
    assert reply.usage.input_tokens == 40
    assert reply.usage.cost_usd == pytest.approx(0.002)
    (call,) = calls(record)
    assert "SKILLBENCH_CANARY" not in call["env_keys"]  # an allowlist only (issue 38)
    assert "CLAUDECODE" not in call["env_keys"]
    assert model.identity()["mode"] == "text"


async def test_text_model_failure_raises_backend_error() -> None:
    model = ClaudeCodeTextModel(claude_bin=FAKE, env={"FAKE_CLAUDE_SCENARIO": "text_error"})
    with pytest.raises(BackendError, match="is_error") as info:
        await model.complete(TextRequest(prompt="x"))
    assert SECRET not in str(info.value)


def test_settings_are_validated() -> None:
    with pytest.raises(InputError, match="timeout"):
        ClaudeCodeJudge(claude_bin=FAKE, timeout=0)
    with pytest.raises(InputError, match="max_concurrency"):
        ClaudeCodeJudge(claude_bin=FAKE, max_concurrency=0)
    assert os.access(FAKE, os.X_OK)


async def test_workers_reach_the_cli_sessions(record: Path) -> None:
    """A trigger eval's `workers` is the number of sessions (the judge's own default is 4)."""
    from skillbench.trigger.run import run_trigger_eval

    j = judge(record, "skill_first", stop_on_trigger=False, env={"FAKE_CLAUDE_SLEEP": "0.5"})
    assert j.max_concurrency == 4
    queries = [EvalQuery(f"merge pdf {i}", True) for i in range(6)]
    report = await run_trigger_eval(
        "pdf-tools",
        TARGET.description,
        queries,
        j,
        options=TriggerOptions(runs=1, workers=3),
        context=EvalContext(body=TARGET.body),
    )
    assert report.summary.passed == 6
    assert report.backend is not None
    assert report.backend.versions == {
        "claude_code": "2.1.197-fake",
        "claude_code_model": "claude-fake-1",  # as the CLI reported it in its init event
    }
    spans = [(c["start"], c["end"]) for c in calls(record)]
    peak = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert peak == 3


def test_workers_is_the_concurrency_cap() -> None:
    assert ClaudeCodeJudge(claude_bin=FAKE, workers=3).max_concurrency == 3
    assert ClaudeCodeJudge(claude_bin=FAKE, workers=3, max_concurrency=3).max_concurrency == 3
    with pytest.raises(InputError, match="workers"):
        ClaudeCodeJudge(claude_bin=FAKE, workers=3, max_concurrency=2)
    with pytest.raises(InputError, match="workers"):
        ClaudeCodeJudge(claude_bin=FAKE, workers=0)


async def test_a_cached_rerun_still_reports_the_cli_model(record: Path, tmp_path: Path) -> None:
    from skillbench.backends.cache import CachingJudge, CallCache

    with CallCache(tmp_path / "cache.sqlite") as cache:
        first = CachingJudge(judge(record, "skill_first", model="claude-haiku-x"), cache)
        await first.judge(request())
        again = CachingJudge(judge(record, "skill_first", model="claude-haiku-x"), cache)
        outcome = await again.judge(request())
    assert outcome.cached is True
    assert len(calls(record)) == 1  # the second judge never ran the CLI
    assert again.versions()["claude_code_model"] == "claude-haiku-x"


def test_the_report_header_names_the_model_the_cli_reported() -> None:
    from skillbench.schemas.trigger import BackendInfo
    from skillbench.trigger.verdict import model_of

    class Report:
        backend = BackendInfo(name="claude-code", versions={"claude_code_model": "claude-x-1"})

    assert model_of(Report()) == "claude-x-1 (reported by the CLI)"  # type: ignore[arg-type]
    Report.backend = BackendInfo(
        name="claude-code", model="haiku", versions={"claude_code_model": "claude-haiku-4-5"}
    )
    assert model_of(Report()) == "haiku (the CLI reported claude-haiku-4-5)"  # type: ignore[arg-type]
    Report.backend = BackendInfo(name="local", model="m")
    assert model_of(Report()) == "m"  # type: ignore[arg-type]


INJECTION = (
    '--settings={"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch x"}]}]}}'
)


@pytest.mark.parametrize(
    "query", [INJECTION, "- clean my csv", "-v is what flag prints the version?", "--help"]
)
async def test_a_query_is_never_an_argument(record: Path, query: str) -> None:
    """The query goes to the CLI's stdin, byte for byte: no argument holds it (an option
    parser cannot read it as an option), and a query beginning with `-` runs as text."""
    outcome = await judge(record, "skill_first").judge(request(query))
    assert outcome.error is None, outcome.detail.get("stderr_tail")
    assert outcome.triggered is True
    (call,) = calls(record)
    assert call["prompt"] == query
    assert all(query not in arg for arg in call["argv"])


async def test_the_text_model_prompt_is_never_an_argument(record: Path) -> None:
    model = ClaudeCodeTextModel(
        claude_bin=FAKE, env={"FAKE_CLAUDE_RECORD": str(record)}, timeout=20
    )
    response = await model.complete(TextRequest(prompt=INJECTION, system="sys"))
    assert response.text == f"echo[sys]: {INJECTION}"
    (call,) = calls(record)
    assert all(INJECTION not in arg for arg in call["argv"])


def test_identity_holds_the_request_settings_the_cli_gets(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A setting that changes what the model is asked (thinking budget, shell, betas) is part
    of the cache identity: the CLI's answers under one are not reused under another."""
    for name in ("MAX_THINKING_TOKENS", "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS", "SHELL"):
        monkeypatch.delenv(name, raising=False)
    # the fake CLI never reaches the network; conftest's loopback setting is left out here so
    # that the settings compared below are the test's own
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", raising=False)
    plain = judge(record, "skill_first").identity()
    thinking = judge(record, "skill_first", env={"MAX_THINKING_TOKENS": "1024"}).identity()
    assert thinking["settings"] == {"MAX_THINKING_TOKENS": "1024"}
    assert plain != thinking
    monkeypatch.setenv("SHELL", "/bin/zsh")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS", "1")
    seen = judge(record, "skill_first").identity()["settings"]
    assert seen == {"CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1", "SHELL": "/bin/zsh"}
