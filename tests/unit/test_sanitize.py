"""Server text through clean_text, one_line and safe_text: nothing a terminal would interpret."""

from __future__ import annotations

from io import StringIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from app.engine.safety.sanitize import (
    _one_line,
    _one_line_short,
    clean_text,
    middle_line,
    one_line,
    safe_text,
)

ALLOWED_CONTROLS = {"\n", "\t"}


def has_forbidden_control(text: str, allowed: set[str]) -> bool:
    return any(
        (ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F) and char not in allowed for char in text
    )


def render_plain(renderable: object) -> str:
    """What a real (colour, hyperlink-capable) terminal would receive for a renderable."""
    out = StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=200)
    console.print(renderable)
    return out.getvalue()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("\x1b[31mred\x1b[0m plain", "red plain"),
        ("\x1b[1;38;2;255;0;0mbold\x1b[m", "bold"),
        ("up\x1b[2Aover\x1b[10;5Hthere\x1b[2K", "upoverthere"),
        ("\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "click"),
        ("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"),
        ("before\x1b]52;c;cm0gLXJmIC8=\x07after", "beforeafter"),
        ("a\x1b]0;window title\x1b\\b", "ab"),
        ("x\x1bPq#0;2;0;0;0\x1b\\y", "xy"),
        ("x\x1b_apc payload\x1b\\y", "xy"),
        ("\x9b31m8-bit CSI\x9b0m", "8-bit CSI"),
        ("\x9d52;c;aGk=\x9cdone", "done"),
        ("\x1b(Bcharset\x1bc reset\x1b7", "charset reset"),
    ],
)
def test_escape_sequences_are_removed(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


def test_leftover_controls_become_control_pictures() -> None:
    assert clean_text("ding\x07 back\x08space nul\x00 del\x7f cr\r") == (
        "ding␇ back␈space nul␀ del␡ cr␍"
    )
    assert clean_text("lone \x1b") == "lone ␛"
    assert clean_text("\x1b\x1b[31m[31m") == "␛[31m"


def test_c1_controls_and_unterminated_strings_are_visible_markers() -> None:
    assert clean_text("a\x85b\x9fc") == "a<U+0085>b<U+009F>c"
    assert clean_text("\x9dno terminator") == "<U+009D>no terminator"
    assert clean_text("\x1b]8;;no terminator") == "8;;no terminator"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("\u202eevil.exe", "<U+202E>evil.exe"),
        ("\u2066iso\u2069", "<U+2066>iso<U+2069>"),
        ("a\u200bb\u200dc\ufeff", "a<U+200B>b<U+200D>c<U+FEFF>"),
        ("p1\u2028p2\u2029", "p1<U+2028>p2<U+2029>"),
        ("tag\U000e0041\U000e0042", "tag<U+E0041><U+E0042>"),
        ("soft\xadhyphen", "soft<U+00AD>hyphen"),
    ],
)
def test_bidi_and_invisible_characters_are_visible(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


def test_newlines_and_tabs() -> None:
    assert clean_text("a\nb\tc\r\nd") == "a ⏎ b c ⏎ d"
    assert clean_text("a\nb\tc\r\nd", allow_newlines=True) == "a\nb\tc\nd"


def test_non_strings_bytes_and_surrogates() -> None:
    assert clean_text(None) == "None"
    assert clean_text({"k": 1}) == "{'k': 1}"
    assert clean_text(b"ok \xff\xfe bad") == "ok \ufffd\ufffd bad"
    assert clean_text("lone \ud800 surrogate \udfff") == "lone \ufffd surrogate \ufffd"

    class Hostile:
        def __str__(self) -> str:
            raise RuntimeError("boom")

    assert clean_text(Hostile()) == "<unprintable Hostile>"


def test_max_len_cuts_with_count() -> None:
    text = "x" * 2000
    cut = clean_text(text, max_len=50)
    assert len(cut) <= 50
    kept = cut.index("…")
    assert cut == "x" * kept + f"… (+{2000 - kept} chars)"
    assert clean_text("short", max_len=50) == "short"
    assert clean_text("x" * 20, max_len=3) == "xx…"
    assert clean_text("x" * 20, max_len=0) == ""


def test_max_len_does_not_split_markers() -> None:
    cut = clean_text("a" * 10 + "\u202e" * 50, max_len=30)
    body = cut[: cut.index("…")]
    assert body.count("<") == body.count(">")


def test_one_line_fits_the_cell_width() -> None:
    assert one_line("hello\nworld", 40) == "hello ⏎ world"
    assert one_line("hello\nworld and more", 10) == "hello ⏎ w…"
    assert one_line("你好你好你好", 7) == "你好你…"
    assert one_line("anything", 0) == ""
    assert one_line("\x1b[31mred\x1b[0m", 3) == "red"


def test_markup_is_rendered_literally() -> None:
    output = render_plain(safe_text("[bold red]alarm[/] [link=https://evil.example]x[/link]"))
    assert "[bold red]alarm[/] [link=https://evil.example]x[/link]" in output
    assert "\x1b]8;" not in output
    assert "\x1b[1" not in output


def test_escape_sequences_never_reach_the_terminal() -> None:
    output = render_plain(safe_text("\x1b]52;c;aGk=\x07\x1b[2J\x9b31mtext", style="bold"))
    assert "]52;" not in output
    assert "[2J" not in output
    assert "\x9b" not in output
    assert "text" in output


@pytest.mark.parametrize(
    "big",
    [
        "a" * 1_000_000,
        "\x1b[1m" * 200_000,
        "\x9d" * 1_000_000,
        "\x1b]" * 500_000,
        "\x1b[" + "0" * 1_000_000,
        "\u202e\x07" * 500_000,
    ],
    ids=["plain", "csi", "c1-osc", "osc-open", "csi-open", "bidi-bell"],
)
@pytest.mark.timeout(10)
def test_megabyte_inputs_are_fast(big: str) -> None:
    """A linear scan of a megabyte takes milliseconds; a backtracking one would not end in time."""
    cleaned = clean_text(big, allow_newlines=True)
    one_line(big, 80)
    assert "\x1b" not in cleaned


@settings(max_examples=300, deadline=None)
@given(st.text(), st.booleans())
def test_output_never_holds_controls(text: str, allow_newlines: bool) -> None:
    allowed = ALLOWED_CONTROLS if allow_newlines else set()
    cleaned = clean_text(text, allow_newlines=allow_newlines)
    assert not has_forbidden_control(cleaned, allowed)
    assert not any(0xD800 <= ord(char) <= 0xDFFF for char in cleaned)
    assert not has_forbidden_control(one_line(text, 30), set())


ESCAPE_HEAVY = st.lists(
    st.sampled_from(
        ["\x1b", "[", "]", "P", "\\", "\x07", "\x9b", "\x9c", "\x9d", "\x90", "0", ";", "m", "a"]
    )
).map("".join)


@settings(max_examples=300, deadline=None)
@given(ESCAPE_HEAVY, st.integers(min_value=0, max_value=40))
def test_escape_soup_is_inert(text: str, max_len: int) -> None:
    cleaned = clean_text(text, max_len=max_len)
    assert not has_forbidden_control(cleaned, set())
    assert len(cleaned) <= max(max_len, 0)


@given(st.text(max_size=300), st.integers(min_value=-1, max_value=40))
@settings(max_examples=200, deadline=None)
def test_one_line_remembered_or_not_gives_the_same_cell(text: str, width: int) -> None:
    first = one_line(text, width)
    assert one_line(text, width) == first == _one_line(text, width)


def test_one_line_remembers_short_strings_only() -> None:
    _one_line_short.cache_clear()
    for _ in range(3):
        one_line("working \x1b[31mred", 12)
        one_line("x" * 1000, 12)
    info = _one_line_short.cache_info()
    assert (info.hits, info.misses, info.currsize) == (2, 1, 1)


def test_middle_line_keeps_both_ends_of_ids_that_share_a_prefix() -> None:
    """Python SDK ids are `<session>:<uuid>`: cut at the end, every row read the same."""
    session = "6125d8073e004493a2542ae1c2d4e6f8"
    first, second = f"{session}:aff476e309f2", f"{session}:0b1c2d3e4f5a"
    assert middle_line(first, 10) == "6125d…09f2"
    assert middle_line(first, 10) != middle_line(second, 10)
    assert middle_line("short-id", 10) == "short-id"
    assert middle_line("[b]x\x1b[31m" + "y" * 30, 10).startswith("[b]x")
    assert "\x1b" not in middle_line("a" * 20 + "\x1b[2J" + "z" * 20, 10)
    assert middle_line("x" * 5000, 10) == one_line("x" * 5000, 10)  # too long to read its end
