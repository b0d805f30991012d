"""Where toasts may show, so they never cover what the user is working in.

A modal has the screen to itself: opening one takes down the toasts already shown (a question's
toast would sit over the inbox that lists it; what they said stays in the header, the list and
the inbox), and the announcements made while it is open wait for it to close (`intake`). Toasts
a modal raises itself (copied, saved, an error) sit at the top of its screen, in the margin above
its body, never over its hint line at the bottom (`styles/app.tcss`); on the main screen they sit
above the filter bar while it is open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.screen import ModalScreen

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from app.tui.host import Stacked


TOAST_RACK = "#textual-toastrack"
"""Textual's container of a screen's toasts (one per screen)."""


def watch_screens(app: App[Any]) -> None:
    """Take the toasts down whenever a modal screen opens: the notifications, and the toasts
    the screens beneath still draw (Textual refreshes only the current screen's)."""

    def screen_changed(screen: Screen[Any]) -> None:
        if isinstance(screen, ModalScreen):
            app.clear_notifications()
            for beneath in app.screen_stack:
                for rack in beneath.query(TOAST_RACK):
                    rack.remove_children()

    app.screen_change_signal.subscribe(app, screen_changed)


def modal_open(app: Stacked) -> bool:
    """Whether a modal covers the main screen (announcements wait for it to close)."""
    return len(app.screen_stack) > 1


def filter_bar_shown(app: Stacked, shown: bool) -> None:
    """Lift the main screen's toasts above the filter bar while it is shown."""
    app.screen_stack[0].set_class(shown, "-filtering")
