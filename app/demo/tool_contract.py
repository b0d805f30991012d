"""What a demo tool is and what its job may do, written once for both wires.

Each tool is a plain async job that talks to its caller only through `JobContext`: status messages,
progress, and questions (elicitation, sampling, roots). The legacy server implements the context
with task status, `notifications/progress` and server-to-client requests; the extension server with
`statusMessage` and `inputRequests`. The jobs themselves never know which wire they run on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

TaskSupport = Literal["forbidden", "optional", "required"]


class ToolFailure(Exception):
    """A protocol-level failure (a JSON-RPC error), as opposed to a tool error (`isError`)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class JobContext(Protocol):
    """What a running job may do; each wire's server implements it."""

    async def status(self, message: str) -> None:
        """Set the task's status message."""

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        """Report progress (shown on the legacy wire; the extension has no task progress)."""

    async def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Ask every request at once (`{key: {"method", "params"}}`); return `{key: response}`."""

    async def sleep(self, seconds: float) -> None:
        """Sleep for a span of demo time (scaled by the server's speed setting)."""


Job = Callable[[JobContext, dict[str, Any]], Awaitable[dict[str, Any]]]


def text_result(text: str, *, is_error: bool = False, **extra: Any) -> dict[str, Any]:
    """A `CallToolResult` with one text block."""
    return {"content": [{"type": "text", "text": text}], "isError": is_error, **extra}


def elicit(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A form-mode `elicitation/create` request body."""
    return {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema},
    }


@dataclass(frozen=True)
class DemoTool:
    """One demo tool: its listing and its job."""

    name: str
    description: str
    input_schema: dict[str, Any]
    job: Job
    legacy_task_support: TaskSupport = "optional"
    output_schema: dict[str, Any] | None = None
    extension_only: bool = False
    legacy_only: bool = False
    answers_synchronously: Callable[[dict[str, Any]], bool] | None = None
    """Extension wire: when this returns True the server answers without creating a task."""
    extension_task_support: TaskSupport = "optional"
    """Extension wire: `forbidden` always answers at once, `optional` becomes a task when the
    request declares the extension, `required` answers `-32021` to a request that does not."""
    asks_before_task: bool = False
    """Extension wire: the job's questions before its first pause are asked synchronously (MRTR
    `InputRequiredResult` rounds); only once they are answered does the call become a task."""


def missing_capability(
    requests: dict[str, dict[str, Any]], capabilities: dict[str, Any]
) -> dict[str, Any] | None:
    """The client capability the requests need but `capabilities` (a declared `ClientCapabilities`
    object) lacks, as a `ClientCapabilities` fragment (e.g. `{"elicitation": {"url": {}}}`), or
    None when the client may be asked. `elicitation: {}` means form mode only (2025-11-25)."""
    for request in requests.values():
        method = request.get("method")
        params = request.get("params") or {}
        if method == "elicitation/create":
            declared = capabilities.get("elicitation")
            if not isinstance(declared, dict):
                return {"elicitation": {}}
            if params.get("mode") == "url" and "url" not in declared:
                return {"elicitation": {"url": {}}}
            if params.get("mode", "form") == "form" and declared and "form" not in declared:
                return {"elicitation": {"form": {}}}
        elif method == "sampling/createMessage" and "sampling" not in capabilities:
            return {"sampling": {}}
        elif method == "roots/list" and "roots" not in capabilities:
            return {"roots": {}}
    return None


async def scaled_sleep(seconds: float, speed: float) -> None:
    """Sleep `seconds` of demo time; `speed` > 1 makes demos and tests faster."""
    await asyncio.sleep(seconds / max(speed, 0.001))
