"""The one list of characters never written raw where a person or a terminal reads them.

Controls a terminal acts on (C0, DEL, C1), characters drawn as nothing that hide or reorder text
(zero-width, bidi, tags, variation selectors, fillers), and lone surrogates, which UTF-8 cannot
carry. `sanitize` shows each as a visible marker in text; `safe_json` writes each as a `\\u`
escape, which every JSON reader turns back into the same string. Light: headless start-up uses it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.engine.safety import deep_json

INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark (bidi)
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels (invisible)
    (0x180E, 0x180E),  # Mongolian vowel separator
    (0x200B, 0x200F),  # zero-width space/non-joiner/joiner, LRM, RLM
    (0x2028, 0x202E),  # line/paragraph separators, bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated format chars
    (0x3164, 0x3164),  # Hangul filler
    (0xFEFF, 0xFEFF),  # zero-width no-break space / BOM
    (0xFFA0, 0xFFA0),  # half-width Hangul filler
    (0xFFF0, 0xFFFB),  # unassigned specials, interlinear annotation controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical formatting controls
    (0xE0000, 0xE0FFF),  # tags ("ASCII smuggling"), variation selectors 17-256, the rest reserved
)
"""Characters drawn as nothing: Unicode's default-ignorable code points, less the variation
selectors that pick emoji or text presentation (U+FE00-FE0F) and the Mongolian free variation
selectors, which real text needs; plus the separators and annotation controls that move text."""

CONTROL_RANGES: tuple[tuple[int, int], ...] = ((0x00, 0x1F), (0x7F, 0x9F))
"""C0, DEL and C1: what a terminal acts on."""

SURROGATES = (0xD800, 0xDFFF)
"""Lone surrogates: a server's `"\\ud800"` decodes to one; no UTF-8 output can carry it."""

UNSAFE_RANGES = (*CONTROL_RANGES, *INVISIBLE_RANGES, SURROGATES)
"""Every character never written raw."""


def character_class(ranges: tuple[tuple[int, int], ...]) -> re.Pattern[str]:
    """A pattern matching one character of any of `ranges` (inclusive code point pairs)."""
    return re.compile(
        "["
        + "".join(f"{re.escape(chr(first))}-{re.escape(chr(last))}" for first, last in ranges)
        + "]"
    )


_UNSAFE = character_class(UNSAFE_RANGES)
_UNSAFE_IN_JSON = character_class(tuple(r for r in UNSAFE_RANGES if r != (0x00, 0x1F)))
"""In JSON text, C0 controls are escaped by the encoder itself; a raw newline is indentation."""


def is_unsafe(char: str) -> bool:
    """Whether the one character `char` is never written raw (a control, invisible, a surrogate)."""
    return _UNSAFE.fullmatch(char) is not None


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON escapes a character past U+FFFF as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe_json(value: Any, *, pretty: bool = False) -> str:
    """`value` as JSON text with non-ASCII kept, except the unsafe characters, which are escaped:
    the same value for any JSON reader, and nothing a terminal, editor or viewer acts on or hides.
    `pretty` indents by two spaces."""
    text = deep_json.dumps(value, ensure_ascii=False, indent=2 if pretty else None, default=str)
    if text.isascii() and "\x7f" not in text:
        return text
    return _UNSAFE_IN_JSON.sub(_escape, text)


STREAMED_LEVELS = 2
"""How many levels of containers `write_safe_json` walks itself before it encodes what is inside
whole: a listing is an object holding one long list, whose items are encoded a batch at a time."""
BATCH_ITEMS = 1000
"""Items of a long list encoded together (a few hundred KB of a listing)."""


def write_safe_json(
    value: Any, write: Callable[[str], object], *, pretty: bool = False, level: int = 0
) -> None:
    """Write `safe_json(value, pretty=pretty)` through `write` in pieces. A document of 64 MiB
    encoded at once costs twice its size (four and a half times indented) on top of the value;
    in pieces it costs one batch. `level` is how deep `value` sits (its indentation)."""
    if isinstance(value, list) and len(value) > BATCH_ITEMS:
        _write_batches(value, write, pretty=pretty, level=level)
    elif (
        level < STREAMED_LEVELS
        and isinstance(value, dict)
        and value
        and all(isinstance(key, str) for key in value)
    ):
        inner = "\n" + "  " * (level + 1) if pretty else ""
        write("{")
        for index, (key, item) in enumerate(value.items()):
            write(
                ("," if index else "") + (inner or (" " if index else "")) + safe_json(key) + ": "
            )
            write_safe_json(item, write, pretty=pretty, level=level + 1)
        write(("\n" + "  " * level if pretty else "") + "}")
    else:
        write(_indented(safe_json(value, pretty=pretty), pretty, level))


def _write_batches(
    items: list[Any], write: Callable[[str], object], *, pretty: bool, level: int
) -> None:
    """A long list, `BATCH_ITEMS` at a time: each batch encoded as a list, its brackets dropped."""
    closing = "\n" + "  " * level + "]" if pretty else "]"
    write("[")
    for start in range(0, len(items), BATCH_ITEMS):
        batch = _indented(
            safe_json(items[start : start + BATCH_ITEMS], pretty=pretty), pretty, level
        )
        write(
            ("," if start else "")
            + (" " if start and not pretty else "")
            + batch[1 : -len(closing)]
        )
    write(closing)


def _indented(text: str, pretty: bool, level: int) -> str:
    """Indented JSON `text` moved `level` steps right (its first line stays where it is)."""
    return text.replace("\n", "\n" + "  " * level) if pretty and level else text
