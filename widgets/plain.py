"""Text handed to the Textual APIs that parse a `str` as markup, made plain first.

Textual reads a `str` as content markup in toasts, tooltips and command-palette hits: "[/b]EVIL"
or "cannot open [/var/log/app.log]" raises `MarkupError` and ends the App, "[reverse]" restyles,
and "[@click=app.quit]…" becomes a clickable action. Server text (and text from the user's files)
reaches them only as Rich `Text` (`safe_text`, `one_line` in `app.engine.safety.sanitize`)
or through these helpers, which clean it the same way and pass it with `markup=False` or as
plain `Content`.
"""

from __future__ import annotations

from typing import Protocol

from textual.content import Content
from textual.fuzzy import Matcher
from textual.notifications import SeverityLevel

from app.engine.safety.sanitize import clean_text, one_line

TOAST_MAX_CHARS = 600
"""A toast's message is cut to this many characters (a server error can be a whole HTML page)."""
TOAST_TITLE_WIDTH = 60


class Notifier(Protocol):
    """What shows a toast: Textual's `App` or a widget (their `notify`, as typed)."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


def toast(
    node: Notifier,
    message: str,
    *,
    title: str = "",
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> None:
    """Show a toast whose message and title are shown as typed, never parsed as markup."""
    node.notify(
        clean_text(message, max_len=TOAST_MAX_CHARS),
        title=one_line(title, TOAST_TITLE_WIDTH),
        severity=severity,
        timeout=timeout,
        markup=False,
    )


def highlight(matcher: Matcher, candidate: str) -> Content:
    """`candidate` as plain `Content` with the characters `matcher` matched highlighted.

    `Matcher.highlight` parses its candidate as markup, so a task id like "[/b]" would raise.
    """
    shown = clean_text(candidate)
    content = Content(shown)
    score, offsets = matcher.fuzzy_search.match(matcher.query, shown)
    if not score:
        return content
    for offset in offsets:
        if not shown[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content
