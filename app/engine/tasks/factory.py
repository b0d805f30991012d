"""Wire adapters: one object per connection that speaks its tasks wire (legacy, extension or none).

`make_adapter` reads what the server declared (`wire.resolve_capabilities`) and returns the
matching adapter; every adapter also offers a plain synchronous `call_tool` and `close`.
"""

from __future__ import annotations

from typing import Any, Protocol

from app.engine.rpc.connection import Connection
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.contract import TasksAdapter
from app.engine.tasks.extension import ExtensionAdapter
from app.engine.tasks.legacy import LegacyAdapter
from app.engine.tasks.normalize import Variants
from app.engine.tasks.unsupported import NoTasksAdapter
from app.engine.tasks.wire import resolve_capabilities

__all__ = [
    "ExtensionAdapter",
    "LegacyAdapter",
    "NoTasksAdapter",
    "WireAdapter",
    "make_adapter",
]


class WireAdapter(TasksAdapter, Protocol):
    """A TasksAdapter plus what every concrete adapter offers on top."""

    variants: Variants
    broker: InputBroker
    tools: dict[str, str]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...

    async def close(self) -> None: ...


def make_adapter(
    connection: Connection, broker: InputBroker | None = None, asserted: str | None = None
) -> WireAdapter:
    """The adapter for an open connection's tasks wire; "none" refuses every tasks verb.

    Pass the previous adapter's `broker` when reconnecting, so unacknowledged answers survive,
    and the user's `--wire` as `asserted` (see `resolve_capabilities`).
    """
    capabilities = resolve_capabilities(connection.info, asserted)
    if capabilities.wire == "legacy":
        return LegacyAdapter(connection, capabilities, broker)
    if capabilities.wire == "extension":
        return ExtensionAdapter(connection, capabilities, broker)
    return NoTasksAdapter(connection, capabilities, broker)
