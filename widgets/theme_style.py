"""Theme variables as Rich styles, for the cells widgets build in Python (cached per theme by
`ThemeStyles`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.style import Style
from textual.color import Color, ColorParseError


def theme_style(variables: Mapping[str, str], name: str, *, bold: bool = False) -> Style:
    """A Rich style coloured by theme variable `name` (e.g. `text-error`), dim when it is unusable.

    Rich renderables built in Python cannot use `$variables`, so widgets resolve them here from
    `App.theme_variables` and rebuild their cells when the theme changes.
    """
    value = variables.get(name)
    if value is None:
        return Style(dim=True, bold=bold)
    try:
        color = Color.parse(value)
    except ColorParseError:
        return Style(dim=True, bold=bold)
    return Style(color=color.rich_color, bold=bold)


class ThemeStyles:
    """The style of each theme variable in the current theme; `clear` when the theme changes."""

    def __init__(self, variables: Callable[[], Mapping[str, str]]) -> None:
        self._variables = variables
        self._styles: dict[tuple[str, bool], Style] = {}

    def clear(self) -> None:
        self._styles = {}

    def get(self, variable: str, *, bold: bool = False) -> Style:
        """`variable`'s colour as a style (bold if asked); dim for an empty variable."""
        if not variable:
            return Style(dim=True)
        style = self._styles.get((variable, bold))
        if style is None:
            style = theme_style(self._variables(), variable, bold=bold)
            self._styles[(variable, bold)] = style
        return style
