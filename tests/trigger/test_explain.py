"""`skillbench explain`: each cached run's first move and how the target was listed, no call.

A trigger eval (anthropic backend, minimal harness) runs against a loopback fake of the
Messages API whose reply depends on the query (the target, another skill, another tool, a text
answer); `explain` then reads those runs from the call cache, the fake counting that it made no
request. No network: every request goes to 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mock_anthropic_sse import QuietHandler, json_message, user_query

from skillbench.backends.base import SkillEntry, TriggerOutcome
from skillbench.cli import main
from skillbench.trigger.explain import first_move

KEY = "sk-ant-api03-explain-test-0123456789abcdef0123456789"
TARGET = ("csv-cleanup", "Repairs messy CSV exports. Use when a csv file will not import.")
OTHER = ("regex-builder", "Builds regular expressions from examples. Use when a pattern is needed.")
Q_TARGET = "my csv export will not import"
Q_OTHER = "build a pattern that matches dates"
Q_TOOL = "list the files in this folder"
Q_TEXT = "what is the capital of France"
REPLIES: dict[str, list[dict[str, Any]]] = {
    Q_TARGET: [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": TARGET[0]}}],
    Q_OTHER: [{"type": "tool_use", "id": "t2", "name": "Skill", "input": {"skill": OTHER[0]}}],
    Q_TOOL: [{"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "ls -la"}}],
}
TEXT = f"Paris. (the key {KEY} must never be shown)"


class Handler(QuietHandler):
    server: FakeApi

    def do_POST(self) -> None:
        body = self._read_body()
        self.server.requests += 1
        reply = json_message(str(body.get("model")), TEXT)
        content = REPLIES.get(user_query(body))
        if content is not None:
            reply["content"], reply["stop_reason"] = content, "tool_use"
        self._send(200, json.dumps(reply).encode(), "application/json")


class FakeApi(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests = 0


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeApi]:
    server = FakeApi()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def write_skill(folder: Path, name: str, description: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n# {name}\n",
        encoding="utf-8",
    )
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_skill(tmp_path / "skills" / TARGET[0], *TARGET)
    write_skill(tmp_path / "catalog" / OTHER[0], *OTHER)
    queries = [
        {"query": Q_TARGET, "should_trigger": True},
        {"query": Q_OTHER, "should_trigger": True},
        {"query": Q_TOOL, "should_trigger": True},
        {"query": Q_TEXT, "should_trigger": False},
    ]
    (tmp_path / "evals.json").write_text(json.dumps(queries), encoding="utf-8")
    return tmp_path


def common(root: Path) -> list[str]:
    return [
        str(root / "skills" / TARGET[0]),
        "--evals",
        str(root / "evals.json"),
        "--backend",
        "anthropic",
        "--harness",
        "minimal",
        "--catalog",
        str(root / "catalog"),
        "--runs",
        "2",
    ]


def explain(root: Path, query: str, *extra: str) -> list[str]:
    return ["explain", *common(root), "--query", query, *extra]


def test_explain_shows_what_the_model_did_instead_without_a_call(
    project: Path, api: FakeApi, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trigger", *common(project)]) in (0, 1)
    made = api.requests
    assert made == 8
    capsys.readouterr()

    assert main(explain(project, Q_OTHER)) == 0
    out = capsys.readouterr().out
    assert f"target '{TARGET[0]}' listed with its full description" in out
    assert "0/2 cached run(s) as expected" in out
    assert out.count(f"called another skill, '{OTHER[0]}' (listed: full)") == 2
    assert OTHER[1] in out  # the other skill's description

    assert main(explain(project, Q_TOOL)) == 0
    out = capsys.readouterr().out
    assert out.count('called another tool first, Bash with {"command": "ls -la"}') == 2

    assert main(explain(project, Q_TEXT, "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["move"] for r in data["runs"]] == ["text", "text"]
    assert data["runs"][0]["text"].startswith("Paris.") and KEY not in json.dumps(data)

    assert main(explain(project, Q_TARGET)) == 0
    out = capsys.readouterr().out
    assert "2/2 cached run(s) as expected" in out and "called the target skill" in out
    assert api.requests == made  # every answer came from the cache


def test_a_query_not_cached_exits_2_naming_the_command(
    project: Path, api: FakeApi, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(explain(project, Q_TOOL)) == 2
    err = capsys.readouterr().err
    assert "no run of this query is in the call cache" in err
    assert f"skillbench trigger {project / 'skills' / TARGET[0]} --evals" in err
    assert "--harness minimal" in err and "--runs 2" in err
    assert api.requests == 0


def test_an_unknown_query_exits_2_naming_the_option(
    project: Path, api: FakeApi, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(explain(project, "list the files in this directory")) == 2
    err = capsys.readouterr().err
    assert "--query" in err and repr(Q_TOOL) in err  # the closest query is suggested
    assert api.requests == 0


def test_a_replay_run_names_the_skill_listed_by_name_only() -> None:
    outcome = TriggerOutcome(
        triggered=False,
        fired="sql-query-reviewer",
        detail={"harness": "replay", "outcome": "other-skill"},
    )
    catalog = (SkillEntry("sql-query-reviewer", "Reviews SQL queries.", ""),)
    move = first_move(outcome, 0, catalog, {"sql-query-reviewer": None, "pdf": "PDF tools."})
    assert move.move == "other-skill" and move.skill_listed == "name-only"
    assert move.skill_description == "Reviews SQL queries."
    tool = TriggerOutcome(
        triggered=False,
        undecided="Read",
        detail={"outcome": "other-tool", "tool_input": {"file_path": "/tmp/x"}},
    )
    assert first_move(tool, 1, catalog, None).tool_input == {"file_path": "/tmp/x"}


def test_the_report_explains_each_failing_query_only(project: Path, api: FakeApi) -> None:
    from skillbench.cli import build_parser
    from skillbench.cli.trigger_cmd import trigger_options
    from skillbench.schemas.trigger import TriggerReport
    from skillbench.trigger.explain import explain_failures_sync
    from skillbench.trigger.frames import why_failed_frame

    out = project / "report.json"
    assert main(["trigger", *common(project), "--out", str(out)]) == 1
    report = TriggerReport.model_validate_json(out.read_text())
    made = api.requests
    args = build_parser().parse_args(["trigger", *common(project)])
    why = explain_failures_sync(args.skill_dir, args.evals, report, trigger_options(args))
    frame = why_failed_frame(why)
    assert sorted(set(frame["query"])) == sorted([Q_OTHER, Q_TOOL])  # the two failing queries
    assert sorted(frame["first_move"]) == ["other-skill"] * 2 + ["other-tool"] * 2
    assert set(frame["target_listed"]) == {"full"}
    tool_rows = frame[frame["first_move"] == "other-tool"]
    assert set(tool_rows["called"]) == {"Bash"} and set(tool_rows["detail"]) == {
        '{"command": "ls -la"}'
    }
    assert api.requests == made
