"""The rest of the world with the REAL `claude` CLI against the scripted fake API: a fake MCP
server from the block (`--mcp-config` + `--strict-mcp-config`, its call logged), git remotes
rewritten to a local bare repository with a fixed identity. With `answers` the session is
offered `AskUserQuestion` (the answers themselves: test_answers_real_cli.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mock_agentic_sse import AgenticMock
from real_cli import real_cli_skip_reason

from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.cli import main
from skillbench.hermetic.netns import namespace_problem

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
    pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem())),
]

URL = "https://github.com/o/r.git"
GIT = (
    f"git clone -q {URL} r && cd r && git commit -q --allow-empty -m first && "
    "git push -q origin HEAD:main && git log -1 --format='%an <%ae>'"
)
SCRIPT = [
    ("Bash", {"command": GIT, "description": "push"}),
    ("mcp__linear__create_issue", {"title": "Broken build"}),
]


def test_mcp_git_and_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(REPO_CLAUDE))
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    folder = tmp_path / "pr-helper"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: pr-helper\ndescription: Use for PRs.\n---\n# PR\n")
    checks = [
        {"type": "called", "target": "mcp:linear", "pattern": "^create_issue .*Broken build"},
        {"type": "no_refusals", "target": "calls"},
    ]
    case = {
        "id": "world",
        "prompt": "Push, file an issue, ask me which repo.",
        "expectations": [
            {"criterion": c["type"], "description": c["type"], "required": True, "check": c}
            for c in checks
        ],
        "environment": {
            "mcp": {
                "linear": {
                    "tools": [{"name": "create_issue", "responses": [{"result": {"id": "LIN-1"}}]}]
                }
            },
            "git": {
                "remotes": "local-bare",
                "repos": [URL],
                "name": "Bench Bot",
                "email": "bot@example.invalid",
            },
            "answers": [{"when": "which repo", "say": "public"}],
        },
    }
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    with AgenticMock(script=SCRIPT) as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-hermeticworld")
        argv = ["run", str(folder), "--configs", "with_skill", "--runs", "1", "--keep-workdirs"]
        argv += ["--backend", "claude-code", "--timeout", "90", "--no-cache"]
        code = main([a for a in argv if a != "--keep-workdirs"])
        requests = mock.requests
    err = capsys.readouterr().err
    assert code == 0, err
    offered = next(r.tools for r in requests if r.answered == "Bash")
    assert "mcp__linear__create_issue" in offered, offered
    assert "AskUserQuestion" in offered  # print mode offers it with a permission prompt tool
    assert not [t for t in offered if t.startswith("mcp__") and not t.startswith("mcp__linear__")]
    results = [r.tool_result for r in requests if r.saw_tool_result]
    assert "Bench Bot <bot@example.invalid>" in results[0], results
    assert "LIN-1" in results[1] and "[is_error]" not in results[1], results

    run = folder.parent / "pr-helper-workspace" / "runs" / "with_skill" / "world" / "run-1"
    calls = [json.loads(line) for line in (run / "calls.jsonl").read_text().splitlines()]
    assert [(c["command"], c["refused"]) for c in calls] == [("mcp:linear", False)]
    assert calls[0]["argv"] == ["create_issue", '{"title": "Broken build"}']
    assert main(["grade", str(folder), "--backend", "local"]) == 0
    grading = json.loads((run / "grading.json").read_text())
    assert [e["passed"] for e in grading["expectations"]] == [True, True], grading
    assert subprocess.run(["git", "--version"], capture_output=True).returncode == 0
