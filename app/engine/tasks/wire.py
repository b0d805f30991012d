"""Decide which tasks wire a connection speaks, from what the server declared (reference §3.3).

A connection speaks exactly one era, so it has exactly one tasks wire: legacy 2025-11-25 tasks, the
SEP-2663 extension, or none. Advertisements that the negotiated version does not define are ignored.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.protocol_keys import TASKS_EXTENSION

LEGACY_TASKS_VERSION = "2025-11-25"
EXTENSION_MIN_VERSION = "2026-07-28"
_DATE_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
UNDECLARED_TOOL_CALLS = "tasks.requests.tools.call"
"""The declaration the Python SDK 1.23-1.26 leaves out (`tasks.requests.tools: {}`) while it
accepts task-augmented calls."""


class NegotiatedServer(Protocol):
    """The part of `rpc_types.ServerInfo` the wire decision reads."""

    @property
    def protocol_version(self) -> str: ...

    @property
    def capabilities(self) -> dict[str, Any]: ...


def resolve_capabilities(info: NegotiatedServer, asserted: str | None = None) -> TasksCapabilities:
    """The tasks wire and declared verbs for a negotiated server; `wire="none"` when it has none.

    `asserted="legacy"` (the user's `--wire legacy`) counts a legacy `tasks.requests.tools`
    object without `call` as declaring task-augmented calls, named in `assumed`.
    """
    version = info.protocol_version
    capabilities = info.capabilities if isinstance(info.capabilities, dict) else {}
    if version == LEGACY_TASKS_VERSION:
        return _legacy_capabilities(capabilities.get("tasks"), asserted == "legacy")
    if _DATE_VERSION.match(version) and version >= EXTENSION_MIN_VERSION:
        return _extension_capabilities(capabilities.get("extensions"))
    return TasksCapabilities(wire="none")


def _legacy_capabilities(tasks: Any, asserted: bool) -> TasksCapabilities:
    """2025-11-25: any of `tasks.{requests.tools.call, list, cancel}` makes the wire legacy; when
    the user asserted it, `tasks.requests.tools` without `call` counts as `call`."""
    if not isinstance(tasks, dict):
        return TasksCapabilities(wire="none")
    requests = tasks.get("requests")
    tools = requests.get("tools") if isinstance(requests, dict) else None
    tool_calls = isinstance(tools, dict) and _declared(tools.get("call"))
    assumed = asserted and isinstance(tools, dict) and not tool_calls
    tool_calls = tool_calls or assumed
    can_list = _declared(tasks.get("list"))
    can_cancel = _declared(tasks.get("cancel"))
    if not (tool_calls or can_list or can_cancel):
        return TasksCapabilities(wire="none")
    return TasksCapabilities(
        wire="legacy",
        tool_calls=tool_calls,
        list=can_list,
        cancel=can_cancel,
        update=False,
        inline_result=False,
        assumed=(UNDECLARED_TOOL_CALLS,) if assumed else (),
    )


def under_declared_tool_calls(info: NegotiatedServer) -> bool:
    """Whether a 2025-11-25 server declares `tasks.requests.tools` without `call` (the Python SDK
    1.23-1.26 way): task-augmented calls are then undeclared, and `--wire legacy` sends them,
    which is exactly what asserting the legacy wire would have to assume."""
    return bool(resolve_capabilities(info, asserted="legacy").assumed)


def under_declaration_refusal() -> tuple[str, str]:
    """The refusal of an under-declared task and what to do: the message names the missing
    declaration, the hint the assertion that sends the task anyway."""
    return (
        f"the server declares tasks.requests.tools without call: {UNDECLARED_TOOL_CALLS} is "
        "missing, so no task-augmented tools/call was sent (tasks wire: legacy)",
        "if the server accepts tasks anyway (the Python SDK 1.23-1.26 does), add --wire legacy "
        "to send the task",
    )


def assumed_note(missing: str) -> str:
    """What to tell the user when a task is sent on a declaration the server left out."""
    return f"the server does not declare {missing}; sent as a task because --wire legacy says so"


def _extension_capabilities(extensions: Any) -> TasksCapabilities:
    """2026-07-28 and later: `extensions["io.modelcontextprotocol/tasks"]` is an object."""
    if not isinstance(extensions, dict) or not isinstance(extensions.get(TASKS_EXTENSION), dict):
        return TasksCapabilities(wire="none")
    return TasksCapabilities(
        wire="extension",
        tool_calls=True,
        list=False,
        cancel=True,
        update=True,
        inline_result=True,
    )


def _declared(value: Any) -> bool:
    """A capability key counts as declared when it holds an object (`{}` means supported)."""
    return isinstance(value, dict)
