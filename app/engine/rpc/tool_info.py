"""One tool as `tools/list` describes it, read leniently from the wire for the picker and forms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

TaskSupport = Literal["forbidden", "optional", "required"]


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool from `tools/list`: what the picker and the arguments form need."""

    name: str
    description: str
    input_schema: dict[str, Any]
    task_support: TaskSupport | None
    """Legacy `execution.taskSupport` (absent means forbidden); None on the extension wire."""
    unusable: str | None = None
    """Why the tool cannot be called (invalid SEP-2243 `x-mcp-header` annotations), if so."""

    @classmethod
    def from_wire(
        cls, tool: dict[str, Any], *, legacy: bool, unusable: str | None = None
    ) -> ToolInfo:
        """Read one `tools/list` entry leniently (missing fields become empty)."""
        schema = tool.get("inputSchema")
        execution = tool.get("execution")
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        task_support: TaskSupport | None = None
        if legacy:
            task_support = support if support in ("optional", "required") else "forbidden"
        description = tool.get("description")
        return cls(
            name=str(tool.get("name", "")),
            description=description if isinstance(description, str) else "",
            input_schema=schema if isinstance(schema, dict) else {"type": "object"},
            task_support=task_support,
            unusable=unusable,
        )
