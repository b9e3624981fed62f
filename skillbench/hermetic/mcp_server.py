"""A fake stdio MCP server (run as a script: `python mcp_server.py SPEC LOG NAME`), built on
the `mcp` SDK: it lists the tools of SPEC (a `hermetic.environment.McpServer` as JSON) and
answers each `tools/call` with that tool's next response (the last repeated): `{"result": …}`
as a text block holding the JSON (and as structured content when it is an object), `{"error":
"…"}` as an error result. Every call is logged to LOG through the router's lock (`router.py`),
as command `mcp:NAME` with argv `[tool, arguments as JSON]`; a call of an unknown tool is
refused."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from router import Decision, record_call  # type: ignore[import-not-found]


def build(spec: dict[str, Any], log: str, name: str) -> Server[Any]:
    """The server answering the tools of `spec`."""
    tools = {tool["name"]: tool for tool in spec["tools"]}
    order = list(tools)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool,
                    description=tools[tool].get("description") or f"fake {tool}",
                    input_schema={"type": "object", "additionalProperties": True},
                )
                for tool in tools
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = tools.get(params.name)
        index = order.index(params.name) if tool is not None else None
        args = [params.name, json.dumps(params.arguments or {}, sort_keys=True)]

        def decide(used: int) -> Decision:
            if tool is None:
                return True, "no such tool", 127, {"error": f"unknown tool {params.name}"}
            responses = tool.get("responses") or [{"result": {}}]
            response = dict(responses[min(used, len(responses) - 1)])
            failed = "error" in response
            return False, None, 1 if failed else 0, response

        refused, _, _, response = record_call(log, f"mcp:{name}", args, index, decide)
        if refused or "error" in response:
            text = str(response.get("error"))
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=True
            )
        result = response.get("result")
        text = json.dumps(result)
        structured = result if isinstance(result, dict) else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=structured
        )

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(spec_file: str, log: str, name: str) -> None:
    """Serve over stdin/stdout until the client closes."""
    with open(spec_file, encoding="utf-8") as handle:
        spec = json.load(handle)
    server = build(spec, log, name)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    spec_file, log_file, server_name = sys.argv[1:4]
    anyio.run(serve, spec_file, log_file, server_name)
