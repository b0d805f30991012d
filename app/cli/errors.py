"""Turns engine exceptions into the CLI's error codes, with the hint a user needs to act on them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from app.engine.rpc.advertised import fragment_names
from app.engine.rpc.guard import ReadOnlyRefused
from app.engine.rpc.paging import ListingTooLong
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.tool_headers import ToolUnusable
from app.engine.rpc.transports.base import TransportError
from app.engine.tasks.contract import TaskUnknown, VerbUnsupported
from app.engine.tasks.protocol_keys import TASKS_EXTENSION

if TYPE_CHECKING:
    from app.engine.rpc.advertised import ClientCapabilities

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


def cli_error(
    exc: BaseException,
    *,
    wire: str = "none",
    task_id: str | None = None,
    advertised: ClientCapabilities | None = None,
) -> CliError:
    """The CliError that reports `exc` (`advertised`: what the session told the server it can
    do, to say so when a refusal is the user's own withholding); unexpected exceptions are
    re-raised."""
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
        return rpc_error(exc, advertised)
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


def rpc_error(exc: RpcError, advertised: ClientCapabilities | None = None) -> CliError:
    """A JSON-RPC error answer; a missing client capability is named (`details.missing`, from the
    server's `data.requiredCapabilities`) with what to do about it."""
    details: dict[str, Any] = {"code": exc.code, "data": exc.data}
    if exc.http_status is not None:
        details["httpStatus"] = exc.http_status
    if exc.code in MISSING_EXTENSION_CODES:
        required = exc.data.get("requiredCapabilities") if isinstance(exc.data, dict) else None
        missing = fragment_names(required)
        if missing:
            details["missing"] = missing
        details["hint"] = missing_capability_hint(required, missing, advertised)
    elif advertised is not None and not advertised.declares_tasks:
        details["hint"] = (
            "this run withheld tasks (--withhold tasks or --client-capabilities): the server "
            "answered a client that asks for no task"
        )
    return CliError(RPC_ERROR, f"the server answered with an error: {exc.message}", details)


def missing_capability_hint(
    required: Any, missing: list[str], advertised: ClientCapabilities | None
) -> str:
    """What to do when the server needs a client capability this run did not declare."""
    if advertised is not None and advertised.withheld_among(required):
        return (
            f"the server needs {', '.join(missing)}, which this run withheld (--withhold or "
            "--client-capabilities): run without that to declare it"
        )
    if missing and TASKS_EXTENSION not in missing:
        return f"the server needs the client capability {', '.join(missing)}"
    return (
        f"the server needs the {TASKS_EXTENSION} extension for this request: "
        "call the tool with --task"
    )
