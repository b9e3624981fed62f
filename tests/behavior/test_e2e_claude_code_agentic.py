"""The REAL pinned `claude` CLI as the behavior executor, offline: `skillbench run --backend
claude-code` on a copy of data/skills/csv-cleanup against a loopback streaming mock whose model
writes the cleaned file with the `Write` tool, then ends its turn (tests/mock_agentic_sse.py).

Checks the run folder (the file the agent wrote, metrics.json counting the Write call, timing.json
with tokens from the stream, the transcript), that the flags `--permission-mode acceptEdits
--allowedTools ...` let the agent write as the current user (root in CI) while a tool outside the
list is refused, that the key reaches no file, and that a re-run is served by the call cache.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from mock_agentic_sse import FINAL_TEXT, AgenticMock
from real_cli import real_cli_skip_reason

from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.behavior.executors import ClaudeCodeExecutor, RunTask
from skillbench.cli import main
from skillbench.schemas import load

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]

REPO = Path(__file__).resolve().parents[2]
CASE = "dedupe-crm-export"
CLEAN_REL = "evals/files/crm_export.clean.csv"
CLEAN_CSV = "first_name,last_name,e_mail,postcode\nada,lovelace,ada@example.com,00501\n"


@pytest.fixture
def skill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of csv-cleanup with only the first case; cwd is tmp_path."""
    folder = tmp_path / "csv-cleanup"
    shutil.copytree(REPO / "data" / "skills" / "csv-cleanup", folder)
    evals_file = folder / "evals" / "evals.json"
    data = json.loads(evals_file.read_text(encoding="utf-8"))
    data["cases"] = [c for c in data["cases"] if c["id"] == CASE]
    evals_file.write_text(json.dumps(data, indent=2), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(REPO_CLAUDE))
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture
def mock(monkeypatch: pytest.MonkeyPatch) -> Iterator[AgenticMock]:
    with AgenticMock(rel_path=CLEAN_REL, content=CLEAN_CSV) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        yield server


def test_run_with_the_real_cli_writes_the_agents_file(
    skill: Path,
    mock: AgenticMock,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = f"sk-ant-api03-agentic{uuid.uuid4().hex}"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    argv = [
        "run",
        str(skill),
        "--configs",
        "with_skill",
        "--runs",
        "1",
        "--backend",
        "claude-code",
        "--timeout",
        "60",
        "--cache",
        str(tmp_path / "cache.sqlite"),
    ]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err

    # the model asked for Write, the CLI ran it (acceptEdits + --allowedTools, as this user),
    # the tool result came back and the model ended its turn
    answered = [r.answered for r in mock.requests]
    assert "Write" in answered and "final-text" in answered, mock.requests
    result = next(r for r in mock.requests if r.answered == "final-text").tool_result
    assert "created successfully" in result and "[is_error]" not in result, result
    offered = next(r for r in mock.requests if r.answered == "Write").tools
    assert "Skill" in offered

    run = skill.parent / "csv-cleanup-workspace" / "runs" / "with_skill" / CASE / "run-1"
    written = run / "outputs" / CLEAN_REL
    assert written.read_text(encoding="utf-8") == CLEAN_CSV
    assert not (run / "outputs" / "evals" / "files" / "crm_export.csv").exists()  # unchanged input

    metrics = json.loads((run / "outputs" / "metrics.json").read_text())
    assert metrics["tool_calls"] == {"Write": 1}
    assert metrics["total_tool_calls"] == 1
    assert metrics["errors_encountered"] == 0
    assert CLEAN_REL in metrics["files_created"]
    assert metrics["total_steps"] >= 2

    timing = json.loads((run / "timing.json").read_text())
    # tokens from the stream: input 300 + output 42 (tool turn) and 300 + 12 (final turn)
    assert timing["total_tokens"] >= 654
    assert timing["duration_ms"] > 0 and timing["total_duration_seconds"] >= 0

    events = [json.loads(line) for line in (run / "transcript.jsonl").read_text().splitlines()]
    init = next(e for e in events if e.get("type") == "system" and e.get("subtype") == "init")
    assert "csv-cleanup" in json.dumps(init.get("skills", [])), init.get("skills")
    assert any(e.get("type") == "result" for e in events)
    transcript = (run / "transcript.md").read_text(encoding="utf-8")
    assert "Write" in transcript and FINAL_TEXT in transcript

    for path in (run / "outputs" / "metrics.json", run / "timing.json"):
        assert load(path).dialect == "skill-creator"
    for path in tmp_path.rglob("*"):
        assert not (path.is_file() and key.encode() in path.read_bytes()), path
    assert key not in out + err

    # machine checks see the agent's file (local grading: no model)
    assert main(["grade", str(skill), "--backend", "local"]) in (0, 1)
    capsys.readouterr()
    grading = json.loads((run / "grading.json").read_text())
    verdicts = {e["text"]: e["passed"] for e in grading["expectations"]}
    clean = [passed for text, passed in verdicts.items() if "crm_export.clean.csv next" in text]
    assert clean == [True], verdicts

    # a re-run is served by the call cache: the CLI is not started again
    before = len(mock.requests)
    assert main(argv) == 0
    capsys.readouterr()
    assert len(mock.requests) == before


async def test_a_tool_outside_the_allowed_list_is_refused() -> None:
    """WebFetch is not offered (--tools); a model that calls it anyway is refused, and the
    refusal is counted as an error of the run."""
    call = ("WebFetch", {"url": "http://127.0.0.1:9/", "prompt": "summarise"})
    with AgenticMock(first_call=call, force=True) as server:
        executor = ClaudeCodeExecutor(
            claude_bin=REPO_CLAUDE,
            env={"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "dummy-offline"},
            timeout=60,
        )
        task = RunTask("c", "fetch it", "baseline", None, 1, None)
        result = await executor.execute(task)
        await executor.aclose()
        requests = server.requests
    assert result.status == "ok", result.error
    assert result.metrics.tool_calls == {"WebFetch": 1}
    assert result.metrics.errors_encountered == 1  # the refused call is a failed tool result
    back = next(r for r in requests if r.answered == "final-text").tool_result
    assert "no such tool available: webfetch" in back.lower() and "[is_error]" in back, back


async def test_the_model_is_offered_only_the_executor_tools() -> None:
    with AgenticMock(rel_path="result.txt", content="ok\n") as server:
        executor = ClaudeCodeExecutor(
            claude_bin=REPO_CLAUDE,
            env={"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "dummy-offline"},
            timeout=60,
        )
        result = await executor.execute(RunTask("c", "write it", "baseline", None, 1, None))
        await executor.aclose()
        requests = server.requests
    assert result.status == "ok" and "result.txt" in result.outputs, result.error
    offered = set(next(r for r in requests if r.answered == "Write").tools)
    assert offered <= {*executor.tools, "Skill"}, sorted(offered - set(executor.tools))
