"""Every key binding of the main screen, each with an id the user can remap in the config file.

App-wide bindings work wherever focus is; list bindings act on the marked tasks (or the one
under the cursor) and show in the footer while the task list has focus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from app.engine.tasks.contract import TasksCapabilities

FOOTER_PINNED_ACTIONS = frozenset({"toggle_help", "quit"})
"""The footer always shows `? Keys` and `q Quit`; other keys give way on a narrow terminal."""
MUTATING_ACTIONS = frozenset({"new_task", "cancel_tasks", "answer_input", "check_server"})
"""Actions hidden and disabled when the source is read-only (`--readonly`, or a replay): a
check creates and cancels tasks too."""

APP_BINDINGS: list[BindingType] = [
    Binding("n", "new_task", "New", id="new-task", tooltip="Pick a tool and run it"),
    Binding(
        "l", "list_tasks", "List", id="list-tasks", show=False, tooltip="Import tasks/list (legacy)"
    ),
    Binding(
        "a", "adopt_task", "Adopt", id="adopt-task", show=False, tooltip="Watch a pasted task id"
    ),
    Binding("slash", "filter", "Filter", id="filter", tooltip="status: tool: id: or free text"),
    Binding("f", "toggle_faults", "Faults", id="faults-only", tooltip="Only tasks that need care"),
    Binding("p", "toggle_pause", "Pause", id="pause", tooltip="Pause or resume polling"),
    Binding(
        "r",
        "poll_now",
        "Poll",
        id="poll-now",
        show=False,
        tooltip="Poll the marked or selected tasks",
    ),
    Binding("i", "input_inbox", "Inbox", id="input-inbox", tooltip="Every pending input"),
    Binding(
        "I",
        "answer_input",
        "Answer",
        id="answer-input",
        show=False,
        tooltip="Answer the selected task's input (also enter on its row)",
    ),
    Binding(
        "y",
        "copy_json",
        "Copy",
        id="copy-json",
        show=False,
        tooltip="Copy the tasks' JSON (OSC 52)",
    ),
    Binding(
        "w",
        "save_json",
        "Save",
        id="save-json",
        show=False,
        tooltip="Save the tasks' JSON to a file",
    ),
    Binding("L", "toggle_log", "RPC log", id="toggle-log", tooltip="Show or hide the RPC log"),
    Binding(
        "t",
        "toggle_time_view",
        "Time",
        id="time-view",
        tooltip="Every task as a bar on a time axis, or back to the list",
    ),
    Binding(
        "c",
        "check_server",
        "Check",
        id="check-server",
        tooltip="Check this server's tasks implementation, on a connection of its own",
    ),
    Binding(
        "s",
        "show_server",
        "Server",
        id="server-pane",
        show=False,
        tooltip="Everything known of the server: identity, era, wire, connection, sign-in",
    ),
    Binding("A", "sort('age')", "Sort age", id="sort-age", show=False),
    Binding("S", "sort('status')", "Sort status", id="sort-status", show=False),
    Binding("T", "sort('tool')", "Sort tool", id="sort-tool", show=False),
    Binding("U", "sort('last_change')", "Sort changed", id="sort-changed", show=False),
    Binding("z", "toggle_zoom", "Zoom", id="zoom-detail", show=False),
    Binding(
        "v",
        "show_frame",
        "Frame",
        id="show-frame",
        show=False,
        tooltip="The selected task's offending (or last) raw frame",
    ),
    Binding(
        "C",
        "clear_gone",
        "Clear gone",
        id="clear-forgotten",
        show=False,
        tooltip="Remove the rows of tasks the server no longer knows (forgotten, not found)",
    ),
    Binding("question_mark", "toggle_help", "Keys", id="help", tooltip="Show every binding"),
    Binding("q", "quit", "Quit", id="quit"),
]

LIST_BINDINGS: list[BindingType] = [
    Binding("x", "app.cancel_tasks", "Cancel", id="cancel-task", tooltip="Cancel (asks first)"),
    Binding("space", "app.toggle_mark", "Mark", id="mark-task", tooltip="Mark or unmark"),
    Binding("ctrl+a", "app.mark_all", "Mark all", id="mark-all", show=False),
    Binding(
        "e",
        "app.export_tasks",
        "Export",
        id="export-tasks",
        show=False,
        tooltip="Export the tasks' lives as Markdown (JSON for a .json path)",
    ),
    Binding(
        "d", "app.forget_tasks", "Forget", id="forget-task", show=False, tooltip="Stop watching"
    ),
]

ALL_BINDINGS: tuple[Binding, ...] = tuple(
    binding for binding in (*APP_BINDINGS, *LIST_BINDINGS) if isinstance(binding, Binding)
)
"""For the README and the tests: every binding with its id."""


def stateful_description(action: str, *, paused: bool) -> str | None:
    """The footer's word for an action whose meaning follows the App's state (None: its
    binding's description): `p` resumes while polling is paused."""
    if action == "toggle_pause" and paused:
        return "Resume"
    return None


def disabled_reason(action: str, capabilities: TasksCapabilities | None) -> str | None:
    """Why `action` cannot run against a server with these capabilities (None: it can, or the
    server is not known yet); the footer shows it as the greyed key's tooltip."""
    if action == "cancel_tasks" and capabilities is not None and not capabilities.cancel:
        return "This server declared no tasks/cancel: its tasks cannot be cancelled."
    return None
