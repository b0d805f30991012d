"""The shared input helpers both faces use: message text, URL hosts, roots, sampling results."""

from __future__ import annotations

from pathlib import Path

from app.engine.forms.input_text import (
    describe_host,
    message_text,
    rejection_message,
    root_entries,
    sampling_result,
)
from app.engine.tasks.models import InputKind, InputRequest


def test_describe_host_shows_unicode_hosts_raw_too() -> None:
    assert describe_host("https://example.com/a") == "example.com"
    assert describe_host("https://bücher.example/") == "bücher.example (raw: xn--bcher-kva.example)"
    assert describe_host("not a url") == "(none)"
    assert describe_host("http://[::1") == "(not a valid URL)"


def test_message_text_joins_blocks_and_names_non_text_ones_sanitized() -> None:
    message = {
        "role": "user",
        "content": [
            {"type": "text", "text": "look\x1b[31m here"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        ],
    }
    text = message_text(message)
    assert "\x1b" not in text
    assert text.startswith("look") and text.endswith("<image content>")
    assert message_text({"role": "user", "content": {"type": "text", "text": "one"}}) == "one"


def test_roots_are_file_uris_of_the_resolved_paths(tmp_path: Path) -> None:
    entries = root_entries([str(tmp_path)])
    assert entries == [{"uri": tmp_path.resolve().as_uri(), "name": tmp_path.name}]


def test_sampling_result_is_an_assistant_text_message() -> None:
    assert sampling_result("Paris", "me-1", "maxTokens") == {
        "role": "assistant",
        "content": {"type": "text", "text": "Paris"},
        "model": "me-1",
        "stopReason": "maxTokens",
    }
    assert sampling_result("Paris", "human")["stopReason"] == "endTurn"


def test_rejection_messages_name_the_request_like_the_ts_sdk() -> None:
    def request(kind: InputKind, method: str) -> InputRequest:
        return InputRequest(key="1", kind=kind, method=method, params={}, wire="legacy")

    sampling = request(InputKind.SAMPLING, "sampling/createMessage")
    assert rejection_message(sampling) == "User rejected sampling request"
    roots = request(InputKind.ROOTS, "roots/list")
    assert rejection_message(roots) == "User rejected roots request"
    other = request(InputKind.UNKNOWN, "x/ask")
    assert rejection_message(other) == "User rejected x/ask request"
