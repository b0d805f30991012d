"""The time view as the main list area shows it, in place of the task table.

Apart from `app.tui.lists` so that the time view's modules load when it is first shown, not on
the way to the first frame (2 ms of it).
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from app.tui.bindings import LIST_BINDINGS
from widgets.time_view import TimeView


class TaskTimeline(TimeView):
    """The time view with the same bulk-action bindings as the list (they act on its selection,
    which is the list's); enter on a bar answers its task's question, as on a list row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *LIST_BINDINGS,
        Binding("enter", "app.choose_selected", "Answer", show=False),
    ]
