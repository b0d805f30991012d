"""The adapter for a connection without a tasks wire: every tasks verb refuses before sending.

Tools can still be called synchronously through `call_tool`.
"""

from __future__ import annotations

from typing import Any

from app.engine.adapter import CreateOutcome
from app.engine.adapters.base import AdapterBase
from app.engine.models import InputRequest, Task


class NoTasksAdapter(AdapterBase):
    """A server that declared no tasks wire this connection can speak."""

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None = None
    ) -> CreateOutcome:
        raise self._unsupported("tools/call as a task")

    async def get(self, task_id: str, *, reason: str = "poll") -> Task:
        raise self._unsupported("tasks/get")

    async def list_tasks(self) -> list[Task]:
        raise self._unsupported("tasks/list")

    async def fetch_result(self, task_id: str) -> dict[str, Any]:
        raise self._unsupported("tasks/result")

    async def cancel(self, task_id: str) -> Task | None:
        raise self._unsupported("tasks/cancel")

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        raise self._unsupported("answering task input")

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        raise self._unsupported("answering task input")

    async def start_listening(self, task_ids: list[str]) -> bool:
        """Nothing to listen to without a tasks wire."""
        return False
