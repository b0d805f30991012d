"""Server text made safe for a terminal: plain text only, nothing hidden and nothing interpreted.

Servers control task messages, errors, titles and results. Shown raw, they could move the cursor,
write the clipboard (OSC 52), plant hyperlinks (OSC 8), hide text behind bidi overrides or
zero-width characters, or inject Rich markup. Every renderer goes through `clean_text`, `one_line`
or `safe_text`.

Conventions: recognised escape sequences are removed entirely; a C0 control left over is shown as
its Unicode control picture (ESC as "␛", BEL as "␇"); C1 controls and invisible format characters
are shown as "<U+202E>"-style markers; lone surrogates become U+FFFD. Which characters count is
`unsafe_chars`, the one list JSON output escapes too.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len, get_character_cell_size

from app.engine.safety.unsafe_chars import SURROGATES, UNSAFE_RANGES, character_class

if TYPE_CHECKING:
    from rich.text import Text  # loaded by safe_text: headless commands never need it

_STRING_TERMINATOR = r"(?:\x07|\x1b\\|\x9c)"
_ESCAPE_SEQUENCE = re.compile(
    # CSI, 7-bit and 8-bit: parameters, intermediates, one final byte.
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    # OSC, DCS, SOS, PM, APC: a string up to BEL or ST. The body excludes ESC and every C1 control,
    # so each failed attempt stops at the next possible introducer and matching stays linear.
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x80-\x9f]*"
    + _STRING_TERMINATOR
    # Any other escape sequence: intermediates and one final byte (charset, keypad, ST, RIS, …).
    + r"|\x1b[ -/]*[0-~]"
)

NEWLINE_MARK = " ⏎ "
"""What a newline looks like when newlines are not allowed (also used for table cells)."""

ELLIPSIS = "…"

ONE_LINE_CACHED_LEN = 256
"""Strings up to this long have their `one_line` forms remembered (table cells, ids, names)."""

ONE_LINE_CACHE_SIZE = 16384
"""How many (text, width) pairs are remembered: every cell of a few thousand rows."""


def _marker(code: int) -> str:
    return f"<U+{code:04X}>"


def _shown_as(code: int) -> str:
    """What an unsafe character (`unsafe_chars`) looks like once cleaned."""
    if code < 0x20:
        return chr(0x2400 + code)  # its control picture
    if code == 0x7F:
        return "\u2421"
    if SURROGATES[0] <= code <= SURROGATES[1]:
        return "\ufffd"
    return _marker(code)


WIDE_RANGE = 256
"""Unsafe ranges at least this wide (the lone surrogates, the tags block) are found by a pattern
(`_WIDE_UNSAFE`) instead of the translation tables: as entries of both tables their 6,000-odd
characters cost 1.4 MiB of the idle footprint."""

_NARROW_RANGES = tuple(r for r in UNSAFE_RANGES if r[1] - r[0] < WIDE_RANGE)
_WIDE_UNSAFE = character_class(tuple(r for r in UNSAFE_RANGES if r[1] - r[0] >= WIDE_RANGE))


def _shown_wide(match: re.Match[str]) -> str:
    return _shown_as(ord(match.group()))


def _build_table(allow_newlines: bool) -> dict[int, str]:
    table = {
        code: _shown_as(code) for first, last in _NARROW_RANGES for code in range(first, last + 1)
    }
    if allow_newlines:
        del table[ord("\n")]
        del table[ord("\t")]
    else:
        table[ord("\n")] = NEWLINE_MARK
        table[ord("\t")] = " "
    return table


_MULTILINE_TABLE = _build_table(allow_newlines=True)
_SINGLE_LINE_TABLE = _build_table(allow_newlines=False)


def _to_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    try:
        return str(value)
    except Exception:  # an arbitrary object's __str__ may raise anything
        return f"<unprintable {type(value).__name__}>"


def _marker_safe_cut(text: str, keep: int) -> int:
    """Move a cut point back so it does not split a "<U+XXXXX>" marker."""
    start = text.rfind("<U+", max(0, keep - 9), keep)
    if start != -1:
        end = text.find(">", start)
        if end >= keep:
            return start
    return keep


def _truncate(text: str, max_len: int) -> str:
    if len(text) <= max_len:
        return text
    keep = max_len - len(f"{ELLIPSIS} (+{len(text)} chars)")
    if keep < 1:
        return text[: max(0, max_len - 1)] + ELLIPSIS if max_len > 0 else ""
    keep = _marker_safe_cut(text, keep)
    return f"{text[:keep]}{ELLIPSIS} (+{len(text) - keep} chars)"


def clean_text(text: Any, *, max_len: int | None = None, allow_newlines: bool = False) -> str:
    """Return `text` (anything; bytes are decoded as UTF-8) as inert plain text.

    Escape sequences are removed, other controls and invisible characters made visible. Newlines
    and tabs are kept only with `allow_newlines`; otherwise a newline shows as " ⏎ " and a tab as a
    space. With `max_len` the result is cut to at most that many characters, ending in
    "… (+N chars)".
    """
    cleaned = _ESCAPE_SEQUENCE.sub("", _to_str(text)).replace("\r\n", "\n")
    cleaned = cleaned.translate(_MULTILINE_TABLE if allow_newlines else _SINGLE_LINE_TABLE)
    if not cleaned.isascii():  # a flag read: ASCII text pays nothing for the wide ranges
        cleaned = _WIDE_UNSAFE.sub(_shown_wide, cleaned)
    if max_len is not None:
        cleaned = _truncate(cleaned, max_len)
    return cleaned


def one_line(text: Any, width: int) -> str:
    """Return `text` cleaned onto one line (newlines as " ⏎ "), cut to `width` cells with "…".

    Short strings are remembered (`_one_line_short`): the task table asks for the same cells of a
    thousand rows on every repaint.
    """
    if type(text) is str and len(text) <= ONE_LINE_CACHED_LEN:
        return _one_line_short(text, width)
    return _one_line(text, width)


def middle_line(text: Any, width: int) -> str:
    """`text` cleaned onto one line and cut in the middle to `width` cells ("6125…309f2"):
    task ids that share a prefix (a session, a server name) still differ where they are cut."""
    whole = one_line(text, MIDDLE_LINE_MAX)
    if cell_len(whole) <= width or width < 3 or whole.endswith("…"):
        return one_line(text, width)
    tail = (width - 1) // 2
    cut = whole[: width - 1 - tail] + "…" + whole[-tail:]
    return cut if cell_len(cut) <= width else one_line(text, width)


MIDDLE_LINE_MAX = 400
"""Longer text is cut at its end by `middle_line` (its end is not known without reading it all)."""


@functools.lru_cache(maxsize=ONE_LINE_CACHE_SIZE)
def _one_line_short(text: str, width: int) -> str:
    """`_one_line` of a short string, cached by (text, width)."""
    return _one_line(text, width)


ONE_LINE_SCAN_PER_CELL = 16
"""`one_line` cleans at most this many characters per cell of its width (plus a margin): a line
of 60 cells never costs a pass over a 50 MB string; a string cut there ends in "…"."""


def _one_line(text: Any, width: int) -> str:
    if width <= 0:
        return ""
    text = _to_str(text)
    scan = width * ONE_LINE_SCAN_PER_CELL + ONE_LINE_CACHED_LEN
    cut = len(text) > scan
    cleaned = clean_text(text[:scan] if cut else text)
    cells = 0
    for index, char in enumerate(cleaned):
        cells += get_character_cell_size(char)
        if cells > width:
            return _cut_cells(cleaned[:index], width - 1) + ELLIPSIS
    return _cut_cells(cleaned, width - 1) + ELLIPSIS if cut else cleaned


def _cut_cells(text: str, width: int) -> str:
    """Drop characters from the end of `text` until it fits in `width` cells."""
    cells = sum(get_character_cell_size(char) for char in text)
    end = len(text)
    while cells > width and end > 0:
        end -= 1
        cells -= get_character_cell_size(text[end])
    return text[:end]


def safe_text(
    text: Any, *, max_len: int | None = None, allow_newlines: bool = False, style: str = ""
) -> Text:
    """A Rich `Text` of the cleaned string; never parsed as markup, so "[bold]" stays literal."""
    from rich.text import Text

    return Text(clean_text(text, max_len=max_len, allow_newlines=allow_newlines), style=style)
