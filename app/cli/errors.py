"""Turns engine exceptions into the CLI's error codes, with the hint a user needs to act on them."""

from __future__ import annotations

from typing import Any

from app.cli.output import (
    CONNECTION_FAILED,
    LIST_TOO_LONG,
    PROTOCOL_VIOLATION,
    READONLY,
    RPC_ERROR,
    TASK_UNKNOWN_OR_EXPIRED,
    TASKS_UNSUPPORTED,
    TOOL_UNUSABLE,
    CliError,
)
from app.engine.rpc.guard import ReadOnlyRefused
from app.engine.rpc.paging import ListingTooLong
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.tool_headers import ToolUnusable
from app.engine.rpc.transports.base import TransportError
from app.engine.tasks.contract import TaskUnknown, VerbUnsupported
from app.engine.tasks.protocol_keys import TASKS_EXTENSION

LEGACY_SESSION_HINT = (
    "legacy-wire tasks are bound to the session that created them, so a new connection cannot "
    "see them: create and watch on one connection with `taskscope tools call --tool-name N "
    "--task --task-watch`"
)
MISSING_EXTENSION_CODES = frozenset({-32021, -32003})
BODY_EXCERPT = 500


def unknown_task_error(task_id: str, detail: str, wire: str) -> CliError:
    """TASK_UNKNOWN_OR_EXPIRED, with the session-binding explanation on the legacy wire."""
    details: dict[str, Any] = {"taskId": task_id, "server": detail}
    if wire == "legacy":
        details["hint"] = LEGACY_SESSION_HINT
    return CliError(TASK_UNKNOWN_OR_EXPIRED, f"task {task_id} is unknown or expired", details)


def is_not_found(error: RpcError) -> bool:
    """A JSON-RPC error that means "no such task" (-32602, or -32603 saying "not found")."""
    text = error.message.lower()
    return error.code in (-32602, -32603) and ("not found" in text or "expired" in text)


def cli_error(exc: BaseException, *, wire: str = "none", task_id: str | None = None) -> CliError:
    """The CliError that reports `exc`; unexpected exceptions are re-raised."""
    if isinstance(exc, CliError):
        return exc
    if isinstance(exc, TaskUnknown):
        return unknown_task_error(exc.task_id, exc.detail, wire)
    if isinstance(exc, ToolUnusable):
        return CliError(
            TOOL_UNUSABLE, str(exc), {"tool": exc.tool, "reason": exc.reason, "sent": False}
        )
    if isinstance(exc, ReadOnlyRefused):
        return CliError(
            READONLY, str(exc), {"verb": exc.verb, "taskId": exc.task_id, "sent": False}
        )
    if isinstance(exc, VerbUnsupported):
        return CliError(
            TASKS_UNSUPPORTED,
            str(exc),
            {"verb": exc.verb, "wire": exc.wire, "sent": False},
        )
    if isinstance(exc, ListingTooLong):
        return CliError(
            LIST_TOO_LONG,
            str(exc),
            {"method": exc.method, "pages": exc.pages, "characters": exc.chars},
        )
    if isinstance(exc, RpcError):
        if task_id is not None and is_not_found(exc):
            return unknown_task_error(task_id, exc.message, wire)
        return rpc_error(exc)
    if isinstance(exc, TransportError):
        details: dict[str, Any] = {"kind": exc.kind}
        if exc.http_status is not None:
            details["httpStatus"] = exc.http_status
        if exc.retry_after is not None:
            details["retryAfter"] = exc.retry_after
        if exc.body:
            details["body"] = exc.body[:BODY_EXCERPT]
        return CliError(CONNECTION_FAILED, exc.message or str(exc), details)
    from app.engine.tasks.models import ProtocolViolation  # pydantic: loaded only for what is left

    if isinstance(exc, ProtocolViolation):
        return CliError(PROTOCOL_VIOLATION, exc.reason, {"frame": exc.frame})
    raise exc


def rpc_error(exc: RpcError) -> CliError:
    """A JSON-RPC error answer; a missing tasks extension is named so the user can fix it."""
    details: dict[str, Any] = {"code": exc.code, "data": exc.data}
    if exc.http_status is not None:
        details["httpStatus"] = exc.http_status
    if exc.code in MISSING_EXTENSION_CODES:
        details["hint"] = (
            f"the server needs the {TASKS_EXTENSION} extension for this request: "
            "call the tool with --task"
        )
    return CliError(RPC_ERROR, f"the server answered with an error: {exc.message}", details)
