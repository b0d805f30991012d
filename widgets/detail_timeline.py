"""The Timeline tab: each step of a watched task with its time and cause, and the state diff it
brought."""

from __future__ import annotations

from rich.text import Text

from app.engine.safety.sanitize import safe_text
from app.view.formatting import format_clock, status_label
from app.view.state import WatchedTask
from widgets.detail_styles import MUTED


def timeline_text(watched: WatchedTask) -> Text:
    """The Timeline tab: each step with its time and cause, and the state diff it brought."""
    if not watched.timeline:
        return Text("Nothing has happened yet.", style=MUTED)
    out = Text()
    for entry in watched.timeline:
        out.append(format_clock(entry.at), MUTED)
        out.append(f"  {entry.kind:<16} {entry.source:<12} ")
        if entry.status:
            out.append(status_label(entry.status))
        if entry.detail:
            out.append("  ")
            out.append_text(safe_text(entry.detail))
        out.append("\n")
        if entry.diff:
            for line in entry.diff.lines():
                out.append("      ")
                out.append_text(safe_text(line, max_len=240))
                out.append("\n")
    return out
