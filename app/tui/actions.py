"""The App's `action_*` methods, the names its bindings and palette use: each dispatches to the
verb (`app.tui.verbs`) or pane (`app.tui.panes`) that does the work, or sets the reactive state
the widgets follow. A mixin of `TaskscopeApp`, so the action names stay on the App; each method's
`self` is the protocol of `app.tui.host` that its verb needs (`Listing` for the list's own
state), never the App's class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.tui import filter_bar, panes
from app.tui.bindings import MUTATING_ACTIONS, disabled_reason, stateful_description
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
    from app.tui.host import (
        Advertising,
        Answering,
        Cancelling,
        Checking,
        Connected,
        Creating,
        Exchanges,
        Filtering,
        Listing,
        Panes,
        Polling,
        Saving,
        Watching,
    )
    from app.view.state import SortKey
    from widgets.arguments_form import CreateRequest
    from widgets.input_inbox import InboxEntry


class VerbActions:
    """Every action of `TaskscopeApp`, dispatched."""

    def check_action(self: Listing, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: the mutating bindings are hidden from the footer and do nothing; an
        action the server cannot serve is greyed out (see `disabled_reason`)."""
        if self.readonly and action in MUTATING_ACTIONS:
            return False
        return None if self.disabled_reason(action) else True

    def disabled_reason(self: Listing, action: str) -> str | None:
        """Why `action` cannot run against this server, or None when it can; the footer shows
        it as the greyed key's tooltip and pressing the key says it."""
        return disabled_reason(action, self.info.capabilities if self.info is not None else None)

    def binding_description(self: Listing, action: str) -> str | None:
        """What the footer calls `action` now, when its binding's description no longer says
        it (`p` while polling is paused)."""
        return stateful_description(action, paused=self.paused)

    def go_to_task(self: Listing, task_id: str) -> None:
        """Select a task (clearing the filter if it hides it); used by the palette."""
        if task_id not in self.shown_ids():
            self.set_filter("", faults_only=False)
        self.table.select_task(task_id)
        self.shown_list.focus()

    def set_filter(self: Listing, query: str, *, faults_only: bool) -> None:
        """Filter the list by `query` (and faults only, or not)."""
        self.list_query = self.list_query.filtered(query, faults_only=faults_only)

    def refuse_greyed_key(self: Listing, key: str) -> bool:
        """A key greyed out for this server says why instead of running; whether it was one."""
        active = self.screen.active_bindings.get(key)
        if active is None or active.enabled:
            return False
        reason = self.disabled_reason(active.binding.action.removeprefix("app."))
        if reason is not None:
            toast(self, reason, severity="warning")
        return reason is not None

    def action_choose_selected(self: Answering) -> None:
        """Enter on a row or a bar answers the selected task's pending input, if it has any."""
        selected = self.table.selected_task_id
        watched = self.tasks.get(selected) if selected is not None else None
        if watched is not None and watched.input_waiting:
            answer.answer_selected(self)

    def action_new_task(self: Creating) -> None:
        create.new_task(self)

    async def create_task(self: Creating, request: CreateRequest) -> None:
        """Run one tool call (the arguments form's result, or a test's)."""
        await create.create_task(self, request)

    def action_cancel_tasks(self: Cancelling) -> None:
        cancel.cancel_tasks(self)

    def action_list_tasks(self: Watching) -> None:
        finding.list_tasks(self)

    def action_adopt_task(self: Watching) -> None:
        finding.adopt_task(self)

    def action_forget_tasks(self: Watching) -> None:
        finding.forget_tasks(self)

    def action_clear_gone(self: Watching) -> None:
        finding.clear_gone(self)

    def action_sign_out(self: Connected) -> None:
        signing.sign_out(self)

    def action_check_server(self: Checking) -> None:
        checking.check_server(self)

    def action_advertised_capabilities(self: Advertising) -> None:
        advertising.advertised_capabilities(self)

    def action_toggle_mark(self: Listing) -> None:
        selected = self.table.selected_task_id
        if selected is not None:
            self.marked ^= {selected}
            self.refresh_view()

    def action_mark_all(self: Listing) -> None:
        shown = set(self.shown_ids())
        self.marked = set() if shown <= self.marked else self.marked | shown
        self.refresh_view()

    def action_copy_json(self: Saving) -> None:
        saving.copy_json(self)

    def action_save_json(self: Saving) -> None:
        saving.save_json(self)

    def action_export_tasks(self: Saving) -> None:
        saving.export_tasks(self)

    def action_poll_now(self: Polling) -> None:
        poll.poll_now(self)

    def action_answer_input(self: Answering) -> None:
        answer.answer_selected(self)

    async def answer_request(self: Answering, request: InputRequest) -> dict[str, Any] | None:
        """Open the modal for one input request (see `verbs.answer.answer_request`)."""
        return await answer.answer_request(self, request)

    def inbox_entries(self: Answering) -> list[InboxEntry]:
        return answer.inbox_entries(self)

    def action_input_inbox(self: Answering) -> None:
        answer.open_inbox(self)

    def action_toggle_pause(self: Listing) -> None:
        """Pause or resume the poller; the header and the screen's style follow `paused`."""
        try:
            self.source.set_paused(not self.paused)
        except Exception as exc:
            toast(self, describe(exc), severity="error")
            return
        self.paused = not self.paused

    def action_filter(self: Filtering) -> None:
        filter_bar.open_filter_bar(self)

    def action_toggle_faults(self: Listing) -> None:
        self.set_filter(self.filter_query, faults_only=not self.task_filter.faults_only)

    def action_sort(self: Listing, key: SortKey) -> None:
        """Sort by `key` (the same key again reverses)."""
        self.list_query = self.list_query.sorted_by(key)

    def action_toggle_log(self: Panes) -> None:
        panes.toggle_log(self)

    def open_exchange(self: Exchanges, frame: Frame) -> None:
        panes.open_exchange(self, frame)

    def open_check_evidence(self: Checking, finding: Finding) -> None:
        checking.open_evidence(self, finding)

    def export_check_report(self: Checking, report: RunReport) -> None:
        checking.export_report(self, report)

    async def action_toggle_time_view(self: Panes) -> None:
        await panes.toggle_time_view(self)

    def action_toggle_zoom(self: Panes) -> None:
        panes.toggle_zoom(self)

    def action_show_frame(self: Panes) -> None:
        panes.show_frame(self)

    def action_show_server(self: Panes) -> None:
        panes.show_server(self)

    def action_toggle_help(self: Panes) -> None:
        panes.toggle_help(self)

    async def action_quit(self: Listing) -> None:
        """Leave at once; the connection is closed on unmount, or after the App's terminal is
        restored when `close_on_unmount` is off (the command line's case)."""
        self.exit(0)
