"""A raw Starlette MCP server (legacy tasks wire, no SDK) that echoes the client's credentials back.

Every answer quotes what arrived in `Authorization` and `X-Api-Key` in the forms a careless server
or library would: as sent, JSON-escaped, `repr`-quoted (of the text and of its bytes),
percent-encoded, and for a `Basic` credential the decoded `user:password` and password. They come
back in a tool's description (`tools/list`), a synchronous result (`echo`), a JSON-RPC error's
message and data (`fail`), a task's status message and result (`echo` as a task) and a task's
id (`echo-id`);
`tasks/list` lists the tasks created with the same `Authorization`. `/seen` lists the credentials
received.
Run: python -m tests.support.servers.echo_secrets --port N
"""

from __future__ import annotations

import argparse
import base64
import json
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, quote_plus

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

RELATED_TASK = "io.modelcontextprotocol/related-task"
SEEN: list[dict[str, str]] = []
TASKS: dict[str, dict[str, Any]] = {}


def echoed(request: Request) -> str:
    """The credentials of `request`, in every form a server might quote them."""
    forms: list[str] = []
    for name in ("authorization", "x-api-key"):
        value = request.headers.get(name)
        if not value:
            continue
        scheme, _, credentials = value.partition(" ")
        for text in (value, credentials):
            forms += [text, json.dumps(text), repr(text), repr(text.encode()), quote(text, safe="")]
            forms.append(quote_plus(text))
        if scheme.lower() == "basic":
            pair = base64.b64decode(credentials).decode()
            password = pair.partition(":")[2]
            forms += [pair, password, json.dumps(password), quote(password, safe="")]
    return "you sent: " + " | ".join(forms)


def tool_result(text: str, task_id: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"seen": text},
        "isError": False,
    }
    if task_id is not None:
        result["_meta"] = {RELATED_TASK: {"taskId": task_id}}
    return result


def answer(rpc_id: Any, result: dict[str, Any]) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": rpc_id, "result": result})


def refuse(rpc_id: Any, code: int, message: str, data: Any = None) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONResponse({"jsonrpc": "2.0", "id": rpc_id, "error": error})


def task_body(task: dict[str, Any]) -> dict[str, Any]:
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    return {
        "taskId": task["id"],
        "status": task["status"],
        "statusMessage": task["message"],
        "createdAt": task["created"],
        "lastUpdatedAt": now,
        "ttl": 600_000,
        "pollInterval": 100,
    }


def tools(text: str) -> list[dict[str, Any]]:
    schema = {"type": "object", "properties": {}}
    return [
        {
            "name": name,
            "description": f"{what}; {text}",
            "inputSchema": schema,
            "execution": {"taskSupport": "optional"},
        }
        for name, what in (
            ("echo", "echoes your credentials"),
            ("echo-id", "echoes them in the id of its task"),
            ("fail", "fails quoting them"),
        )
    ]


async def mcp(request: Request) -> Response:
    if request.method == "GET":
        return Response("no standalone stream", status_code=405)
    if request.method == "DELETE":
        return Response(status_code=200)
    SEEN.append({k: v for k, v in request.headers.items() if k in ("authorization", "x-api-key")})
    message = await request.json()
    method, rpc_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if rpc_id is None or method is None:
        return Response(status_code=202)
    text = echoed(request)
    if method == "initialize":
        capabilities = {
            "tools": {},
            "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
        }
        info = {"name": "echo-secrets", "version": "1.0"}
        result = {"protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": info}
        return answer(rpc_id, result)
    if method == "tools/list":
        return answer(rpc_id, {"tools": tools(text)})
    if method == "tools/call" and params.get("name") == "fail":
        return refuse(rpc_id, -32000, f"cannot run: {text}", {"seen": text})
    if method == "tools/call":
        if not isinstance(params.get("task"), dict):
            return answer(rpc_id, tool_result(text))
        task_id = f"task-{len(TASKS) + 1}"
        if params.get("name") == "echo-id":
            task_id += "-" + request.headers.get("authorization", "").partition(" ")[2]
        created = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        owner = request.headers.get("authorization")
        task = {"id": task_id, "status": "working", "message": text, "created": created}
        task["owner"] = owner
        TASKS[task_id] = task
        return answer(rpc_id, {"task": task_body(task)})
    task = TASKS.get(str(params.get("taskId")))
    if method in ("tasks/get", "tasks/result", "tasks/cancel") and task is None:
        return refuse(rpc_id, -32602, f"Task not found: {params.get('taskId')}")
    if method == "tasks/get" and task is not None:
        task["status"], task["message"] = "completed", f"done; {text}"
        return answer(rpc_id, task_body(task))
    if method == "tasks/result" and task is not None:
        return answer(rpc_id, tool_result(text, task["id"]))
    if method == "tasks/list":
        owner = request.headers.get("authorization")
        mine = [task_body(task) for task in TASKS.values() if task["owner"] == owner]
        return answer(rpc_id, {"tasks": mine})
    return refuse(rpc_id, -32601, f"Method not found: {method}")


async def seen(request: Request) -> Response:
    return JSONResponse(SEEN)


app = Starlette(
    routes=[
        Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
        Route("/seen", seen, methods=["GET"]),
    ]
)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    uvicorn.run(app, host="127.0.0.1", port=parser.parse_args().port, log_level="warning")
