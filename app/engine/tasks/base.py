"""What every wire adapter shares: listeners, the input broker, progress tokens, background calls.

Each concrete adapter (legacy, extension, none) adds its verbs on top; this base never speaks a
tasks method itself, only a plain synchronous `tools/call` (`call_tool`, which the CLI needs on
every wire).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.engine.forms.input_text import REJECT_CODE, rejection_message
from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import RpcError
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.contract import (
    InputListener,
    ProgressListener,
    StatusListener,
    TasksCapabilities,
    TaskUnknown,
    VerbUnsupported,
)
from app.engine.tasks.kinds import Wire
from app.engine.tasks.normalize import Variants
from app.engine.tasks.parse import task_from_answer

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Progress, Task

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
METHOD_NOT_FOUND = -32601


def task_unknown(error: RpcError, task_id: str, verb: str) -> TaskUnknown | None:
    """The TaskUnknown a JSON-RPC error stands for ("no such task": never existed, expired or
    purged), or None when the error means something else.

    `-32602` is the spec's code; some servers use `-32603` with "not found". A legacy cancel of a
    terminal task is also `-32602` but names the terminal status. On `tasks/result` an error may be
    the task's own outcome, so only a message about a missing or expired task counts there.
    """
    text = error.message.lower()
    missing = "not found" in text or "expired" in text
    if verb == "tasks/result":
        unknown = error.code in (INVALID_PARAMS, INTERNAL_ERROR) and "task" in text and missing
    elif error.code == INVALID_PARAMS:
        unknown = not (verb == "tasks/cancel" and "terminal" in text)
    else:
        unknown = error.code == INTERNAL_ERROR and missing
    return TaskUnknown(task_id, f"{verb}: {error.message} ({error.code})") if unknown else None


def same_json(left: Any, right: Any) -> bool:
    """Equal as JSON values, types included (`true` is not `1`, `1` is not `1.0`); walked with
    an explicit stack, since server values may nest deeper than the recursion limit."""
    stack: list[tuple[Any, Any]] = [(left, right)]
    while stack:
        a, b = stack.pop()
        if a is b:
            continue
        kind = type(a)
        if kind is not type(b):
            return False
        if kind is dict:
            if len(a) != len(b):
                return False
            for key, value in a.items():
                if key not in b:
                    return False
                stack.append((value, b[key]))
        elif kind is list:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif a != b:
            return False
    return True


class _NoteLog(Variants):
    """Variants that also remembers what it was told, so a reused answer can tell it again."""

    def __init__(self, variants: Variants) -> None:
        super().__init__()
        self.inner = variants
        self.notes: list[str] = []

    def note(self, variant: str) -> None:
        self.notes.append(variant)
        self.inner.note(variant)


@dataclass(slots=True)
class _Answer:
    payload: dict[str, Any]
    notes: tuple[str, ...]
    task: Task
    decorated: Task | None = None


class TaskMemo:
    """The last `tasks/get` answer of each live task and the Tasks made from it.

    Most polls bring back exactly the previous answer; then the very same normalized (and, when
    nothing the adapter adds has changed either, decorated) `Task` object is handed out again,
    without validating the models anew, so everything downstream can tell "unchanged" by identity.
    A terminal task's answer is not kept (it is not polled again).
    """

    def __init__(self) -> None:
        self._answers: dict[str, _Answer] = {}

    def task(self, payload: Any, *, wire: Wire, task_id: str, variants: Variants) -> Task:
        """`task_from_answer(payload, …)`, reused when `payload` equals the task's last answer
        (the wire variants it showed are noted again, as a fresh normalization would)."""
        last = self._answers.get(task_id)
        if last is not None and same_json(last.payload, payload):
            for note in last.notes:
                variants.note(note)
            return last.task
        log = _NoteLog(variants)
        task = task_from_answer(payload, wire=wire, task_id=task_id, variants=log)
        if task.is_terminal or not isinstance(payload, dict):
            self._answers.pop(task_id, None)
        else:
            self._answers[task_id] = _Answer(payload, tuple(log.notes), task)
        return task

    def decorated(self, task: Task, update: dict[str, Any]) -> Task:
        """`task.model_copy(update=update)`, or the copy handed out last time when `task` is the
        same object and every updated field already has that value."""
        last = self._answers.get(task.task_id)
        if last is None or last.task is not task:
            return task.model_copy(update=update)
        decorated = last.decorated
        if decorated is None or any(getattr(decorated, k) != v for k, v in update.items()):
            decorated = last.decorated = task.model_copy(update=update)
        return decorated


class AdapterBase:
    """Shared state of one adapter on one connection."""

    capabilities: TasksCapabilities

    def __init__(
        self,
        connection: Connection,
        capabilities: TasksCapabilities,
        broker: InputBroker | None = None,
    ) -> None:
        self.connection = connection
        self.capabilities = capabilities
        self.variants = Variants()
        """Which tolerated wire variants this server has shown (for display)."""
        self.broker = broker if broker is not None else InputBroker()
        """Pending questions; a reconnect hands the same broker to the next adapter."""
        self._progress_listeners: list[ProgressListener] = []
        self._status_listeners: list[StatusListener] = []
        self._issued_tokens: set[str] = set()
        self._token_tasks: dict[str, str] = {}
        self._task_tokens: dict[str, str] = {}
        self._progress: dict[str, Progress] = {}
        """The latest progress per token (it may arrive before the task's id is known)."""
        self._background: set[asyncio.Task[Any]] = set()
        self.tools: dict[str, str] = {}
        """The tool each task was created with, or adopted under from an earlier run (`tasks/get`
        omits it): the one owner of a task's tool; a reconnect hands it to the next adapter."""
        self._memo = TaskMemo()
        """The last answer per polled task, so an unchanged one is not normalized again."""
        connection.add_notification_handler(self._on_notification)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call a tool synchronously (no task requested) and return its raw result."""
        params = {"name": name, "arguments": arguments}
        return await self.connection.request("tools/call", params, declare_tasks=False)

    def pending_inputs(self) -> list[InputRequest]:
        """Every question still waiting for an answer, from every task (and task-less calls)."""
        return self.broker.pending()

    async def reject(
        self, request: InputRequest, *, code: int = REJECT_CODE, message: str | None = None
    ) -> bool:
        """Answer a pending legacy server request with a JSON-RPC error instead of a result.

        Only a real server-to-client request (legacy wire) can get an error reply. An extension
        `inputRequests` entry or an MRTR round has none: it is left pending and False returned.
        Raises `InputNotPending` when the request is not waiting.
        """
        if request.wire != "legacy":
            return False
        error = RpcError(code, message if message is not None else rejection_message(request))
        self.broker.reject(request, error)
        return True

    def on_input(self, listener: InputListener) -> None:
        self.broker.add_listener(listener)

    def on_progress(self, listener: ProgressListener) -> None:
        self._progress_listeners.append(listener)

    def on_status(self, listener: StatusListener) -> None:
        self._status_listeners.append(listener)

    async def close(self) -> None:
        """Stop background calls (result streams, listen streams) this adapter started."""
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _decorate(self, task: Task) -> Task:
        """The task with what this adapter knows beyond the payload (`_decoration`)."""
        return task.model_copy(update=self._decoration(task))

    def _decoration(self, task: Task) -> dict[str, Any]:
        """The fields this adapter adds to a parsed task (each wire's adapter adds more): the
        tool the payload names, else the one the task was created with."""
        return {"tool_name": task.tool_name or self.tools.get(task.task_id)}

    def _unsupported(self, verb: str) -> VerbUnsupported:
        return VerbUnsupported(verb, self.capabilities.wire)

    def _progress_token(self) -> str:
        token = f"taskscope-{uuid.uuid4().hex[:16]}"
        self._issued_tokens.add(token)
        return token

    def _bind_token(self, token: str, task_id: str) -> None:
        self._token_tasks[token] = task_id
        self._task_tokens[task_id] = token

    def _latest_progress(self, task_id: str) -> Progress | None:
        token = self._task_tokens.get(task_id)
        return None if token is None else self._progress.get(token)

    def _spawn(self, coroutine: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run a coroutine in the background, keeping a reference until it ends."""
        task = asyncio.create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._background_done)
        return task

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("background %s ended with %r", task.get_name(), task.exception())

    def _status_methods(self) -> frozenset[str]:
        """The notification methods that carry a task's status on this wire."""
        return frozenset()

    def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/progress":
            self._on_progress(params)
        elif method in self._status_methods():
            for listener in list(self._status_listeners):
                try:
                    listener(params)
                except Exception:
                    log.exception("status listener failed")

    def _on_progress(self, params: dict[str, Any]) -> None:
        token = str(params.get("progressToken"))
        progress = params.get("progress")
        if token not in self._issued_tokens or not isinstance(progress, int | float):
            return
        if isinstance(progress, bool):
            return
        total = params.get("total")
        message = params.get("message")
        from app.engine.tasks.models import Progress  # pydantic loads with the first task

        self._progress[token] = Progress(
            progress=progress,
            total=total if _is_number(total) else None,
            message=message if isinstance(message, str) else None,
        )
        task_id = self._token_tasks.get(token)
        if task_id is None:
            return
        for listener in list(self._progress_listeners):
            try:
                listener(task_id, params)
            except Exception:
                log.exception("progress listener failed")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
