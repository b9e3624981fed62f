"""Claude Code transcript lines in conversation order, kept small while a turn is read.

The CLI appends a session's lines asynchronously, so the file's order is not always the
conversation's: under load the interactive CLI (2.1.197 seen here) wrote a turn's prompt line
and its `skill_listing` after the turn's Skill call and tool results. Each line names its
predecessor (`parentUuid`), so the lines of one turn are put back in that order before they are
folded: parent before child, siblings and lines whose parent is elsewhere in file order.

A buffered line is `slim`: only what the importer reads (ids, the prompt's text, the Skill calls,
a `skill_listing`), never an answer's text or a tool's output.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

_KEPT = ("type", "uuid", "parentUuid", "promptId", "isMeta", "version", "entrypoint",
         "sessionId", "cwd", "timestamp", "attributionSkill", "subtype")  # fmt: skip
START = "_start"
"""The key of a slim line holding where the line starts in its file."""


def prompt_text(content: Any) -> str | None:
    """The user's own words of a user line's content, None for a tool result or nothing."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") == "tool_result":
            return None
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
    return "\n".join(texts) if texts else None


def slim(start: int, line: dict[str, Any]) -> dict[str, Any]:
    """What the importer folds of one transcript line, and where it starts."""
    kept: dict[str, Any] = {key: line[key] for key in _KEPT if key in line}
    kept[START] = start
    given = line.get("message")
    content = given.get("content") if isinstance(given, dict) else None
    kind = line.get("type")
    if kind == "user" and not line.get("isMeta"):
        text = prompt_text(content)
        kept["message"] = {"content": text} if text is not None else {}
    elif kind == "assistant" and isinstance(given, dict):
        calls = [
            {"type": "tool_use", "name": block.get("name"), "input": _skill_input(block)}
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, dict) and block.get("type") == "tool_use"
        ]
        kept["message"] = {"content": calls, "stop_reason": given.get("stop_reason")}
    elif kind == "attachment":
        attachment = line.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "skill_listing":
            kept["attachment"] = {
                key: attachment[key]
                for key in ("type", "content", "isInitial")
                if key in attachment
            }
    return kept


def _skill_input(block: dict[str, Any]) -> dict[str, Any]:
    given = block.get("input")
    return {"skill": given["skill"]} if isinstance(given, dict) and "skill" in given else {}


def is_prompt(line: dict[str, Any]) -> bool:
    """Whether a slim line is a user line with the user's own words (a turn may start there)."""
    return line.get("type") == "user" and "content" in (line.get("message") or {})


def chain_order(
    lines: list[dict[str, Any]], known: set[str] | frozenset[str] = frozenset()
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`lines` (each with a `uuid`) parent before child, depth first, children in file order, as
    (attached, detached). Attached: first the lines below a parent in `known` (lines already
    folded: a late line of an earlier turn), then those below a line without a parent or a
    prompt (whose parent is the turn before), each in file order. Detached: the lines below
    another line whose parent is neither among `lines` nor `known` (written before their
    parent). A line whose `uuid` came before is a repeat and left out."""
    ids = {line["uuid"] for line in lines}
    children: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    late: list[dict[str, Any]] = []
    roots: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    for line in lines:
        parent = line.get("parentUuid")
        if not isinstance(parent, str) or parent == line["uuid"]:
            roots.append(line)
        elif parent in ids:
            children[parent].append(line)
        elif parent in known:
            late.append(line)
        else:
            (roots if is_prompt(line) else waiting).append(line)
    done: set[str] = set()
    attached = _depth_first(late + roots, children, done)
    detached = _depth_first(waiting, children, done)
    cycled = [line for rest in children.values() for line in rest]  # parents in a cycle
    for line in sorted(cycled, key=lambda line: int(line.get(START) or 0)):
        if line["uuid"] not in done:  # kept, in file order
            done.add(line["uuid"])
            detached.append(line)
    return attached, detached


def _depth_first(
    roots: list[dict[str, Any]],
    children: defaultdict[str, list[dict[str, Any]]],
    done: set[str],
) -> list[dict[str, Any]]:
    ordered: list[dict[str, Any]] = []
    stack = roots[::-1]
    while stack:
        line = stack.pop()
        if line["uuid"] in done:
            continue
        done.add(line["uuid"])
        ordered.append(line)
        stack.extend(children.pop(line["uuid"], [])[::-1])
    return ordered
