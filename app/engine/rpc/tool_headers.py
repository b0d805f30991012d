"""SEP-2243: tool parameters a server asks to see as HTTP headers (`x-mcp-header`).

A property of a tool's `inputSchema` with `"x-mcp-header": "Region"` travels, besides the body,
as `Mcp-Param-Region: <value>` on the `tools/call` POST. A tool whose annotations break the
rules (empty or non-token names, duplicates, non-primitive types) must not be called at all:
`read_tool` says why, and the connection refuses such calls before sending anything.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.engine.rpc.transports.header_values import encode_header_value

ANNOTATION = "x-mcp-header"
HEADER_PREFIX = "Mcp-Param-"
HEADER_TYPES = frozenset({"string", "integer", "boolean"})
TOOLS_REMEMBERED = 10_000
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
"""RFC 9110 `token`: what a header field name may be made of."""


class ToolUnusable(Exception):
    """A `tools/call` refused before sending: the tool's `x-mcp-header` annotations are invalid."""

    def __init__(self, tool: str, reason: str) -> None:
        super().__init__(f"tool {tool!r} cannot be called: {reason}")
        self.tool = tool
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ToolHeaders:
    """One tool's header parameters as (property, header name) pairs, or why it is unusable."""

    params: tuple[tuple[str, str], ...] = ()
    problem: str | None = None

    def for_arguments(self, arguments: Mapping[str, Any]) -> dict[str, str]:
        """The `Mcp-Param-*` headers for a call with `arguments` (null or absent: no header)."""
        headers: dict[str, str] = {}
        for prop, name in self.params:
            value = header_text(arguments.get(prop))
            if value is not None:
                headers[HEADER_PREFIX + name] = value
        return headers


class ToolHeaderBook:
    """The header parameters of every tool seen in a `tools/list` answer (the first
    `TOOLS_REMEMBERED` tools), and whether a whole `tools/list` was read yet."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolHeaders] = {}
        self.listed = False

    def learn(self, result: Mapping[str, Any]) -> None:
        """Read the header parameters of every tool of one `tools/list` page."""
        tools = result.get("tools")
        for tool in tools if isinstance(tools, list) else []:
            name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(name, str) and len(self._tools) < TOOLS_REMEMBERED:
                self._tools[name] = read_tool(tool)

    def knows(self, name: str) -> bool:
        return name in self._tools

    def problem(self, name: str) -> str | None:
        """Why tool `name` must not be called, if it is known and must not."""
        known = self._tools.get(name)
        return known.problem if known is not None else None

    def headers(self, params: Mapping[str, Any]) -> dict[str, str]:
        """The `Mcp-Param-*` headers of a `tools/call` with `params` (none for an unknown tool);
        raises ToolUnusable for a tool whose annotations are invalid."""
        name = params.get("name")
        known = self._tools.get(name) if isinstance(name, str) else None
        if known is None:
            return {}
        if known.problem is not None:
            raise ToolUnusable(str(name), known.problem)
        arguments = params.get("arguments")
        return known.for_arguments(arguments if isinstance(arguments, dict) else {})


def read_tool(tool: Mapping[str, Any]) -> ToolHeaders:
    """The header parameters a `tools/list` entry declares, checked against SEP-2243's rules."""
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return ToolHeaders()
    params: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for prop, field in properties.items():
        if not isinstance(field, dict) or ANNOTATION not in field:
            continue
        name = field[ANNOTATION]
        problem = _name_problem(name) or _type_problem(field.get("type"))
        if problem is None and name.lower() in seen:
            problem = f"header {name!r} is also declared by {seen[name.lower()]!r}"
        if problem is not None:
            return ToolHeaders(problem=f"property {prop!r}: {ANNOTATION} {problem}")
        seen[name.lower()] = str(prop)
        params.append((str(prop), name))
    return ToolHeaders(params=tuple(params))


def header_text(value: Any) -> str | None:
    """A parameter value as header text: `true`/`false`, decimal integers, strings (Base64
    when unsafe); None for null, absent and non-primitive values."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))
    if isinstance(value, str):
        return encode_header_value(value)
    return None


def _name_problem(name: Any) -> str | None:
    if not isinstance(name, str):
        return "is not a string"
    if not name:
        return "is empty"
    if not _TOKEN.match(name):
        return f"{name!r} is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)"
    return None


def _type_problem(declared: Any) -> str | None:
    types = declared if isinstance(declared, list) else [declared]
    named = [t for t in types if t != "null"]
    if named and all(isinstance(t, str) and t in HEADER_TYPES for t in named):
        return None
    shown = declared if declared is not None else "no type"
    return f"is on a property of type {shown!r}; only string, integer and boolean may be headers"
