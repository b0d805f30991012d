"""Server data shown as JSON in the detail pane: dumped as indented text, strings cleaned and cut,
nesting capped, then highlighted as plain text (never markup)."""

from __future__ import annotations

import json
from typing import Any

from rich.highlighter import JSONHighlighter
from rich.text import Text

from app.engine.safety.sanitize import clean_text

MAX_JSON_CHARS = 500_000
"""Pretty JSON longer than this is cut (with a note); the Result tab shows long text in full."""
MAX_JSON_STRING = 2_000
"""Strings inside JSON views are cut to this many characters; the Result tab has them whole."""


def _plain_json(value: Any) -> Any:
    """Rebuild `value` as JSON types, containers at most 64 deep and strings cut (no recursion)."""
    limit = 64

    def convert(item: Any) -> Any:
        if isinstance(item, str):
            return clean_text(item, max_len=MAX_JSON_STRING, allow_newlines=True)
        if isinstance(item, int | float | bool) or item is None:
            return item
        if isinstance(item, dict):
            return {}
        if isinstance(item, list | tuple):
            return []
        return str(item)

    root = convert(value)
    stack: list[tuple[Any, Any, int]] = [(value, root, 0)]
    while stack:
        source, target, depth = stack.pop()
        if isinstance(source, dict):
            for key, child in source.items():
                target[str(key)] = convert(child) if depth < limit else "…"
                if depth < limit and isinstance(child, dict | list | tuple):
                    stack.append((child, target[str(key)], depth + 1))
        elif isinstance(source, list | tuple):
            for child in source:
                target.append(convert(child) if depth < limit else "…")
                if depth < limit and isinstance(child, dict | list | tuple):
                    stack.append((child, target[-1], depth + 1))
    return root


def json_text(value: Any) -> Text:
    """`value` as indented, highlighted JSON; server strings are cleaned, never markup."""
    dumped = json.dumps(_plain_json(value), indent=2, ensure_ascii=False, default=str)
    text = Text(clean_text(dumped, max_len=MAX_JSON_CHARS, allow_newlines=True))
    JSONHighlighter().highlight(text)
    return text


def json_line(value: Any, max_chars: int) -> Text:
    """`value` as one line of highlighted JSON, cut to `max_chars`; strings cleaned, never
    markup."""
    dumped = json.dumps(_plain_json(value), ensure_ascii=False, default=str)
    text = Text(clean_text(dumped, max_len=max_chars))
    JSONHighlighter().highlight(text)
    return text
