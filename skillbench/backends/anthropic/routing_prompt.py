"""The skill-routing request, shaped like Claude Code's: system prompt, tools, user query.

Pure data, no SDK import: the Messages API backend sends it, the mock server reads it, and tests
inspect it. Bump `PROMPT_VERSION` / `TOOL_SCHEMA_VERSION` whenever the text or the schemas
change, because both are part of every cache key.

Prompt caching: the tools come first in the cached prefix, then the system block. The ordinary
tools and the system text never change; the `Skill` tool lists the skills in an order shuffled
per (seed, run index, target) — so the position of the target differs between runs and is not
systematic — but is identical for every query of one run, so all queries of a run share one
cacheable prefix. `cache_control` marks the last tool and the system block.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from skillbench.backends.base import SkillEntry, TriggerRequest

PROMPT_VERSION = "routing-2026-11-1"
TOOL_SCHEMA_VERSION = "tools-2026-11-1"
SKILL_TOOL = "Skill"
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

SYSTEM_PROMPT = """\
You are Claude Code, an agentic coding assistant running in the user's terminal. You help with \
software engineering tasks: writing and fixing code, running commands, reading and editing \
files, and answering questions about the project.

You have tools. Use them when they help, and answer directly when a tool is not needed.

# Skills
Skills are folders of instructions, scripts and resources that give you specialised \
capabilities. The available skills are listed in the description of the Skill tool.
- When the user's request matches the description of an available skill, invoke that skill \
with the Skill tool BEFORE doing anything else or answering. This is a blocking requirement: \
do not answer from general knowledge first.
- Invoke a skill only when it is relevant to the request. Do not invoke a skill for a request \
it does not cover, and never invent skill names: use only names listed in the Skill tool.
- Invoke at most one skill per request, by its exact name.

Keep answers short and to the point."""

SKILL_TOOL_HEADER = """\
Execute a skill within the main conversation.

When users ask you to perform tasks, check if any of the available skills below can help \
complete the task more effectively. Skills provide specialised capabilities and domain \
knowledge.

How to use skills:
- Invoke a skill with this tool, giving only its exact name as `skill`.
- When a skill is relevant, invoke it immediately, before answering.
- Only use skills listed in <available_skills> below.
"""

ORDINARY_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "Bash",
        "description": "Executes a bash command in a persistent shell session and returns its output.",
        "input_schema": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command to execute"},
                "description": {"type": "string", "description": "What the command does"},
            },
            "required": ["command"],
        },
    },
    {
        "name": "Read",
        "description": "Reads a file from the local filesystem and returns its contents with line numbers.",
        "input_schema": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Absolute path of the file"},
                "offset": {"type": "integer", "description": "Line to start reading from"},
                "limit": {"type": "integer", "description": "Number of lines to read"},
            },
            "required": ["file_path"],
        },
    },
    {
        "name": "Write",
        "description": "Writes a file to the local filesystem, overwriting any existing file.",
        "input_schema": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Absolute path of the file"},
                "content": {"type": "string", "description": "The content to write"},
            },
            "required": ["file_path", "content"],
        },
    },
    {
        "name": "Grep",
        "description": "Searches file contents with a regular expression (ripgrep syntax).",
        "input_schema": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "The regular expression"},
                "path": {"type": "string", "description": "File or folder to search"},
            },
            "required": ["pattern"],
        },
    },
)


def candidate_skills(request: TriggerRequest) -> list[SkillEntry]:
    """The target plus the catalog, without catalog entries that share the target's name."""
    others = [s for s in request.catalog if s.name != request.target.name]
    return [request.target, *others]


def shuffle_seed(request: TriggerRequest, *, per_query: bool = False) -> int:
    """A stable integer seed for the listing order of one request."""
    parts = [str(request.seed), str(request.run_index), request.target.name]
    if per_query:
        parts.append(request.query)
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def ordered_skills(request: TriggerRequest, *, per_query: bool = False) -> list[SkillEntry]:
    """The candidate skills in their deterministic, shuffled listing order."""
    skills = candidate_skills(request)
    random.Random(shuffle_seed(request, per_query=per_query)).shuffle(skills)
    return skills


def skill_listing(skills: Sequence[SkillEntry]) -> str:
    """The `<available_skills>` block: one "<name>: <description>" line per skill."""
    lines = [f"- {s.name}: {' '.join(s.description.split())}" for s in skills]
    return "<available_skills>\n" + "\n".join(lines) + "\n</available_skills>"


def skill_tool(skills: Sequence[SkillEntry]) -> dict[str, Any]:
    """The `Skill` tool definition listing `skills` in its description."""
    return {
        "name": SKILL_TOOL,
        "description": SKILL_TOOL_HEADER + "\n" + skill_listing(skills),
        "input_schema": {
            "type": "object",
            "properties": {
                "skill": {
                    "type": "string",
                    "description": 'The skill name, exactly as listed (e.g. "pdf")',
                }
            },
            "required": ["skill"],
        },
    }


def routing_tools(skills: Sequence[SkillEntry]) -> list[dict[str, Any]]:
    """Ordinary tools, then `Skill` last, carrying the cache breakpoint for the tool prefix."""
    tools = [dict(t) for t in ORDINARY_TOOLS]
    tools.append({**skill_tool(skills), "cache_control": dict(EPHEMERAL)})
    return tools


def system_blocks() -> list[dict[str, Any]]:
    """The system prompt as one text block with a cache breakpoint (tools + system prefix)."""
    return [{"type": "text", "text": SYSTEM_PROMPT, "cache_control": dict(EPHEMERAL)}]


def routing_params(
    request: TriggerRequest,
    *,
    model: str,
    max_tokens: int,
    per_query_shuffle: bool = False,
) -> dict[str, Any]:
    """Keyword arguments for `messages.create` (also the `params` of a batch request).

    No sampling parameters: API version 2026-10-21 (sent by SDK 2.x) rejects temperature,
    top_p and top_k at any value, and the SDK no longer has them."""
    skills = ordered_skills(request, per_query=per_query_shuffle)
    return {
        "model": model,
        "max_tokens": max_tokens,
        "system": system_blocks(),
        "tools": routing_tools(skills),
        "tool_choice": {"type": "auto"},
        "messages": [{"role": "user", "content": request.query}],
    }


def normalise_skill_name(value: object) -> str | None:
    """The skill name a `Skill` call named: stripped, without a leading slash; None if absent."""
    if not isinstance(value, str):
        return None
    name = value.strip().lstrip("/").strip()
    return name or None


def skill_called(block_name: str, block_input: object) -> str | None:
    """The skill a tool_use block invokes, or None when it is not a `Skill` call."""
    if block_name != SKILL_TOOL or not isinstance(block_input, dict):
        return None
    return normalise_skill_name(block_input.get("skill") or block_input.get("command"))
