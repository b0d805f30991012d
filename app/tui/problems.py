"""An exception as the one line the App shows in toasts and the header."""

from __future__ import annotations

from app.engine.safety.sanitize import clean_text


def describe(exc: BaseException) -> str:
    """An exception as one short line of plain text for toasts and the header, with the next
    thing to try when the engine named one (a failed connect)."""
    text = str(exc)
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    hint = getattr(exc, "hint", None)
    if isinstance(hint, str):
        line = f"{line[:240]} — next: {hint}"
    return clean_text(line, max_len=420)
