"""Where the modal screens' stylesheets live: each is loaded when its first modal opens (Textual
reads a screen's `CSS_PATH` then), so none of it is parsed before the App's first frame."""

from __future__ import annotations

from pathlib import Path

STYLES = Path(__file__).resolve().parent.parent / "styles"
MODALS_CSS = STYLES / "modals.tcss"
"""The create / confirm / prompt modals: tool picker, arguments form, confirm, text prompt."""
CHECK_CSS = STYLES / "check.tcss"
"""The check screen (`c`)."""
