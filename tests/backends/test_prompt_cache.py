"""Prompt-cache layout of a templated request, and the breakpoint before the query."""

from __future__ import annotations

from typing import Any

from skillbench.backends.anthropic.prompt_cache import (
    MAX_BREAKPOINTS,
    add_breakpoint_before_query,
    layout,
    prefix,
    without_breakpoints,
)

Q = "<query>"
BP = {"type": "ephemeral"}


def body(*, query_first: bool = False, string_listing: bool = False) -> dict[str, Any]:
    listing: Any = "listing" if string_listing else {"type": "text", "text": "listing"}
    content: Any = [{"type": "text", "text": Q, "cache_control": BP}]
    if not query_first:
        content = [listing, *content] if not string_listing else content
    messages: list[dict[str, Any]] = []
    if string_listing:
        messages.append({"role": "user", "content": listing})
        messages.append({"role": "assistant", "content": "ok"})
    messages.append({"role": "user", "content": content})
    return {
        "tools": [{"name": "Skill"}],
        "system": [
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b", "cache_control": BP},
        ],
        "messages": messages,
    }


def test_layout_of_claude_codes_request() -> None:
    found = layout(body(), Q)
    assert (found.shared, found.query, found.last, found.count) == (2, 4, 4, 2)
    assert found.query_cached
    assert not layout(body(), "absent").query_cached


def test_the_breakpoint_goes_on_the_block_before_the_query_only() -> None:
    original = body()
    changed = add_breakpoint_before_query(original, Q)
    assert changed["messages"][0]["content"][0]["cache_control"] == BP
    assert "cache_control" not in original["messages"][0]["content"][0]  # a copy
    assert without_breakpoints(changed) == without_breakpoints(original)  # same tokens
    assert layout(changed, Q).shared == 3
    assert add_breakpoint_before_query(changed, Q) == changed  # idempotent


def test_no_breakpoint_where_none_fits() -> None:
    first = body(query_first=True)  # the block before the query is a system block
    assert add_breakpoint_before_query(first, Q) == first
    bare = body(string_listing=True)  # a plain-string message cannot carry cache_control
    assert add_breakpoint_before_query(bare, Q) == bare
    full = body()
    full["tools"] = [{"name": f"t{i}", "cache_control": BP} for i in range(MAX_BREAKPOINTS - 1)]
    assert add_breakpoint_before_query(full, Q) == full  # the API allows four at most
    assert add_breakpoint_before_query(body(), "absent") == body()


def test_prefix_cuts_the_request_after_a_block() -> None:
    cut = prefix(body(), 3)
    assert cut["tools"] == [{"name": "Skill"}] and len(cut["system"]) == 2
    assert cut["messages"] == [{"role": "user", "content": [{"type": "text", "text": "listing"}]}]
    assert prefix(body(), 0) == {"tools": [{"name": "Skill"}], "system": None, "messages": []}
