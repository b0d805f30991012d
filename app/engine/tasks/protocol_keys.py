"""Well-known protocol names (the tasks extension id, the related-task `_meta` key) in a module
with no imports, so the connection and the wire decision can use them without loading pydantic."""

from __future__ import annotations

RELATED_TASK_META = "io.modelcontextprotocol/related-task"
OLD_RELATED_TASK_META = "modelcontextprotocol.io/related-task"
"""The related-task key of servers built before the name settled (FastMCP 2.14)."""
RELATED_TASK_KEYS = (RELATED_TASK_META, OLD_RELATED_TASK_META)
TASK_STUB_KEYS = ("io.modelcontextprotocol/task", "modelcontextprotocol.io/task")
"""Where FastMCP 2.14 puts the created task on a tool result: `_meta[key] = {taskId, status}`."""
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
