"""The extension-wire demo server: SEP-2663 `io.modelcontextprotocol/tasks` on protocol 2026-07-28.

Built on the SDK's low-level `Server` (the catalogue brings its own JSON schemas, which the
decorator-based `MCPServer` cannot take as they are). `server/discover` advertises the extension;
a `tools/call` whose request declares it becomes a task (flat `CreateTaskResult`), except tools
with `extension_task_support="forbidden"`, which answer at once, and `asks_before_task` tools,
whose first questions are MRTR rounds before the task exists. Without the declaration a tool runs
synchronously: questions use MRTR (`InputRequiredResult`), and a `required` tool
(`migrate_database`) answers `-32021`. A task never asks what its creating request did not declare
(it fails with `-32021` instead). `tasks/get|update|cancel` serve the task store, for any request
that declares the extension (no session scoping); `tasks/list` and `tasks/result` do not exist.
`--conformance` adds the conformance suite's fixtures (`app.demo.conformance_tools`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolRequestParams,
    CallToolResult,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    RequestParams,
    Tool,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from app.demo.catalog import tools_for
from app.demo.extension_direct import DirectJobContext, InputNeeded, ReadyForTask
from app.demo.extension_tasks import TaskNotFound, TaskRecord, TaskStore
from app.demo.http_guard import TasksHttpGuard
from app.demo.options import DemoOptions
from app.demo.tool_contract import DemoTool, ToolFailure, missing_capability, text_result

logger = logging.getLogger(__name__)

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

Context = ServerRequestContext[dict[str, Any], Any]


class TaskIdParams(RequestParams):
    """`tasks/get` and `tasks/cancel` params."""

    task_id: str = Field(alias="taskId")


class TaskUpdateParams(TaskIdParams):
    """`tasks/update` params: responses keyed like the task's `inputRequests`."""

    input_responses: dict[str, Any] = Field(alias="inputResponses")


def _client_capabilities(ctx: Context) -> dict[str, Any]:
    """The capabilities declared on this very request (never inferred from earlier ones)."""
    declared = (ctx.meta or {}).get(CLIENT_CAPABILITIES_META_KEY)
    return declared if isinstance(declared, dict) else {}


def _declares_tasks(ctx: Context) -> bool:
    extensions = _client_capabilities(ctx).get("extensions")
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions


def _missing_capability(required: dict[str, Any], what: str) -> MCPError:
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"Missing required client capability: {what}",
        data={"requiredCapabilities": required},
    )


