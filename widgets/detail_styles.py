"""The text styles the detail pane's tabs share: headings, muted notes and errors."""

from __future__ import annotations

from rich.style import Style

HEADING = Style(bold=True)
MUTED = Style(dim=True)
ERROR = Style(bold=True, reverse=True)
