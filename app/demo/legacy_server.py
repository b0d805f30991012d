"""The legacy-wire demo server: 2025-11-25 experimental tasks on the `mcp` SDK's lowlevel `Server`.

Legacy-only on purpose: `server/discover` answers -32601, so `auto` clients fall back to
`initialize`, and every other 2026-07-28 request (which the SDK would otherwise serve without a
handshake or a back-channel) answers -32022 naming the handshake versions. Task-augmented
`tools/call` is short-circuited by a middleware (a handler cannot return a `CreateTaskResult`),
`tasks/get|list|result|cancel` are plain request handlers, and tasks are bound to the connection
that created them. Serves stdio or Streamable HTTP.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
import uvicorn
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import PROTOCOL_VERSION_META_KEY, UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from app.demo.catalog import tools_for
from app.demo.http_guard import TasksHttpGuard
from app.demo.legacy_jobs import SyncJobContext, TaskJobContext, TaskRun, run_task_job
from app.demo.legacy_link import ClientLink
from app.demo.legacy_tasks import InvalidCursor, TaskStore, related_task_meta
from app.demo.options import DemoOptions
from app.demo.tool_contract import DemoTool, ToolFailure

logger = logging.getLogger(__name__)

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SWEEP_INTERVAL_S = 0.5
IMMEDIATE_RESPONSE_META_KEY = "io.modelcontextprotocol/model-immediate-response"


@dataclass
class LegacyState:
    """Server-wide state: options, tools, every task and the task group jobs run in."""

    options: DemoOptions
    task_group: anyio.abc.TaskGroup
    tools: dict[str, DemoTool]
    store: TaskStore = field(default_factory=TaskStore)
    runs: dict[str, TaskRun] = field(default_factory=dict)

    def find_run(self, owner: str, task_id: str) -> TaskRun:
        """The caller's task, or -32602 "Task not found" (unknown, expired or someone else's)."""
        record = self.store.get(owner, task_id)
        run = self.runs.get(task_id) if record is not None else None
        if run is None:
            raise MCPError(INVALID_PARAMS, "Task not found")
        return run

    def purge_expired(self) -> None:
        """Forget every task whose TTL ran out and stop its job."""
        for record in self.store.purge_expired(time.time()):
            run = self.runs.pop(record.task_id, None)
            if run is not None:
                run.scope.cancel()
            logger.info("task %s expired (status %s)", record.task_id, record.status)


Context = ServerRequestContext[LegacyState, Any]


class LegacyTasksServer(Server[LegacyState]):
    """A lowlevel `Server` that advertises the 2025-11-25 `tasks` capability."""

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        """The SDK's capabilities plus `tasks: {list, cancel, requests: {tools: {call}}}`."""
        capabilities = super().get_capabilities(
            notification_options,
            experimental_capabilities,
            extensions,
            protocol_version=protocol_version,
        )
        capabilities.tasks = types.ServerTasksCapability(
            list=types.TasksListCapability(),
            cancel=types.TasksCancelCapability(),
            requests=types.ServerTasksRequestsCapability(
                tools=types.TasksToolsCapability(call=types.TasksCallCapability())
            ),
        )
        return capabilities


def owner_of(ctx: Context) -> str:
    """The connection a request came on: its `Mcp-Session-Id` over HTTP, else the stdio pipe."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if isinstance(headers, Mapping):
        return f"http:{headers.get('mcp-session-id', '')}"
    return "stdio"


def progress_token_of(params: Mapping[str, Any] | None) -> str | int | None:
    """The `progressToken` of a request's `_meta`, if any."""
    meta = (params or {}).get("_meta")
    token = meta.get("progressToken") if isinstance(meta, Mapping) else None
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None


def _tool(state: LegacyState, name: object) -> DemoTool:
    tool = state.tools.get(name) if isinstance(name, str) else None
    if tool is None:
        raise MCPError(INVALID_PARAMS, f"Unknown tool: {name}")
    return tool


def _requested_ttl(task: object, maximum_ms: int) -> int:
    if not isinstance(task, Mapping):
        raise MCPError(INVALID_PARAMS, "params.task must be an object")
    requested = task.get("ttl")
    if requested is None:
        return maximum_ms
    if not isinstance(requested, int) or isinstance(requested, bool) or requested < 0:
        raise MCPError(INVALID_PARAMS, "params.task.ttl must be a non-negative integer")
    return min(requested, maximum_ms)


