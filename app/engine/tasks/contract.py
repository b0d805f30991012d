"""The contract every wire adapter fulfils, so the poller, CLI and TUI never branch on the wire."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from app.engine.forms.input_text import REJECT_CODE

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task

WireName = Literal["legacy", "extension", "none"]


@dataclass(frozen=True, slots=True)
class TasksCapabilities:
    """The resolved tasks wire of one connection and the verbs the server declared."""

    wire: WireName
    tool_calls: bool = False
    list: bool = False
    cancel: bool = False
    update: bool = False
    inline_result: bool = False
    assumed: tuple[str, ...] = ()
    """Declarations the server left out that the user's `--wire` asserted, e.g.
    `tasks.requests.tools.call` (the verbs above count them as declared)."""

    def as_json(self) -> dict[str, Any]:
        declared: dict[str, Any] = {
            "wire": self.wire,
            "toolCalls": self.tool_calls,
            "list": self.list,
            "cancel": self.cancel,
            "update": self.update,
            "inlineResult": self.inline_result,
        }
        if self.assumed:
            declared["assumed"] = list(self.assumed)
        return declared


@dataclass(frozen=True, slots=True)
class CreateOutcome:
    """What a `tools/call` produced: a task, or a synchronous tool result (never both)."""

    task: Task | None
    sync_result: dict[str, Any] | None
    raw: dict[str, Any]


InputListener = Callable[["InputRequest"], None]
"""Called (on the event loop) when a server asks for input outside a poll: legacy
`elicitation/create`, `sampling/createMessage` and `roots/list` requests."""

ProgressListener = Callable[[str, dict[str, Any]], None]
"""Called with (task id, progress params) when `notifications/progress` arrives for a task."""

StatusListener = Callable[[dict[str, Any]], None]
"""Called with the raw task params of a status notification (legacy `notifications/tasks/status`,
extension `notifications/tasks`); the poller treats it as a hint."""


class TasksAdapter(Protocol):
    """Drives tasks on one wire over one connection; returns normalized models only.

    Errors: JSON-RPC errors raise `app.engine.rpc.rpc_types.RpcError`, transport failures
    `TransportError`, shapes the protocol forbids `app.engine.tasks.models.ProtocolViolation`,
    an unknown or expired task `TaskUnknown`, a verb the server never declared
    `VerbUnsupported` (raised before anything is sent).
    """

    capabilities: TasksCapabilities

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None = None
    ) -> CreateOutcome: ...

    async def get(self, task_id: str, *, reason: str = "poll") -> Task: ...

    async def list_tasks(self) -> list[Task]: ...

    async def fetch_result(self, task_id: str) -> dict[str, Any]: ...

    async def cancel(self, task_id: str) -> Task | None: ...

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None: ...

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None: ...

    async def reject(
        self, request: InputRequest, *, code: int = REJECT_CODE, message: str | None = None
    ) -> bool:
        """Decline a pending server request with a JSON-RPC error (default message from
        `input_text.rejection_message`). False, with the request left pending, where the wire
        has no error reply (extension `inputRequests`, MRTR rounds)."""
        ...

    def pending_inputs(self) -> list[InputRequest]: ...

    def on_input(self, listener: InputListener) -> None: ...

    def on_progress(self, listener: ProgressListener) -> None: ...

    def on_status(self, listener: StatusListener) -> None: ...

    async def start_listening(self, task_ids: list[str]) -> bool: ...


class TaskUnknown(Exception):
    """The server does not know the task (never existed, expired or purged)."""

    def __init__(self, task_id: str, detail: str) -> None:
        super().__init__(f"task {task_id}: {detail}")
        self.task_id = task_id
        self.detail = detail


class VerbUnsupported(Exception):
    """The server never declared this tasks verb; nothing was sent."""

    def __init__(self, verb: str, wire: WireName) -> None:
        super().__init__(f"{verb} is not supported on the {wire} wire of this server")
        self.verb = verb
        self.wire = wire
