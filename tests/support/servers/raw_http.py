"""A raw Starlette MCP endpoint (no SDK) that misbehaves on purpose, for HTTP connection tests.

Paths pick the server's personality:
- `/legacy`: a legacy server that answers `server/discover` with a plain-text HTTP 400, assigns
  `Mcp-Session-Id`, refuses the GET stream with 405 and counts DELETEs (see `/stats`);
- `/legacy/<probe>`: the same legacy server answering the probe as servers in the wild do:
  `null-id` (TypeScript SDK: HTTP 400, -32000, id null), `string-id` (Python SDK 1.x: HTTP 400,
  -32600, id "server-error"), `empty` (a `{}` result, as servers that answer every method so);
- `/modern`: a modern server whose first `server/discover` fails with -32022 naming another version.
Both offer `test/*` methods: echo the request headers, rate-limit with Retry-After, JSON-RPC
errors in HTTP 400 bodies, and an SSE answer that first asks the client a question.
Run: python -m tests.support.servers.raw_http --port N
"""

from __future__ import annotations

import argparse
import asyncio
import json
from email.utils import formatdate
from time import time
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

OTHER_MODERN = "2026-09-01"
STATS: dict[str, Any] = {"deletes": [], "answers": {}, "resumes": [], "calls": []}
HEADER_TOOLS: list[dict[str, Any]] = [
    {
        "name": "regional",
        "inputSchema": {
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
                "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
                "note": {"type": "string", "x-mcp-header": "Note"},
                "body": {"type": "string"},
            },
        },
    },
    {
        "name": "broken",
        "inputSchema": {
            "type": "object",
            "properties": {"score": {"type": "number", "x-mcp-header": "Score"}},
        },
    },
]
"""`/modern` tools: one with SEP-2243 header parameters, one whose annotation is invalid."""
RESUMABLE: dict[str, Any] = {}
"""SEP-1699: the answer owed to a POST whose SSE stream was cut, keyed by the stream's last id."""
RETRY_MS = 300
ANSWERS: dict[str, asyncio.Future[dict[str, Any]]] = {}


def rpc_result(rpc_id: Any, result: dict[str, Any], **kwargs: Any) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": rpc_id, "result": result}, **kwargs)


def rpc_error(rpc_id: Any, code: int, message: str, data: Any = None, **kwargs: Any) -> Response:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONResponse({"jsonrpc": "2.0", "id": rpc_id, "error": error}, **kwargs)


async def ask_then_answer(rpc_id: Any) -> StreamingResponse:
    """SSE: a server→client request first, the response only after the client answered it."""
    future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    ANSWERS["srv-7"] = future

    async def events() -> Any:
        question = {
            "jsonrpc": "2.0",
            "id": "srv-7",
            "method": "elicitation/create",
            "params": {"message": "Name?", "requestedSchema": {"type": "object"}},
        }
        yield f"event: message\ndata: {json.dumps(question)}\n\n"
        answer = await asyncio.wait_for(future, 10)
        final = {"jsonrpc": "2.0", "id": rpc_id, "result": {"answer": answer}}
        yield f"event: message\ndata: {json.dumps(final)}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


async def common(message: dict[str, Any], request: Request) -> Response | None:
    method, rpc_id = message.get("method"), message.get("id")
    if method is None:  # the client's answer to one of our requests
        future = ANSWERS.pop(str(rpc_id), None)
        if future is not None and not future.done():
            future.set_result(message)
        return Response(status_code=202)
    if rpc_id is None:
        return Response(status_code=202)
    if method == "test/headers":
        return rpc_result(rpc_id, {"headers": dict(request.headers)})
    if method == "test/secret":
        return rpc_result(rpc_id, {"seen": f"you sent {request.headers.get('authorization')}"})
    if method == "test/rate-seconds":
        return PlainTextResponse("slow down", status_code=429, headers={"Retry-After": "7"})
    if method == "test/rate-date":
        when = formatdate(time() + 120, usegmt=True)
        return PlainTextResponse("busy", status_code=503, headers={"Retry-After": when})
    if method == "test/rpc-400":
        return rpc_error(
            rpc_id, -32602, "Task not found", status_code=400, headers={"Retry-After": "3"}
        )
    if method == "test/ask":
        return await ask_then_answer(rpc_id)
    if method == "test/cut":
        return cut_stream(rpc_id)
    return None


