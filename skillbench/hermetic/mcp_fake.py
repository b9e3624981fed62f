"""Fake MCP servers: the `--mcp-config` document that starts one stdio server per entry of
the case's `mcp` block (`mcp_server.py`, built on the `mcp` SDK), each logging its tool calls
to the session's `calls.jsonl` as command `mcp:<server>`, argv `[tool, arguments as JSON]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from skillbench.hermetic.environment import McpServer

__all__ = ["MCP_SERVER", "mcp_config", "mcp_tool_names"]

#: The server script (run, never imported here: it imports the `mcp` SDK).
MCP_SERVER = Path(__file__).with_name("mcp_server.py")


def mcp_config(servers: dict[str, McpServer], folder: Path, log: Path) -> dict[str, Any]:
    """Write each server's tools under `folder`; the `mcpServers` document naming them."""
    entries: dict[str, Any] = {}
    for name, server in servers.items():
        spec = folder / f"mcp-{name}.json"
        spec.write_text(json.dumps(server.model_dump(mode="json")), encoding="utf-8")
        entries[name] = {
            "type": "stdio",
            "command": sys.executable,
            "args": [str(MCP_SERVER), str(spec), str(log), name],
        }
    return {"mcpServers": entries}


def mcp_tool_names(servers: dict[str, McpServer]) -> list[str]:
    """Claude Code's names of the fake tools (`mcp__<server>__<tool>`), to pre-approve."""
    return [
        f"mcp__{name}__{tool.name}" for name, server in servers.items() for tool in server.tools
    ]
