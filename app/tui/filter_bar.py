"""The `/` filter bar: mounted the first time it opens, hidden (not removed) when left."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.css.query import NoMatches
from textual.widgets import Input

from app.tui.toast_room import filter_bar_shown
from widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from app.tui.host import Filtering

FILTER_HINT = "status:working tool:build id:abc or words · enter keeps · esc clears"


def open_filter_bar(app: Filtering) -> None:
    """Open the filter bar (mounted the first time) on the current query."""
    bar = filter_bar(app)
    if bar is None:
        bar = Input(app.filter_query, placeholder=FILTER_HINT, id="filter-bar")
        app.mount(bar, before=app.query_one(KeyFooter))
    else:
        bar.value = app.filter_query
        bar.display = True
    filter_bar_shown(app, True)
    bar.focus()


def filter_bar(app: Filtering) -> Input | None:
    """The filter bar, or None before it is first opened."""
    try:
        return app.query_one("#filter-bar", Input)
    except NoMatches:
        return None


def close_filter_bar(app: Filtering) -> None:
    """Hide the bar (keeping the filter) and give the list the focus back."""
    bar = filter_bar(app)
    if bar is not None:
        bar.display = False
    filter_bar_shown(app, False)
    app.shown_list.focus()


def clear_filter_if_typing(app: Filtering) -> bool:
    """Escape in the filter bar: clear the filter and leave the bar; whether it had focus."""
    bar = filter_bar(app)
    if bar is None or not bar.has_focus:
        return False
    bar.value = ""
    app.set_filter("", faults_only=app.task_filter.faults_only)
    close_filter_bar(app)
    return True
