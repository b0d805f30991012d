"""What leaves the hostile server: each frame about to be sent as an `Exchange` the active modes
may perturb in place, and what the transport is then told to do (`Outgoing`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from app.demo.hostile_bodies import TaskRecord

if TYPE_CHECKING:
    from app.demo.hostile_core import HostileServer

Action = Literal["send", "silence", "drop", "kill", "orphan"]


@dataclass
class Outgoing:
    """One thing for the transport to do: send a frame (or raw bytes), stay silent, drop, die
    (`orphan`: die leaving a child process that holds the server's pipes open).

    `route` is the id of the client request this belongs to (HTTP answers it on that POST);
    `final` marks the answer to that request.
    """

    message: dict[str, Any] | None = None
    raw: bytes | None = None
    route: str | int | None = None
    final: bool = False
    http_status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    action: Action = "send"

    def encode(self) -> bytes:
        """The bytes of the frame (no trailing newline)."""
        if self.raw is not None:
            return self.raw
        return json.dumps(self.message, ensure_ascii=False).encode("utf-8", "surrogatepass")


@dataclass
class Exchange:
    """A frame about to leave, which each mode may perturb in place.

    `kind` is "reply" for the answer to `request`, "push" for a server-initiated message.
    `splices` maps a placeholder string (as it appears in the JSON text, quotes included) to the
    raw bytes that replace it, for content `json.dumps` cannot produce (invalid UTF-8, deep JSON).
    """

    server: HostileServer
    kind: Literal["reply", "push"]
    method: str
    request: dict[str, Any] | None
    message: dict[str, Any]
    task: TaskRecord | None = None
    poll: int = 0
    before: list[Outgoing] = field(default_factory=list)
    after: list[Outgoing] = field(default_factory=list)
    splices: dict[str, bytes] = field(default_factory=dict)
    raw: bytes | None = None
    """Replaces the whole frame (e.g. a plain-text HTTP error body)."""
    http_status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    action: Action = "send"

    @property
    def result(self) -> dict[str, Any] | None:
        """The `result` object of a success reply (None for errors and pushes)."""
        value = self.message.get("result")
        return value if isinstance(value, dict) else None

    @property
    def route(self) -> str | int | None:
        rpc_id = self.request.get("id") if self.request else None
        return rpc_id if isinstance(rpc_id, str | int) else None

    @property
    def is_task_get(self) -> bool:
        """A success reply to `tasks/get`."""
        return self.kind == "reply" and self.method == "tasks/get" and self.result is not None

    def task_fields(self) -> dict[str, Any] | None:
        """The task object inside the frame (flat answer, nested create, or a status
        notification)."""
        body = self.message.get("result") if self.kind == "reply" else self.message.get("params")
        if not isinstance(body, dict):
            return None
        nested = body.get("task")
        return nested if isinstance(nested, dict) else body

    def outgoing(self) -> list[Outgoing]:
        """What the transport should do, in order."""
        raw = self.raw
        if raw is None and self.splices:
            text = json.dumps(self.message, ensure_ascii=False).encode("utf-8", "surrogatepass")
            for placeholder, replacement in self.splices.items():
                text = text.replace(
                    json.dumps(placeholder, ensure_ascii=False).encode(), replacement
                )
            raw = text
        main = Outgoing(
            message=self.message,
            raw=raw,
            route=self.route,
            final=self.kind == "reply",
            http_status=self.http_status,
            headers=self.headers,
            action=self.action,
        )
        return [*self.before, main, *self.after]


Perturb = Callable[[Exchange], None]
Sink = Callable[[Outgoing], None]
