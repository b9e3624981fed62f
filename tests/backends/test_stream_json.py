"""Tests of the stream-json parser (skillbench.backends.claude_cli.stream_json)."""

from __future__ import annotations

import json
from typing import Any

from skillbench.backends.claude_cli.stream_json import (
    StreamParser,
    ToolUse,
    invoked_skill,
    metrics,
    parse_stream,
    skill_invocations,
)


def line(event: dict[str, Any]) -> str:
    return json.dumps(event) + "\n"


def stream(inner: dict[str, Any], parent: str | None = None) -> str:
    return line({"type": "stream_event", "event": inner, "parent_tool_use_id": parent})


def tool_blocks(
    tool_id: str, name: str, raw_input: str, parent: str | None = None, index: int = 0
) -> list[str]:
    """A streamed tool_use content block with its input split into two json deltas."""
    half = len(raw_input) // 2
    return [
        stream(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}},
            },
            parent,
        ),
        stream(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": raw_input[:half]},
            },
            parent,
        ),
        stream(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": raw_input[half:]},
            },
            parent,
        ),
        stream({"type": "content_block_stop", "index": index}, parent),
    ]


def assistant_tool(tool_id: str, name: str, tool_input: dict[str, Any]) -> str:
    return line(
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
            },
        }
    )


INIT = line(
    {
        "type": "system",
        "subtype": "init",
        "session_id": "s-1",
        "model": "claude-test",
        "tools": ["Bash", "Read", "Skill"],
        "skills": ["pdf-tools", "csv-cleaner"],
        "cwd": "/tmp/p",
        "future_key": {"kept": True},
    }
)
RESULT = line(
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 4321,
        "num_turns": 3,
        "result": "done",
        "total_cost_usd": 0.031,
        "usage": {
            "input_tokens": 900,
            "output_tokens": 70,
            "cache_read_input_tokens": 11,
            "cache_creation_input_tokens": 5,
        },
    }
)


def test_init_and_result_fields_are_parsed() -> None:
    session = parse_stream([INIT, RESULT])
    assert session.init is not None
    assert session.init.session_id == "s-1"
    assert session.init.skills == ["pdf-tools", "csv-cleaner"]
    assert session.init.tools == ["Bash", "Read", "Skill"]
    assert session.init.model_extra == {"future_key": {"kept": True}}
    assert session.result is not None
    assert session.result.total_cost_usd == 0.031
    assert session.result.usage.input_tokens == 900
    assert session.result.usage.cache_read_input_tokens == 11
    assert session.result.duration_ms == 4321
    assert session.result.num_turns == 3
    assert session.event_counts == {"system/init": 1, "result": 1}


def test_blank_and_non_json_lines_are_counted_not_fatal() -> None:
    lines: list[str | bytes] = [
        INIT,
        "\n",
        "   \n",
        "Warning: x\n",
        "[1, 2]\n",
        b'{"type": "result"}\n',
    ]
    session = parse_stream(lines)
    assert session.lines == 6
    assert session.blank_lines == 2
    assert session.bad_lines == 2
    assert session.result is not None and session.result.is_error is False


def test_assistant_and_stream_copies_of_a_tool_use_merge_by_id() -> None:
    raw = json.dumps({"skill": "pdf-tools"})
    lines = [
        INIT,
        stream({"type": "message_start", "message": {"id": "m1"}}),
        *tool_blocks("t1", "Skill", raw)[:3],
        assistant_tool("t1", "Skill", {"skill": "pdf-tools"}),
        tool_blocks("t1", "Skill", raw)[3],
        RESULT,
    ]
    session = parse_stream(lines)
    assert len(session.tool_uses) == 1
    tool = session.tool_uses[0]
    assert tool.input == {"skill": "pdf-tools"}
    assert tool.from_assistant and tool.from_stream


def test_tool_input_is_reassembled_from_deltas_alone() -> None:
    raw = json.dumps({"file_path": "/p/.claude/skills/pdf-tools/SKILL.md"})
    session = parse_stream([INIT, *tool_blocks("t9", "Read", raw)])
    assert session.result is None
    assert [t.name for t in session.tool_uses] == ["Read"]
    assert session.tool_uses[0].input["file_path"].endswith("SKILL.md")
    assert not session.tool_uses[0].from_assistant
    assert skill_invocations(session) == ["pdf-tools"]


def test_subagent_blocks_with_the_same_index_do_not_mix() -> None:
    main = tool_blocks("a", "Bash", json.dumps({"command": "ls"}), parent=None)
    sub = tool_blocks("b", "Skill", json.dumps({"skill": "csv-cleaner"}), parent="task-1")
    interleaved = [main[0], sub[0], main[1], sub[1], main[2], sub[2], main[3], sub[3]]
    session = parse_stream(interleaved)
    by_id = {t.id: t for t in session.tool_uses}
    assert by_id["a"].input == {"command": "ls"}
    assert by_id["b"].input == {"skill": "csv-cleaner"}
    assert by_id["b"].parent_tool_use_id == "task-1"


def test_malformed_streamed_input_is_counted_and_the_call_kept() -> None:
    blocks = tool_blocks("x", "Skill", '{"skill": "pdf-')
    session = parse_stream(blocks)
    assert session.bad_tool_inputs == 1
    assert session.tool_uses[0].name == "Skill"
    assert skill_invocations(session) == []


