"""The App's `action_*` methods, the names its bindings and palette use: each dispatches to the
verb (`app.tui.verbs`) or pane (`app.tui.panes`) that does the work, or sets the reactive state
the widgets follow. A mixin of `TaskscopeApp`, so the action names stay on the App."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from textual.app import App, SystemCommand
from textual.screen import Screen

from app.tui import filter_bar, panes
from app.tui.bindings import MUTATING_ACTIONS, disabled_reason, stateful_description
from app.tui.commands import app_commands
from app.tui.problems import describe
from app.tui.verbs import (
    advertising,
    answer,
    cancel,
    checking,
    create,
    finding,
    poll,
    saving,
    signing,
)
from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.check.model import Finding, RunReport
    from app.engine.rpc.rpc_types import Frame
    from app.engine.tasks.models import InputRequest
    from app.tui.app import TaskscopeApp
    from app.view.state import SortKey
    from widgets.arguments_form import CreateRequest
    from widgets.input_inbox import InboxEntry


class VerbActions:
    """Every action of `TaskscopeApp`, dispatched."""

    @property
    def _app(self) -> TaskscopeApp:
        return cast("TaskscopeApp", self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: the mutating bindings are hidden from the footer and do nothing; an
        action the server cannot serve is greyed out (see `disabled_reason`)."""
        if self._app.readonly and action in MUTATING_ACTIONS:
            return False
        return None if self.disabled_reason(action) else True

    def disabled_reason(self, action: str) -> str | None:
        """Why `action` cannot run against this server, or None when it can; the footer shows
        it as the greyed key's tooltip and pressing the key says it."""
        return disabled_reason(
            action, self._app.info.capabilities if self._app.info is not None else None
        )

    def binding_description(self, action: str) -> str | None:
        """What the footer calls `action` now, when its binding's description no longer says
        it (`p` while polling is paused)."""
        return stateful_description(action, paused=self._app.paused)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from App.get_system_commands(self._app, screen)
        yield from app_commands(self._app)

    def go_to_task(self, task_id: str) -> None:
        """Select a task (clearing the filter if it hides it); used by the palette."""
        app = self._app
        if task_id not in app.shown_ids():
            self.set_filter("", faults_only=False)
        app.table.select_task(task_id)
        app.shown_list.focus()

    def set_filter(self, query: str, *, faults_only: bool) -> None:
        """Filter the list by `query` (and faults only, or not)."""
        app = self._app
        app.list_query = app.list_query.filtered(query, faults_only=faults_only)

    def refuse_greyed_key(self, key: str) -> bool:
        """A key greyed out for this server says why instead of running; whether it was one."""
        app = self._app
        active = app.screen.active_bindings.get(key)
        if active is None or active.enabled:
            return False
        reason = app.disabled_reason(active.binding.action.removeprefix("app."))
        if reason is not None:
            toast(app, reason, severity="warning")
        return reason is not None

    def action_choose_selected(self) -> None:
        """Enter on a row or a bar answers the selected task's pending input, if it has any."""
        app = self._app
        selected = app.table.selected_task_id
        watched = app.tasks.get(selected) if selected is not None else None
        if watched is not None and watched.input_waiting:
            answer.answer_selected(app)

    def action_new_task(self) -> None:
        create.new_task(self._app)

    async def create_task(self, request: CreateRequest) -> None:
        """Run one tool call (the arguments form's result, or a test's)."""
        await create.create_task(self._app, request)

    def action_cancel_tasks(self) -> None:
        cancel.cancel_tasks(self._app)

    def action_list_tasks(self) -> None:
        finding.list_tasks(self._app)

    def action_adopt_task(self) -> None:
        finding.adopt_task(self._app)

    def action_forget_tasks(self) -> None:
        finding.forget_tasks(self._app)

    def action_clear_gone(self) -> None:
        finding.clear_gone(self._app)

    def action_sign_out(self) -> None:
        signing.sign_out(self._app)

    def action_check_server(self) -> None:
        checking.check_server(self._app)

    def action_advertised_capabilities(self) -> None:
        advertising.advertised_capabilities(self._app)

    def action_toggle_mark(self) -> None:
        app = self._app
        selected = app.table.selected_task_id
        if selected is not None:
            app.marked ^= {selected}
            app.refresh_view()

    def action_mark_all(self) -> None:
        app = self._app
        shown = set(app.shown_ids())
        app.marked = set() if shown <= app.marked else app.marked | shown
        app.refresh_view()

    def action_copy_json(self) -> None:
        saving.copy_json(self._app)

    def action_save_json(self) -> None:
        saving.save_json(self._app)

    def action_export_tasks(self) -> None:
        saving.export_tasks(self._app)

    def action_poll_now(self) -> None:
        poll.poll_now(self._app)

    def action_answer_input(self) -> None:
        answer.answer_selected(self._app)

    async def answer_request(self, request: InputRequest) -> dict[str, Any] | None:
        """Open the modal for one input request (see `verbs.answer.answer_request`)."""
        return await answer.answer_request(self._app, request)

    def inbox_entries(self) -> list[InboxEntry]:
        return answer.inbox_entries(self._app)

    def action_input_inbox(self) -> None:
        answer.open_inbox(self._app)

    def action_toggle_pause(self) -> None:
        """Pause or resume the poller; the header and the screen's style follow `paused`."""
        app = self._app
        try:
            app.source.set_paused(not app.paused)
        except Exception as exc:
            toast(app, describe(exc), severity="error")
            return
        app.paused = not app.paused

    def action_filter(self) -> None:
        filter_bar.open_filter_bar(self._app)

    def action_toggle_faults(self) -> None:
        app = self._app
        app.set_filter(app.filter_query, faults_only=not app.task_filter.faults_only)

    def action_sort(self, key: SortKey) -> None:
        """Sort by `key` (the same key again reverses)."""
        app = self._app
        app.list_query = app.list_query.sorted_by(key)

    def action_toggle_log(self) -> None:
        panes.toggle_log(self._app)

    def open_exchange(self, frame: Frame) -> None:
        panes.open_exchange(self._app, frame)

    def open_check_evidence(self, finding: Finding) -> None:
        checking.open_evidence(self._app, finding)

    def export_check_report(self, report: RunReport) -> None:
        checking.export_report(self._app, report)

    async def action_toggle_time_view(self) -> None:
        await panes.toggle_time_view(self._app)

    def action_toggle_zoom(self) -> None:
        panes.toggle_zoom(self._app)

    def action_show_frame(self) -> None:
        panes.show_frame(self._app)

    def action_show_server(self) -> None:
        panes.show_server(self._app)

    def action_toggle_help(self) -> None:
        panes.toggle_help(self._app)

    async def action_quit(self) -> None:
        """Leave at once; the connection is closed on unmount, or after the App's terminal is
        restored when `close_on_unmount` is off (the command line's case)."""
        self._app.exit(0)
