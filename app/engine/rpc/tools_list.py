"""Every tool a server lists, each with why it cannot be called (if so).

The one reader of `tools/list` for both faces: `taskscope tools list` prints it, the TUI's tool
picker shows it. Pure async over anything that lists tools and judges them (the engine session);
it imports nothing heavy, so the cheap headless verbs may use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class ToolLister(Protocol):
    """What listing tools needs: every page of `tools/list`, and each tool's SEP-2243 verdict."""

    async def list_tools(self, *, reason: str = "user") -> list[dict[str, Any]]: ...

    def tool_problem(self, name: str) -> str | None: ...


@dataclass(frozen=True, slots=True)
class ListedTool:
    """One `tools/list` entry as the server sent it, and why it cannot be called (or None)."""

    tool: dict[str, Any]
    problem: str | None


async def list_tools(lister: ToolLister) -> list[ListedTool]:
    """Every page of `tools/list`, each tool judged once all pages (and so every tool's header
    annotations) are known; a tool without a string name has no verdict."""
    listed: list[ListedTool] = []
    for tool in await lister.list_tools():
        name = tool.get("name")
        listed.append(
            ListedTool(tool, lister.tool_problem(name) if isinstance(name, str) else None)
        )
    return listed
