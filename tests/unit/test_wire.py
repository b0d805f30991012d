"""The tasks wire chosen for a connection, per protocol reference §3.3 (a table of cases)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.wire import resolve_capabilities, under_declared_tool_calls

EXT = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
FULL_LEGACY = {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
NONE = TasksCapabilities(wire="none")
EXTENSION = TasksCapabilities(
    wire="extension", tool_calls=True, cancel=True, update=True, inline_result=True
)


@dataclass(frozen=True)
class Info:
    protocol_version: str
    capabilities: dict[str, Any] = field(default_factory=dict)


@pytest.mark.parametrize(
    ("version", "capabilities", "expected"),
    [
        (
            "2025-11-25",
            FULL_LEGACY,
            TasksCapabilities(wire="legacy", tool_calls=True, list=True, cancel=True),
        ),
        (
            "2025-11-25",
            {"tasks": {"requests": {"tools": {"call": {}}}}},
            TasksCapabilities(wire="legacy", tool_calls=True),
        ),
        ("2025-11-25", {"tasks": {"list": {}}}, TasksCapabilities(wire="legacy", list=True)),
        ("2025-11-25", {"tasks": {"cancel": {}}}, TasksCapabilities(wire="legacy", cancel=True)),
        ("2025-11-25", {"tasks": {}}, NONE),
        ("2025-11-25", {"tasks": {"requests": {"sampling": {"createMessage": {}}}}}, NONE),
        ("2025-11-25", {"tasks": {"list": True}}, NONE),
        ("2025-11-25", {"tasks": "yes"}, NONE),
        ("2025-11-25", {}, NONE),
        ("2025-11-25", EXT, NONE),  # the extension is not defined under 2025-11-25
        ("2025-06-18", FULL_LEGACY, NONE),  # older legacy versions have no tasks
        ("2025-03-26", FULL_LEGACY, NONE),
        ("2026-07-28", EXT, EXTENSION),
        ("2026-07-28", {"tools": {}, **EXT}, EXTENSION),
        ("2027-01-01", EXT, EXTENSION),  # a later revision still carries the extension
        ("2026-07-28", FULL_LEGACY, NONE),  # a legacy slot on a modern version is ignored
        ("2026-07-28", {**FULL_LEGACY, **EXT}, EXTENSION),
        ("2026-07-28", {"extensions": {"io.modelcontextprotocol/tasks": True}}, NONE),
        ("2026-07-28", {"extensions": {"other/ext": {}}}, NONE),
        ("2026-07-28", {}, NONE),
        ("DRAFT-2026-v1", EXT, NONE),
    ],
)
def test_wire_table(
    version: str, capabilities: dict[str, Any], expected: TasksCapabilities
) -> None:
    assert resolve_capabilities(Info(version, capabilities)) == expected


def test_as_json_names_every_verb() -> None:
    caps = resolve_capabilities(Info("2025-11-25", FULL_LEGACY))
    assert caps.as_json() == {
        "wire": "legacy",
        "toolCalls": True,
        "list": True,
        "cancel": True,
        "update": False,
        "inlineResult": False,
    }


UNDER_DECLARED = {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {}}}}
"""The Python SDK 1.23-1.26 declaration: `tasks.requests.tools` without `call`."""


def test_an_under_declared_tool_call_stays_undeclared_without_an_assertion() -> None:
    caps = resolve_capabilities(Info("2025-11-25", UNDER_DECLARED))
    assert (caps.tool_calls, caps.assumed) == (False, ())
    assert resolve_capabilities(Info("2025-11-25", UNDER_DECLARED), "extension") == caps


def test_wire_legacy_assumes_the_missing_tool_call_declaration() -> None:
    caps = resolve_capabilities(Info("2025-11-25", UNDER_DECLARED), "legacy")
    assert caps == TasksCapabilities(
        wire="legacy",
        tool_calls=True,
        list=True,
        cancel=True,
        assumed=("tasks.requests.tools.call",),
    )
    assert caps.as_json()["assumed"] == ["tasks.requests.tools.call"]


@pytest.mark.parametrize(
    ("version", "capabilities"),
    [
        ("2025-11-25", FULL_LEGACY),  # declared: nothing to assume
        ("2025-11-25", {"tasks": {"list": {}}}),  # no tools object: nothing was under-declared
        ("2026-07-28", UNDER_DECLARED),  # not a legacy connection
    ],
)
def test_wire_legacy_assumes_nothing_else(version: str, capabilities: dict[str, Any]) -> None:
    assert resolve_capabilities(Info(version, capabilities), "legacy").assumed == ()


@pytest.mark.parametrize(
    ("version", "capabilities", "under"),
    [
        ("2025-11-25", UNDER_DECLARED, True),
        ("2025-11-25", FULL_LEGACY, False),
        ("2025-11-25", {"tasks": {"list": {}}}, False),  # no tools object: nothing to name
        ("2025-11-25", {"tasks": {"requests": {"tools": {"call": None}}}}, True),
        ("2026-07-28", UNDER_DECLARED, False),
        ("2025-11-25", {}, False),
    ],
)
def test_the_refusal_names_the_missing_declaration_only_where_it_is_missing(
    version: str, capabilities: dict[str, Any], under: bool
) -> None:
    assert under_declared_tool_calls(Info(version, capabilities)) is under