def _require_tasks(ctx: Context) -> None:
    """Refuse `tasks/*` at the legacy era (-32601) and from non-declaring requests (-32021)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=ctx.method)
    if not _declares_tasks(ctx):
        raise _missing_capability({"extensions": {TASKS_EXTENSION: {}}}, TASKS_EXTENSION)


class ExtensionDemoServer:
    """The handlers of one extension-wire demo server and the task store they share."""

    def __init__(self, options: DemoOptions) -> None:
        self._options = options
        self._tools = {
            tool.name: tool
            for tool in tools_for("extension", bench=options.bench, conformance=options.conformance)
        }
        self.store = TaskStore(
            ttl_ms=options.ttl_ms, poll_interval_ms=options.poll_interval_ms, speed=options.speed
        )

    def build(self) -> Server[dict[str, Any]]:
        """A low-level SDK `Server` serving the catalogue and the tasks extension."""
        server: Server[dict[str, Any]] = Server(
            "taskscope-demo-extension",
            version="0.1.0",
            lifespan=self._lifespan,
            get_tool_input_schema=self._input_schema,
            on_list_tools=self._list_tools,
        )
        server.add_request_handler("tools/call", CallToolRequestParams, self._call_tool)
        server.add_request_handler("tasks/get", TaskIdParams, self._get)
        server.add_request_handler("tasks/update", TaskUpdateParams, self._update)
        server.add_request_handler("tasks/cancel", TaskIdParams, self._cancel)
        server.extensions[TASKS_EXTENSION] = {}
        return server

    @asynccontextmanager
    async def _lifespan(self, _server: Server[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as task_group:
            self.store.attach(task_group)
            try:
                yield {}
            finally:
                self.store.attach(None)
                task_group.cancel_scope.cancel()

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        tool = self._tools.get(name)
        return None if tool is None else tool.input_schema

    async def _list_tools(
        self, ctx: Context, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        tools = [
            Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tool.input_schema,
                output_schema=tool.output_schema,
            )
            for tool in self._tools.values()
        ]
        return ListToolsResult(tools=tools)

    async def _call_tool(
        self, ctx: Context, params: CallToolRequestParams
    ) -> dict[str, Any] | CallToolResult | InputRequiredResult:
        tool = self._tools.get(params.name)
        if tool is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        arguments = params.arguments or {}
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        declares = modern and _declares_tasks(ctx)
        if modern and not declares and tool.extension_task_support == "required":
            raise _missing_capability({"extensions": {TASKS_EXTENSION: {}}}, TASKS_EXTENSION)
        if declares and not self._answers_at_once(tool, arguments):
            if not tool.asks_before_task:
                return self._start_task(ctx, tool, arguments, None)
            return await self._call_directly(
                ctx, params, tool, arguments, modern=True, escalate=True
            )
        return await self._call_directly(ctx, params, tool, arguments, modern=modern)

    def _start_task(
        self,
        ctx: Context,
        tool: DemoTool,
        arguments: dict[str, Any],
        answered: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Create the task (findable before this returns) and answer a flat `CreateTaskResult`."""
        capabilities = _client_capabilities(ctx)
        record = self.store.start(tool.job, arguments, capabilities=capabilities, answered=answered)
        logger.info("task %s created for %s", record.task_id, tool.name)
        return {"resultType": "task", **record.wire()}

    @staticmethod
    def _answers_at_once(tool: DemoTool, arguments: dict[str, Any]) -> bool:
        if tool.extension_task_support == "forbidden":
            return True
        return tool.answers_synchronously is not None and tool.answers_synchronously(arguments)

    async def _call_directly(
        self,
        ctx: Context,
        params: CallToolRequestParams,
        tool: DemoTool,
        arguments: dict[str, Any],
        *,
        modern: bool,
        escalate: bool = False,
    ) -> dict[str, Any] | CallToolResult | InputRequiredResult:
        """Run the job in this call, asking questions through MRTR rounds; with `escalate`, the
        job's first pause (all its questions so far answered) turns the call into a task."""
        responses = params.model_dump(by_alias=True, mode="json", exclude_none=True).get(
            "inputResponses"
        )
        context = DirectJobContext(self._options.speed, responses, pause_ends_call=escalate)
        try:
            return CallToolResult.model_validate(await tool.job(context, arguments))
        except ReadyForTask:
            return self._start_task(ctx, tool, arguments, responses)
        except InputNeeded as needed:
            if not modern:
                message = (
                    f"{tool.name} asks questions; connect with protocol 2026-07-28 to answer them."
                )
                return CallToolResult.model_validate(text_result(message, is_error=True))
            required = missing_capability(needed.requests, _client_capabilities(ctx))
            if required is not None:
                raise _missing_capability(required, ", ".join(required)) from None
            return InputRequiredResult.model_validate({"inputRequests": needed.requests})
        except ToolFailure as failure:
            raise MCPError(code=failure.code, message=failure.message) from None
        except Exception:
            logger.exception("tool %s crashed", tool.name)
            raise MCPError(code=INTERNAL_ERROR, message="Internal error") from None

    def _find(self, task_id: str) -> TaskRecord:
        try:
            return self.store.find(task_id)
        except TaskNotFound:
            raise MCPError(code=INVALID_PARAMS, message="Task not found") from None

    async def _get(self, ctx: Context, params: TaskIdParams) -> dict[str, Any]:
        _require_tasks(ctx)
        return {"resultType": "complete", **self._find(params.task_id).detailed()}

    async def _update(self, ctx: Context, params: TaskUpdateParams) -> dict[str, Any]:
        _require_tasks(ctx)
        self._find(params.task_id).take_answers(params.input_responses)
        return {"resultType": "complete"}

    async def _cancel(self, ctx: Context, params: TaskIdParams) -> dict[str, Any]:
        _require_tasks(ctx)
        self._find(params.task_id).request_cancel()
        return {"resultType": "complete"}


async def _serve_stdio(server: Server[dict[str, Any]]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run(options: DemoOptions) -> None:
    """Serve the extension-wire demo over stdio or Streamable HTTP until stopped."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    server = ExtensionDemoServer(options).build()
    if options.transport == "stdio":
        anyio.run(_serve_stdio, server)
        return
    app = TasksHttpGuard(
        options.http_app(server),
        rate_limit_every=options.rate_limit_every,
        retry_after_s=options.retry_after_s,
        check_mcp_name=True,
    )
    uvicorn.run(app, host=options.host, port=options.port, log_level="warning", access_log=False)
