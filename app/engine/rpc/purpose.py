"""Why a frame was sent, in words, for the RPC log's exchange view and `--trace-frames`.

A request's short `reason` ("poll", "stream", "answer", "connect: era probe", …) is set where the
engine sends it; a request the user asked for has the reason "user", and what the user did is
named by the face that asked (the TUI's tool picker, its cancel key) with `sent_for`, a context
variable, so no adapter signature has to carry it. A specific reason always wins over that origin:
a poll or a result stream started while a tool call was being made is still a poll or a stream.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

USER_REASON = "user"

_ORIGIN: ContextVar[str | None] = ContextVar("taskscope_request_origin", default=None)

_PHRASES: dict[str, str] = {
    "poll": "poll{task}, on the poller's schedule",
    "stream": "{method}{task}: the stream its questions and its result arrive on",
    "listen": "{method}: the stream of the server's task notifications",
    "list": "{method}: import the server's tasks",
    "answer": "{method}{task}: the user's answer to its questions",
}


@contextlib.contextmanager
def sent_for(origin: str) -> Iterator[None]:
    """Name what the user did (e.g. "from the tool picker") for the requests sent in the block
    whose reason is "user", including those of tasks started in it."""
    token = _ORIGIN.set(origin)
    try:
        yield
    finally:
        _ORIGIN.reset(token)


def request_purpose(method: str, reason: str, task_id: str | None) -> str:
    """Why a request or notification we send goes out: its reason in words, and for a request
    the user asked for, the origin named by `sent_for` (if any)."""
    task = f" of task {task_id}" if task_id else ""
    phrase = _PHRASES.get(reason)
    if phrase is not None:
        return phrase.format(method=method, task=task)
    if reason.startswith("connect"):
        detail = reason.partition(":")[2].strip()
        return f"{method}: connecting" + (f" ({detail})" if detail else "")
    if reason != USER_REASON:
        return f"{method}{task}: {reason}"
    origin = _ORIGIN.get()
    return f"{method}{task} " + (origin or "asked for by the user")


def answer_purpose(server_method: str, task_id: str | None) -> str:
    """Why we send a response: it answers the server's `server_method` request."""
    task = f" (task {task_id})" if task_id else ""
    return f"answer to the server's {server_method}{task}"


def incoming_purpose(message_kind: str, task_id: str | None) -> str:
    """Why the server sent a request or notification: it is the server's own (`message_kind` is
    "request" or "notification")."""
    task = f" (task {task_id})" if task_id else ""
    return f"the server's own {message_kind}{task}"
