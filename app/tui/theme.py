"""taskscope's colour theme, and picking the one the config file names."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.theme import Theme

TASKSCOPE_THEME = Theme(
    name="taskscope",
    primary="#7aa2f7",
    secondary="#9ece6a",
    accent="#bb9af7",
    warning="#e0af68",
    error="#f7768e",
    success="#9ece6a",
    dark=True,
)


def use_theme(app: App[Any], wanted: str | None) -> None:
    """Pick the theme (`wanted`, else taskscope's) before the stylesheet is first parsed, so
    starting does not parse every rule twice."""
    app.register_theme(TASKSCOPE_THEME)
    app.theme = wanted if wanted and wanted in app.available_themes else "taskscope"
    app.stylesheet.set_variables(app.get_css_variables())
