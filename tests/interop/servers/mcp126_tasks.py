"""A server on the Python SDK 1.23-1.26 generation (`mcp==1.26.0`, low-level Server with
experimental tasks), for the interop suite: it declares `capabilities.tasks.requests.tools: {}`
without `call` (`ExperimentalHandlers.update_capabilities` builds `TasksToolsCapability()` and
leaves `call` unset), yet accepts task-augmented `tools/call`s.

Runs in its own virtualenv; stdio by default, `--http --port N` for Streamable HTTP at
127.0.0.1:N/mcp. Mirrors mcp1_tasks.py (the 1.30 generation, which declares `call`).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
from lowlevel_serving import serve
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server

server = Server("interop-mcp126")
server.experimental.enable_tasks()


def _tool(name: str, description: str, properties: dict[str, Any], support: str | None) -> Any:
    execution = types.ToolExecution(taskSupport=support) if support else None
    schema = {"type": "object", "properties": properties}
    return types.Tool(name=name, description=description, inputSchema=schema, execution=execution)


TOOLS = [
    _tool("slow", "Sleep, then answer", {"seconds": {"type": "number"}}, "optional"),
    _tool("confirm", "Ask for a confirmation", {"filename": {"type": "string"}}, "required"),
    _tool("echo", "Plain echo", {"text": {"type": "string"}}, None),
]
BY_NAME = {tool.name: tool for tool in TOOLS}


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
    context = server.request_context
    context.experimental.validate_for_tool(BY_NAME[name])
    if name == "echo":
        return [types.TextContent(type="text", text=str(arguments.get("text", "")))]

    async def work(task: ServerTaskContext) -> types.CallToolResult:
        if name == "slow":
            seconds = float(arguments.get("seconds", 1))
            await task.update_status(f"sleeping {seconds}s")
            await anyio.sleep(seconds)
            return text(f"slept {seconds}s")
        filename = arguments.get("filename", "unknown.txt")
        schema = {
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}},
            "required": ["confirm"],
        }
        answer = await task.elicit(message=f"Delete '{filename}'?", requestedSchema=schema)
        confirmed = answer.action == "accept" and (answer.content or {}).get("confirm")
        return text(f"Deleted '{filename}'" if confirmed else "Deletion cancelled")

    if context.experimental.is_task:
        return await context.experimental.run_task(work)
    await anyio.sleep(float(arguments.get("seconds", 1)))
    return [types.TextContent(type="text", text="slept (no task)")]


if __name__ == "__main__":
    serve(server)
