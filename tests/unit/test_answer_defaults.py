"""SEP-1034: accepted form answers carry the schema's defaults for omitted fields (pure logic)."""

from __future__ import annotations

from typing import Any

from app.cli.answers import response_problems
from app.engine.forms.defaults import with_defaults
from app.engine.tasks.models import InputKind, InputRequest

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "Ada"},
        "count": {"type": "integer", "default": 3},
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["a", "b"]},
        "note": {"type": "string"},
    },
    "required": ["name", "count"],
}


def form(schema: dict[str, Any] = SCHEMA) -> InputRequest:
    return InputRequest(
        key="k",
        kind=InputKind.FORM,
        method="elicitation/create",
        params={"message": "?", "requestedSchema": schema},
        wire="extension",
    )


def test_omitted_fields_get_their_defaults_and_given_ones_stay() -> None:
    answer = with_defaults(form(), {"action": "accept", "content": {"name": "Grace"}})
    assert answer == {
        "action": "accept",
        "content": {"name": "Grace", "count": 3, "tags": ["a", "b"]},
    }


def test_no_content_at_all_is_filled_and_defaults_are_copies() -> None:
    answer = with_defaults(form(), {"action": "accept"})
    assert answer["content"] == {"name": "Ada", "count": 3, "tags": ["a", "b"]}
    answer["content"]["tags"].append("c")
    assert SCHEMA["properties"]["tags"]["default"] == ["a", "b"]


def test_declines_urls_and_other_kinds_are_left_alone() -> None:
    decline = {"action": "decline"}
    assert with_defaults(form(), decline) is decline
    url = InputRequest(
        key="u", kind=InputKind.URL, method="elicitation/create", params={}, wire="legacy"
    )
    accept = {"action": "accept"}
    assert with_defaults(url, accept) is accept
    assert with_defaults(form({"type": "object"}), accept) is accept


def test_a_required_field_with_a_default_may_be_left_out() -> None:
    assert response_problems(form(), {"action": "accept", "content": {}}) == []
    assert response_problems(form(), {"action": "accept", "content": {"count": "x"}}) != []
