"""One definition of the characters never written raw: the text sanitizer and JSON output agree.

Every code point the predicate calls unsafe is made visible by `clean_text` and escaped by
`safe_json`; every other one passes both untouched (the check runs over every code point of the
planes servers' text comes from, and the whole of plane 14, where tags and variation selectors
live).
"""

from __future__ import annotations

import json

import pytest

from app.engine.safety.sanitize import clean_text
from app.engine.safety.unsafe_chars import INVISIBLE_RANGES, is_unsafe, safe_json
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
