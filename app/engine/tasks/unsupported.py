"""The adapter for a connection without a tasks wire: every tasks verb refuses before sending.

Tools can still be called synchronously through `call_tool`, and the questions a tool asks on the
way are put to the user: server requests on the legacy era, MRTR rounds on the modern era.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine.rpc.connection import Connection
from app.engine.tasks.base import AdapterBase
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.contract import CreateOutcome, TasksCapabilities
from app.engine.tasks.mrtr import call_with_rounds
from app.engine.tasks.questions import ServerQuestions

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task


class NoTasksAdapter(AdapterBase):
    """A server that declared no tasks wire this connection can speak."""

    def __init__(
        self,
        connection: Connection,
        capabilities: TasksCapabilities,
        broker: InputBroker | None = None,
    ) -> None:
        super().__init__(connection, capabilities, broker)
        legacy_era = connection.info.era == "legacy"
        self._questions = ServerQuestions(connection, self.broker) if legacy_era else None

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A synchronous call; the tool's questions go through the input broker."""
        if self._questions is not None:
            return await self._questions.call_tool({"name": name, "arguments": arguments}, [])
        payload, _parsed = await call_with_rounds(
            self.connection,
            self.broker,
            self.variants,
            name,
            arguments,
            progress_token=self._progress_token(),
            declare_tasks=False,
        )
        return payload

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
        """Answer a question a synchronous `call_tool` is waiting on."""
        self.broker.resolve(request, response)

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        raise self._unsupported("answering task input")

    async def start_listening(self, task_ids: list[str]) -> bool:
        """Nothing to listen to without a tasks wire."""
        return False
