"""Theme variables as Rich styles, for the cells widgets build in Python."""

from __future__ import annotations

from collections.abc import Mapping

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
