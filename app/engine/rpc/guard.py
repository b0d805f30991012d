"""The refusal of read-only mode: what a mutating verb raises, before anything is sent, under
`--readonly` (the gate itself is `SessionAdapter`, which every verb of both faces goes through)."""

from __future__ import annotations


class ReadOnlyRefused(Exception):
    """A mutating verb was refused because the session is read-only; nothing was sent."""

    def __init__(self, verb: str, task_id: str | None = None) -> None:
        target = f" for task {task_id}" if task_id else ""
        super().__init__(f"read-only mode: {verb}{target} refused; nothing was sent")
        self.verb = verb
        self.task_id = task_id
