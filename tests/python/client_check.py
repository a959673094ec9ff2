"""A third-party MCP client (the Python `mcp` package) against an aqlgen adapter binary.

Usage: CLIENT_CHECK_CALL='{"operation": ..., "params": {...}}' client_check.py <adapter-binary> [adapter args...]

Connects over stdio, lists the tools, introspects, runs the READ call given in
CLIENT_CHECK_CALL and the same call with a misspelt operation name, and prints one JSON line
per step; the Rust test that runs this script checks the lines.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def answer(result):
    """The MCP-AQL answer inside a tool result, with isError."""
    text = result.content[0].text
    return {"answer": json.loads(text), "is_error": bool(result.is_error)}


async def main(binary, args):
    params = StdioServerParameters(command=binary, args=args, env=dict(os.environ))
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            print(json.dumps({"step": "initialize", "server": init.server_info.name}))
            tools = await session.list_tools()
            print(json.dumps({
                "step": "tools",
                "tools": [
                    {
                        "name": tool.name,
                        "readOnlyHint": tool.annotations.read_only_hint if tool.annotations else None,
                        "destructiveHint": tool.annotations.destructive_hint if tool.annotations else None,
                        "mentions_introspect": "introspect" in (tool.description or ""),
                    }
                    for tool in tools.tools
                ],
            }))
            read_tool = next(t.name for t in tools.tools if t.name.endswith("mcp_aql_read") or t.name.endswith("mcp_aql"))
            call = json.loads(os.environ["CLIENT_CHECK_CALL"])
            misspelt = dict(call, operation=call["operation"] + "x")
            steps = [
                ("introspect", {"operation": "introspect", "params": {"query": "operations"}}),
                ("call", call),
                ("unknown", misspelt),
            ]
            for name, arguments in steps:
                result = await session.call_tool(read_tool, arguments)
                print(json.dumps({"step": name, **answer(result)}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
