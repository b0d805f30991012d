"""The extension's push channel for the poller: one `subscriptions/listen` stream covering every
watched task, reopened when the set of watched tasks changes, given up for good once refused."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from app.engine.tasks.contract import TasksAdapter

log = logging.getLogger(__name__)


class ListenStream:
    """Asks the adapter to listen for the watched tasks; polling alone goes on if it cannot."""

    def __init__(self, adapter: TasksAdapter, watched_ids: Callable[[], list[str]]) -> None:
        self._adapter = adapter
        self._watched_ids = watched_ids
        self._job: asyncio.Task[None] | None = None
        self._dirty = False
        self._off = adapter.capabilities.wire != "extension"

    def request(self) -> None:
        """Ask for one stream covering the watched tasks (extension only)."""
        if self._off:
            return
        self._dirty = True
        if self._job is None or self._job.done():
            self._job = asyncio.get_running_loop().create_task(self._listen())

    def detach(self) -> list[asyncio.Task[None]]:
        """The running listen job, if any, handed over to be cancelled with the poll jobs."""
        job, self._job = self._job, None
        return [job] if job is not None else []

    async def _listen(self) -> None:
        while self._dirty and not self._off:
            self._dirty = False
            task_ids = self._watched_ids()
            if not task_ids:
                return
            try:
                accepted = await self._adapter.start_listening(task_ids)
            except Exception:
                log.warning("subscriptions/listen failed; polling only", exc_info=True)
                accepted = False
            if not accepted:
                self._off = True