def test_skill_invocations_anywhere_in_order_without_repeats() -> None:
    lines = [
        INIT,
        assistant_tool("1", "Bash", {"command": "cat README.md"}),
        assistant_tool("2", "Read", {"file_path": "/tmp/p/notes.md"}),
        assistant_tool("3", "Skill", {"skill": "csv-cleaner"}),
        assistant_tool("4", "Skill", {"command": "/pdf-tools merge a.pdf b.pdf"}),
        assistant_tool("5", "Read", {"file_path": "C:\\w\\.claude\\skills\\pdf-tools\\SKILL.md"}),
        assistant_tool("6", "Skill", {"skill": "csv-cleaner"}),
        RESULT,
    ]
    session = parse_stream(lines)
    assert skill_invocations(session) == ["csv-cleaner", "pdf-tools"]
    assert [t.order for t in session.tool_uses] == [0, 1, 2, 3, 4, 5]


def test_invoked_skill_ignores_other_reads_and_tools() -> None:
    assert invoked_skill(ToolUse(id="a", name="Read", input={"file_path": "SKILL.md"})) is None
    assert (
        invoked_skill(
            ToolUse(id="b", name="Read", input={"file_path": "/x/.claude/skills/a/other.md"})
        )
        is None
    )
    assert invoked_skill(ToolUse(id="c", name="Bash", input={"skill": "pdf-tools"})) is None
    assert invoked_skill(ToolUse(id="d", name="Skill", input={"skill": "  "})) is None
    assert invoked_skill(ToolUse(id="e", name="Skill", input={"skill": "plug:pdf"})) == "plug:pdf"


def test_tool_results_errors_and_metrics() -> None:
    lines = [
        INIT,
        assistant_tool("1", "Bash", {"command": "ls"}),
        line(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "1",
                            "is_error": True,
                            "content": [{"type": "text", "text": "permission denied"}],
                        }
                    ],
                },
            }
        ),
        assistant_tool("2", "Bash", {"command": "pwd"}),
        assistant_tool("3", "Skill", {"skill": "pdf-tools"}),
        RESULT,
    ]
    session = parse_stream(lines)
    assert session.tool_results[0].is_error
    assert session.tool_results[0].text == "permission denied"
    stats = metrics(session)
    assert stats.tool_calls == {"Bash": 2, "Skill": 1}
    assert stats.total_tool_calls == 3
    assert stats.tool_errors == 1
    assert stats.skills_invoked == ["pdf-tools"]
    assert stats.cost_usd == 0.031
    assert stats.has_result and not stats.is_error


def test_authentication_failure_is_visible() -> None:
    lines = [
        INIT,
        line(
            {
                "type": "assistant",
                "error": "authentication_failed",
                "message": {"content": [{"type": "text", "text": "Not logged in"}]},
            }
        ),
        line({"type": "result", "subtype": "success", "is_error": True, "usage": None}),
    ]
    session = parse_stream(lines)
    assert session.assistant_errors == ["authentication_failed"]
    assert session.assistant_texts == ["Not logged in"]
    assert session.result is not None and session.result.is_error
    assert metrics(session).assistant_errors == ["authentication_failed"]


def test_incremental_parser_reports_done_at_the_result() -> None:
    parser = StreamParser()
    parser.feed(INIT)
    assert not parser.done
    parser.feed(RESULT)
    assert parser.done


def test_streamed_usage_is_summed_before_the_result_event() -> None:
    """Usage known from the streamed messages alone (a session ended early has no result)."""
    from skillbench.backends.claude_cli.stream_json import StreamParser

    def event(inner: dict[str, object], parent: str | None = None) -> str:
        return json.dumps({"type": "stream_event", "event": inner, "parent_tool_use_id": parent})

    parser = StreamParser()
    usage = {"input_tokens": 10, "cache_read_input_tokens": 900, "output_tokens": 1}
    parser.feed(event({"type": "message_start", "message": {"usage": usage}}))
    parser.feed(event({"type": "message_delta", "usage": {"output_tokens": 40}}))
    parser.feed(event({"type": "message_start", "message": {"usage": {"input_tokens": 5}}}, "t1"))
    parser.feed(event({"type": "message_delta", "usage": {"output_tokens": 7}}, "t1"))
    got = parser.session.stream_usage
    assert (got.input_tokens, got.cache_read_input_tokens, got.output_tokens) == (15, 900, 47)
    assert parser.session.result is None
    assert parser.session.streaming is True  # the top-level message has not stopped
    parser.feed(event({"type": "message_stop"}, "t1"))
    assert parser.session.streaming is True  # a subagent's stop is not the top level's
    parser.feed(event({"type": "message_stop"}))
    assert parser.session.streaming is False


def test_wire_usage_becomes_the_one_token_type() -> None:
    """Both wire parsers (the CLI's stream-json, the Messages API's first turn) hand over
    `TokenCounts`, read by its one converter (`TokenCounts.from_wire`), not a type of their own."""
    from skillbench.backends.replay.move import Move as Decision
    from skillbench.schemas.cost import TokenCounts

    wire = {"input_tokens": 3, "output_tokens": 4, "service_tier": "standard", "x": None}
    assert TokenCounts.from_wire(wire) == TokenCounts(input_tokens=3, output_tokens=4)
    base = TokenCounts(input_tokens=9, cache_read_input_tokens=5)
    later = TokenCounts.from_wire({"output_tokens": 7, "input_tokens": "?"}, base)
    assert later == TokenCounts(input_tokens=9, cache_read_input_tokens=5, output_tokens=7)
    assert type(Decision().usage) is TokenCounts
    session = parse_stream([line({"type": "result", "subtype": "success", "usage": wire})])
    assert session.result is not None
    assert session.result.usage == TokenCounts(input_tokens=3, output_tokens=4)
    assert type(session.stream_usage) is TokenCounts
