"""One definition of the characters never written raw: the text sanitizer and JSON output agree,
and JSON written in pieces is the same text as JSON encoded whole.

Every code point the predicate calls unsafe is made visible by `clean_text` and escaped by
`safe_json`; every other one passes both untouched (the check runs over every code point of the
planes servers' text comes from, and the whole of plane 14, where tags and variation selectors
live).
"""

from __future__ import annotations

import json

import pytest

from app.engine.safety import unsafe_chars
from app.engine.safety.sanitize import clean_text
from app.engine.safety.unsafe_chars import INVISIBLE_RANGES, is_unsafe, safe_json, write_safe_json
from app.view.export import tasks_json
from tests.support.watched_tasks import watched

CHECKED = [*range(0x0000, 0x40000), *range(0xE0000, 0xE1000)]
"""Planes 0-3 and plane 14: every character a server's text is likely to hold."""
TAGS = "\U000e0001\U000e0074\U000e0061\U000e0067\U000e007f"
"""A language tag, the tag letters "tag" and the cancel tag: invisible "ASCII smuggling"."""
SMUGGLED = f"ok{TAGS} vs\U000e0100\U000e01ef soft\u00adhyphen \u3164filler \u2064plus"


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x9b", "\u202e", "\ud800", *TAGS])
def test_controls_bidi_surrogates_and_tags_are_unsafe(char: str) -> None:
    assert is_unsafe(char)


@pytest.mark.parametrize("char", ["a", "é", "\u4e00", "\U0001f600", "\ufe0f", "\u0301"])
def test_letters_emoji_and_their_presentation_selector_are_not(char: str) -> None:
    assert not is_unsafe(char)


def test_every_invisible_range_is_unsafe_at_both_ends() -> None:
    for first, last in INVISIBLE_RANGES:
        assert is_unsafe(chr(first)) and is_unsafe(chr(last)), hex(first)


def test_the_sanitizer_marks_exactly_the_unsafe_characters() -> None:
    differ = [
        code for code in CHECKED if (clean_text(chr(code)) != chr(code)) != is_unsafe(chr(code))
    ]
    assert differ == []


def test_json_escapes_exactly_the_unsafe_characters_and_keeps_the_value() -> None:
    text = safe_json([chr(code) for code in CHECKED])
    assert json.loads(text) == [chr(code) for code in CHECKED]
    raw = set(text)
    left_raw = [code for code in CHECKED if is_unsafe(chr(code)) and chr(code) in raw]
    escaped = [
        code
        for code in CHECKED
        if not is_unsafe(chr(code)) and code > 0x7F and chr(code) not in raw
    ]
    assert left_raw == [] and escaped == []


@pytest.mark.parametrize("pretty", [False, True])
def test_the_cli_prints_tag_characters_escaped(pretty: bool) -> None:
    from app.cli.output import safe_json as cli_safe_json

    text = cli_safe_json({"t": SMUGGLED}, pretty=pretty)
    assert json.loads(text) == {"t": SMUGGLED}
    assert not any(is_unsafe(char) for char in text if char != "\n")
    assert "\\udb40\\udc74" in text  # the tag "t" as a UTF-16 pair, the only JSON escape for it


def test_the_tuis_copied_json_escapes_them_too() -> None:
    text = tasks_json([watched(f"t{TAGS}", message=SMUGGLED)])
    assert json.loads(text)["raw"]["statusMessage"] == SMUGGLED
    assert not any(is_unsafe(char) for char in text if char != "\n")


DOCUMENTS = [
    {},
    [],
    "s\U000e0041",
    5,
    {"a": [1, {"b": []}, {}], "c": {}},
    {"resources": [{"x": "\u202e", "y": [1, 2]}] * 5, "nextCursor": None},
    [[1, [2, [3]]], {"k": {"z": {"q": 1}}}],
    {1: 2},
    {"a": {"b": {"c": [1, 2, 3, 4, 5]}}},
    [[1, 2, 3, [4, 5, 6]]] * 3,
    {"tools": [[1, 2, 3]] * 5, "t": "\x1b\U000e0041"},
]


@pytest.mark.parametrize("pretty", [False, True])
@pytest.mark.parametrize("document", DOCUMENTS)
def test_writing_in_pieces_prints_the_same_text(
    document: object, pretty: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Long lists are encoded a batch at a time (here 2 items), the outer levels walked."""
    monkeypatch.setattr(unsafe_chars, "BATCH_ITEMS", 2)
    pieces: list[str] = []
    write_safe_json(document, pieces.append, pretty=pretty)
    assert "".join(pieces) == safe_json(document, pretty=pretty)
    if isinstance(document, dict) and "resources" in document:
        whole = safe_json(document["resources"], pretty=pretty)
        assert max(map(len, pieces)) < len(whole) / 2  # no piece holds the whole list
