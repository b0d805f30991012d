"""Server text made safe for a Markdown document: read as written, never as markup.

A task export and a check report are pasted into bug reports and CI summaries, where a server's
"[click](…)", "<img …>" or "|" would become a link, HTML or a new table column. Text in running
prose or a table cell is backslash-escaped (`plain`, `cell`), text in a code span loses its
backticks (`inline`), and JSON goes in a fence longer than any backtick run inside it (`code`).
"""

from __future__ import annotations

import re
from typing import Any

from app.engine.safety import deep_json
from app.engine.safety.sanitize import clean_text

CELL_WIDTH = 160
"""Characters of server text one table cell or code span shows at most."""

_MARKDOWN_SIGNS = re.compile(r"[\\`*\[\]<>&~|]|(?<![^\W_])_|_(?![^\W_])")
"""What Markdown reads as markup in running text: links and images (`[`), HTML and autolinks
(`<`), entities (`&`), emphasis, code, strike-through, table pipes; `_` only at a word's edge,
where it can start emphasis (inside `snake_case` it cannot)."""


def plain(text: str) -> str:
    """`text` with every Markdown sign backslash-escaped, so a viewer shows it as written."""
    return _MARKDOWN_SIGNS.sub(lambda sign: "\\" + sign.group(), text)


def cell(text: str, width: int = CELL_WIDTH) -> str:
    """Server text fit for one Markdown table cell: one line, bounded, read as plain text."""
    return plain(clean_text(text, max_len=width))


def inline(text: str, width: int = CELL_WIDTH) -> str:
    """Server text fit for an inline code span: one line, no backticks."""
    return clean_text(text, max_len=width).replace("`", "'")


def code(value: Any, indent: str = "") -> list[str]:
    """`value` as a fenced JSON block (any nesting depth); the fence is longer than any backtick
    run inside the text."""
    text = clean_text(
        deep_json.dumps(value, indent=2, ensure_ascii=False, default=str), allow_newlines=True
    )
    fence = "```"
    while fence in text:
        fence += "`"
    body = [f"{indent}{line}" for line in text.splitlines()]
    return [f"{indent}{fence}json", *body, f"{indent}{fence}"]
