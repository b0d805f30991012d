"""SEP-2243 `x-mcp-header` rules and encodings (pure logic; the wire is in test_connection_http)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.rpc.tool_headers import header_text, read_tool


def tool(**properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object", "properties": properties}}


def test_a_valid_tool_maps_properties_to_headers() -> None:
    headers = read_tool(
        tool(
            region={"type": "string", "x-mcp-header": "Region"},
            n={"type": ["integer", "null"], "x-mcp-header": "N"},
            plain={"type": "string"},
        )
    )
    assert headers.problem is None
    assert headers.params == (("region", "Region"), ("n", "N"))
    assert headers.for_arguments({"region": "eu", "n": None, "plain": "x"}) == {
        "Mcp-Param-Region": "eu"
    }


@pytest.mark.parametrize(
    ("properties", "why"),
    [
        ({"a": {"type": "string", "x-mcp-header": ""}}, "is empty"),
        ({"a": {"type": "object", "x-mcp-header": "A"}}, "only string, integer and boolean"),
        ({"a": {"type": "array", "x-mcp-header": "A"}}, "only string, integer and boolean"),
        ({"a": {"type": "null", "x-mcp-header": "A"}}, "only string, integer and boolean"),
        ({"a": {"type": "number", "x-mcp-header": "A"}}, "only string, integer and boolean"),
        ({"a": {"x-mcp-header": "A"}}, "no type"),
        (
            {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "Region"},
            },
            "also declared",
        ),
        (
            {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"},
            },
            "also declared",
        ),
        ({"a": {"type": "string", "x-mcp-header": "My Region"}}, "not a valid header name"),
        ({"a": {"type": "string", "x-mcp-header": "Region:Primary"}}, "not a valid header name"),
        ({"a": {"type": "string", "x-mcp-header": "Région"}}, "not a valid header name"),
        ({"a": {"type": "string", "x-mcp-header": "Region\t1"}}, "not a valid header name"),
        ({"a": {"type": "string", "x-mcp-header": 7}}, "not a string"),
    ],
)
def test_invalid_annotations_make_the_tool_unusable(properties: Any, why: str) -> None:
    problem = read_tool(tool(**properties)).problem
    assert problem is not None and why in problem


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (42, "42"),
        (42.0, "42"),
        ("us-west1", "us-west1"),
        ("us west 1", "us west 1"),
        ("", ""),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (None, None),
        ([1], None),
    ],
)
def test_header_text_encodings(value: Any, text: str | None) -> None:
    assert header_text(value) == text


def test_tools_without_schemas_have_no_headers() -> None:
    assert read_tool({"name": "x"}).params == () and read_tool({"name": "x"}).problem is None