def modern_version_of(ctx: Context) -> str | None:
    """The stateless-era version a request speaks (from the connection or its `_meta` envelope),
    or None for a handshake-era request."""
    if ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return ctx.protocol_version
    requested = (ctx.meta or {}).get(PROTOCOL_VERSION_META_KEY)
    if isinstance(requested, str) and requested not in HANDSHAKE_PROTOCOL_VERSIONS:
        return requested
    return None


async def refuse_modern_era(ctx: Context, call_next: CallNext) -> HandlerResult:
    """Middleware: a 2026-07-28 request (other than the `server/discover` probe, which answers
    -32601 like any pre-2026 server) gets -32022 naming the versions `initialize` accepts."""
    requested = modern_version_of(ctx)
    if requested is None or ctx.request_id is None or ctx.method == "server/discover":
        return await call_next(ctx)
    raise MCPError(
        UNSUPPORTED_PROTOCOL_VERSION,
        f"Unsupported protocol version {requested}: this server speaks only the handshake era",
        data={"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": requested},
    )


async def create_task(ctx: Context, call_next: CallNext) -> HandlerResult:
    """Middleware: answer a task-augmented `tools/call` with a `CreateTaskResult`."""
    params = ctx.params
    if ctx.method != "tools/call" or not isinstance(params, Mapping) or params.get("task") is None:
        return await call_next(ctx)
    if ctx.session.client_params is None:
        # The SDK's initialization gate runs inside `call_next`, which this middleware skips.
        raise MCPError(INVALID_PARAMS, "Invalid request parameters: initialize first")
    state = ctx.lifespan_context
    tool = _tool(state, params.get("name"))
    if tool.legacy_task_support == "forbidden":
        raise MCPError(METHOD_NOT_FOUND, f"Tool '{tool.name}' does not support task augmentation")
    arguments = params.get("arguments") or {}
    if not isinstance(arguments, Mapping):
        raise MCPError(INVALID_PARAMS, "params.arguments must be an object")
    options = state.options
    ttl_ms = _requested_ttl(params.get("task"), options.ttl_ms)
    record = state.store.new_record(owner_of(ctx), ttl_ms, options.poll_interval_ms)
    run = TaskRun(record, ClientLink(ctx.session), progress_token_of(params))
    context = TaskJobContext(
        run, options.elicit_channel, options.speed, ClientLink(ctx.session, ctx.request_id)
    )
    state.runs[record.task_id] = run
    state.task_group.start_soon(run_task_job, run, tool.job, context, dict(arguments))
    if options.elicit_channel == "call":
        try:
            await context.creation_gate.wait()
        except BaseException:
            run.scope.cancel()
            state.runs.pop(record.task_id, None)
            raise
    state.store.add(record)
    run.published = True
    logger.info("task %s created for %s (%s)", record.task_id, tool.name, record.owner)
    return {
        "task": record.wire(),
        "_meta": {IMMEDIATE_RESPONSE_META_KEY: f"Started {tool.name} as task {record.task_id}."},
    }


async def list_tools(
    ctx: Context, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    """Every legacy demo tool with its `execution.taskSupport` and schemas."""
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tool.input_schema,
                output_schema=tool.output_schema,
                execution=types.ToolExecution(task_support=tool.legacy_task_support),
            )
            for tool in ctx.lifespan_context.tools.values()
        ]
    )


async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
    """A plain `tools/call`: run the job now; a `required` tool answers -32601."""
    state = ctx.lifespan_context
    tool = _tool(state, params.name)
    if tool.legacy_task_support == "required":
        raise MCPError(METHOD_NOT_FOUND, f"Tool '{tool.name}' requires task augmentation")
    link = ClientLink(ctx.session, ctx.request_id)
    context = SyncJobContext(link, progress_token_of(ctx.params), state.options.speed)
    try:
        result = await tool.job(context, dict(params.arguments or {}))
    except ToolFailure as failure:
        raise MCPError(failure.code, failure.message) from failure
    return types.CallToolResult.model_validate(result)


async def tasks_get(ctx: Context, params: types.GetTaskRequestParams) -> dict[str, Any]:
    """`tasks/get`: the task, flat."""
    return ctx.lifespan_context.find_run(owner_of(ctx), params.task_id).record.wire()


