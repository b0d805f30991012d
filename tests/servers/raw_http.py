"""A raw Starlette MCP endpoint (no SDK) that misbehaves on purpose, for HTTP connection tests.

Paths pick the server's personality:
- `/legacy`: a legacy server that answers `server/discover` with a plain-text HTTP 400, assigns
  `Mcp-Session-Id`, refuses the GET stream with 405 and counts DELETEs (see `/stats`);
- `/modern`: a modern server whose first `server/discover` fails with -32022 naming another version.
Both offer `test/*` methods: echo the request headers, rate-limit with Retry-After, JSON-RPC
errors in HTTP 400 bodies, and an SSE answer that first asks the client a question.
Run: python -m tests.servers.raw_http --port N
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
STATS: dict[str, Any] = {"deletes": [], "answers": {}}
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
    return None


async def legacy(request: Request) -> Response:
    if request.method == "GET":
        return PlainTextResponse("no standalone stream", status_code=405)
    if request.method == "DELETE":
        STATS["deletes"].append(request.headers.get("mcp-session-id"))
        return Response(status_code=200)
    message = await request.json()
    if message.get("method") == "server/discover":
        return PlainTextResponse("Bad Request: Server not initialized", status_code=400)
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
    answered = await common(message, request)
    return answered or rpc_error(message.get("id"), -32601, "Method not found", status_code=404)


async def stats(request: Request) -> Response:
    return JSONResponse({"deletes": STATS["deletes"]})


app = Starlette(
    routes=[
        Route("/legacy", legacy, methods=["GET", "POST", "DELETE"]),
        Route("/modern", modern, methods=["POST"]),
        Route("/stats", stats, methods=["GET"]),
    ]
)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    uvicorn.run(app, host="127.0.0.1", port=parser.parse_args().port, log_level="warning")