def cut_stream(rpc_id: Any) -> StreamingResponse:
    """SSE: a priming event with an id and `retry:`, then the stream ends without the answer;
    a GET with `Last-Event-ID` gets it (after a notification, as servers replay)."""
    event_id = f"cut-{rpc_id}"

    async def events() -> Any:
        yield f"id: {event_id}\nretry: {RETRY_MS}\ndata: \n\n"
        RESUMABLE[event_id] = {"id": rpc_id, "closed_at": time()}

    return StreamingResponse(events(), media_type="text/event-stream")


async def resume(request: Request) -> Response:
    """The GET that resumes a cut stream: replay the owed answer, then stay open."""
    last = request.headers.get("last-event-id", "")
    owed = RESUMABLE.pop(last, None)
    if owed is None:
        return PlainTextResponse("nothing to resume", status_code=405)
    STATS["resumes"].append({"lastEventId": last, "waitedS": time() - owed["closed_at"]})

    async def events() -> Any:
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "hi"}}
        yield f"id: {last}-1\nevent: message\ndata: {json.dumps(note)}\n\n"
        answer = {"jsonrpc": "2.0", "id": owed["id"], "result": {"resumed": True}}
        yield f"id: {last}-2\nevent: message\ndata: {json.dumps(answer)}\n\n"
        await asyncio.sleep(30)  # a resumed stream may stay open; the client stops reading

    return StreamingResponse(events(), media_type="text/event-stream")


PROBE_ANSWERS: dict[str, Any] = {
    "plain": lambda rpc_id: PlainTextResponse("Bad Request: Server not initialized", 400),
    "null-id": lambda rpc_id: rpc_error(
        None, -32000, "Bad Request: Server not initialized", status_code=400
    ),
    "string-id": lambda rpc_id: rpc_error(
        "server-error", -32600, "Bad Request: Missing session ID", status_code=400
    ),
    "empty": lambda rpc_id: rpc_result(rpc_id, {}),
}


async def legacy(request: Request) -> Response:
    if request.method == "GET":
        if request.headers.get("last-event-id"):
            return await resume(request)
        return PlainTextResponse("no standalone stream", status_code=405)
    if request.method == "DELETE":
        STATS["deletes"].append(request.headers.get("mcp-session-id"))
        return Response(status_code=200)
    message = await request.json()
    if message.get("method") == "server/discover":
        probe = request.path_params.get("probe", "plain")
        return PROBE_ANSWERS[probe](message.get("id"))
    if message.get("method") == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tasks": {"list": {}}},
            "serverInfo": {"name": "raw-legacy", "version": "1.0"},
        }
        return rpc_result(message["id"], result, headers={"Mcp-Session-Id": "sess-42"})
    answered = await common(message, request)
    return answered or rpc_error(message.get("id"), -32601, "Method not found", status_code=404)


async def modern(request: Request) -> Response:
    message = await request.json()
    if message.get("method") == "server/discover":
        version = message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
        if version != OTHER_MODERN:
            data = {"supported": [OTHER_MODERN], "requested": version}
            return rpc_error(
                message["id"], -32022, "Unsupported protocol version", data, status_code=400
            )
        result = {
            "resultType": "complete",
            "supportedVersions": [OTHER_MODERN],
            "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "raw-modern", "version": "2.0"}
            },
            "ttlMs": 0,
            "cacheScope": "public",
        }
        return rpc_result(message["id"], result)
    if message.get("method") == "initialize":
        return rpc_error(
            message["id"], -32600, "initialize is not a modern method", status_code=400
        )
    if message.get("method") == "tools/list":
        return rpc_result(message["id"], {"resultType": "complete", "tools": HEADER_TOOLS})
    if message.get("method") == "tools/call":
        params = message["params"]
        seen = {k: v for k, v in request.headers.items() if k.startswith("mcp-param-")}
        STATS["calls"].append(params["name"])
        return rpc_result(
            message["id"],
            {"resultType": "complete", "content": [{"type": "text", "text": json.dumps(seen)}]},
        )
    answered = await common(message, request)
    return answered or rpc_error(message.get("id"), -32601, "Method not found", status_code=404)


async def stats(request: Request) -> Response:
    return JSONResponse(
        {"deletes": STATS["deletes"], "resumes": STATS["resumes"], "calls": STATS["calls"]}
    )


app = Starlette(
    routes=[
        Route("/legacy", legacy, methods=["GET", "POST", "DELETE"]),
        Route("/legacy/{probe}", legacy, methods=["GET", "POST", "DELETE"]),
        Route("/modern", modern, methods=["POST"]),
        Route("/stats", stats, methods=["GET"]),
    ]
)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    uvicorn.run(app, host="127.0.0.1", port=parser.parse_args().port, log_level="warning")