async def tasks_list(ctx: Context, params: types.PaginatedRequestParams) -> dict[str, Any]:
    """`tasks/list`: the caller's tasks in creation order, `page_size` at a time."""
    state = ctx.lifespan_context
    try:
        page, next_cursor = state.store.page(owner_of(ctx), params.cursor, state.options.page_size)
    except InvalidCursor:
        raise MCPError(INVALID_PARAMS, "Invalid cursor") from None
    result: dict[str, Any] = {"tasks": [record.wire() for record in page]}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return result


async def tasks_result(ctx: Context, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
    """`tasks/result`: deliver the task's questions on this stream, block until it is terminal,
    then return its result (with related-task `_meta`) or its JSON-RPC error."""
    run = ctx.lifespan_context.find_run(owner_of(ctx), params.task_id)
    await run.serve_result_stream(ClientLink(ctx.session, ctx.request_id))
    record = run.record
    if not record.is_terminal:
        raise MCPError(INVALID_PARAMS, "Task has expired")
    if record.result is not None:
        meta = {**(record.result.get("_meta") or {}), **related_task_meta(record.task_id)}
        return {**record.result, "_meta": meta}
    if record.error is not None:
        code, message = record.error
        raise MCPError(code, message)
    raise MCPError(INTERNAL_ERROR, f"Task {record.task_id} was cancelled and has no result")


async def tasks_cancel(ctx: Context, params: types.CancelTaskRequestParams) -> dict[str, Any]:
    """`tasks/cancel`: the task is `cancelled` before this returns; terminal tasks answer -32602."""
    run = ctx.lifespan_context.find_run(owner_of(ctx), params.task_id)
    if run.record.is_terminal:
        raise MCPError(
            INVALID_PARAMS, f"Cannot cancel task: already in terminal status '{run.record.status}'"
        )
    await run.cancel()
    return run.record.wire()


async def discover_not_found(ctx: Context, params: types.RequestParams) -> dict[str, Any]:
    """`server/discover`: this server is legacy-only, so the 2026 probe must fail."""
    raise MCPError(METHOD_NOT_FOUND, "Method not found")


async def sweep_expired(state: LegacyState) -> None:
    """Purge expired tasks every `SWEEP_INTERVAL_S` seconds, forever."""
    while True:
        await anyio.sleep(SWEEP_INTERVAL_S)
        state.purge_expired()


def legacy_tools(options: DemoOptions) -> dict[str, DemoTool]:
    """The tools this server lists, by name."""
    tools = tools_for("legacy", bench=options.bench, conformance=options.conformance)
    return {tool.name: tool for tool in tools}


def make_lifespan(
    options: DemoOptions,
) -> Callable[[Server[LegacyState]], AbstractAsyncContextManager[LegacyState]]:
    """The server lifespan: a task group for jobs and the TTL sweep, alive while serving."""

    @asynccontextmanager
    async def lifespan(server: Server[LegacyState]) -> AsyncIterator[LegacyState]:
        async with anyio.create_task_group() as group:
            state = LegacyState(options=options, task_group=group, tools=legacy_tools(options))
            group.start_soon(sweep_expired, state)
            yield state
            group.cancel_scope.cancel()

    return lifespan


def build_server(options: DemoOptions) -> LegacyTasksServer:
    """The legacy demo server with every handler and the task middleware registered."""
    schemas = {name: tool.input_schema for name, tool in legacy_tools(options).items()}
    server = LegacyTasksServer(
        "taskscope-demo-legacy",
        version="0.1.0",
        instructions="taskscope demo server: MCP Tasks on the 2025-11-25 (legacy) wire.",
        lifespan=make_lifespan(options),
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, tasks_get)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, tasks_list)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, tasks_result)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, tasks_cancel)
    server.add_request_handler("server/discover", types.RequestParams, discover_not_found)
    server.middleware.extend([refuse_modern_era, create_task])
    return server


async def serve_stdio(server: LegacyTasksServer) -> None:
    """Serve one client on stdin/stdout, handshake era only."""
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        await serve_loop(
            server,
            read,
            write,
            lifespan_state=state,
            init_options=server.create_initialization_options(),
        )


def run(options: DemoOptions) -> None:
    """Run the legacy demo server until stopped; logs go to stderr only."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
    )
    server = build_server(options)
    if options.transport == "stdio":
        anyio.run(serve_stdio, server)
        return
    app = TasksHttpGuard(
        options.http_app(server),
        rate_limit_every=options.rate_limit_every,
        retry_after_s=options.retry_after_s,
        check_mcp_name=False,
    )
    uvicorn.run(app, host=options.host, port=options.port, log_level="warning")
