"""Well-known protocol names (the tasks extension id, the related-task `_meta` key) in a module
with no imports, so the connection and the wire decision can use them without loading pydantic."""

from __future__ import annotations

RELATED_TASK_META = "io.modelcontextprotocol/related-task"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
