"""App behaviour on a fixed recording (no server): marks, copy/export, keymap, sort, palette, input.

Plus the small pure pieces the App is built from: config, known-task store, batcher, tool info.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.notifications import Notify
from textual.widgets import Input, TextArea

from app.engine.rpc.tool_info import ToolInfo
from app.engine.tasks.events import TaskEvent
from app.tui.app import TaskscopeApp
from app.tui.bindings import ALL_BINDINGS
from app.tui.config import TuiConfig, load_config
from app.tui.intake import NOTE_SUMMARIES
from app.tui.messages import Batcher
from app.tui.notes import NoteMerger
from app.tui.recorded import RecordedSource
from app.view.known_tasks import KnownTasks
from tests.support.markup import Notes
from tests.support.tui_helpers import wait_for
from tests.support.tui_recording import (
    INFO,
    NOW,
    RECORDED_TASKS,
    TOOLS,
    recorded_app,
    recorded_events,
    recorded_frames,
)
from widgets.arguments_form import ArgumentsForm, task_choice
from widgets.confirm import TextPrompt
from widgets.header_bar import HeaderBar
from widgets.input_form import InputForm
from widgets.input_inbox import InputInbox
from widgets.task_cells import MARK_GLYPH
from widgets.tool_picker import ToolPicker

SIZE = (120, 36)


async def loaded(pilot: Any) -> TaskscopeApp:
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS and app.table.row_count)
    return app


async def test_recording_fills_the_list_header_and_detail() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.table.row_count == RECORDED_TASKS
        header = app.query_one(HeaderBar).header_text().plain
        assert "taskscope-demo-extension 0.1.0" in header
        assert "2026-07-28" in header and "extension tasks [call cancel update" in header
        assert "● connected" in header and "8 tasks" in header
        assert app.detail.watched is not None
        assert app.detail.watched.task_id == app.table.selected_task_id
        statuses = {watched.status for watched in app.tasks.tasks.values()}
        assert statuses == {
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled",
            "expired",
        }


async def test_marks_copy_and_export_act_on_every_marked_task(tmp_path: Path) -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        first, second = app.table.order[:2]
        await pilot.press("space", "down", "space")
        assert app.marked == {first, second} == app.table.marked
        assert str(app.table.get_cell(first, "mark")) == MARK_GLYPH
        assert str(app.table.get_cell(app.table.order[2], "mark")) == ""
        await pilot.press("y")
        copied = json.loads(app.clipboard)
        assert [task["taskId"] for task in copied] == [first, second]
        assert copied[0]["raw"]["taskId"] == first
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        prompt_input = app.screen.query_one(Input)
        assert prompt_input.value.startswith("taskscope-export-")
        target = tmp_path / "out" / "export.json"
        prompt_input.value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, target.exists)
        exported = json.loads(target.read_text())
        assert [task["taskId"] for task in exported["tasks"]] == [first, second]
        assert exported["tasks"][0]["watch"]["timeline"]
        await pilot.press("escape")  # clears the marks
        assert not app.marked
        await pilot.press("y")
        assert json.loads(app.clipboard)["taskId"] == app.table.selected_task_id


async def test_forget_removes_rows_for_good() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        victim = app.table.selected_task_id
        assert victim is not None
        await pilot.press("d")
        assert victim not in app.tasks and victim not in app.table.order
        assert app.table.row_count == RECORDED_TASKS - 1


async def test_keymap_from_config_remaps_by_binding_id(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"keymap": {"pause": "P", "bad": 3}, "theme": "nord"}))
    config = load_config(path)
    assert config.keymap == {"pause": "P"} and config.theme == "nord"
    assert config.problems and "keymap.bad" in config.problems[0]
    app = recorded_app(config=config)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.theme == "nord"
        await pilot.press("p")
        assert not app.paused
        await pilot.press("P")
        assert app.paused
        source = app.source
        assert isinstance(source, RecordedSource) and source.paused
        assert "polling paused" in app.query_one(HeaderBar).header_text().plain


async def test_a_keymap_id_no_binding_has_is_named_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"keymap": {"pause": "P", "paws": "x", "exchange-copy": "c"}}))
    notes = Notes()
    app = recorded_app(config=load_config(path))
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await loaded(pilot)
        await wait_for(pilot, lambda: bool(notes.titled("Config")))
        [warning] = notes.titled("Config")  # a modal's own id (exchange-copy) is known
        assert warning.severity == "warning"
        assert "'paws'" in warning.message and str(path) in warning.message
        assert "'pause'" not in warning.message and "exchange-copy" not in warning.message


async def test_keys_help_offers_no_sideways_scrolling_for_lists_that_never_scroll() -> None:
    sideways = {"scroll_left", "scroll_right", "page_left", "page_right"}
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        for view in ("list", "time view"):
            if view == "time view":
                await pilot.press("t")
                await wait_for(pilot, lambda: app.focused is app.shown_list is app.time_view)
            actions = {state.binding.action for state in app.screen.active_bindings.values()}
            assert "cursor_down" in actions and not actions & sideways, view


def test_every_binding_has_a_unique_id() -> None:
    ids = [binding.id for binding in ALL_BINDINGS]
    assert None not in ids and len(ids) == len(set(ids))


def test_config_file_problems_are_reported_not_fatal(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    assert "not valid JSON" in load_config(broken).problems[0]
    assert load_config(tmp_path / "missing.json") == TuiConfig()
    deep = tmp_path / "deep.json"
    deep.write_text(
        '{"keymap": ' + "[" * 100_000 + "]" * 100_000 + ', "timeline": ' + "9" * 5000 + "}"
    )
    assert load_config(deep).problems == (
        "keymap must be an object of binding id to key",
        "timeline must be a whole number from 1 to 1,000,000",
    )


async def test_a_narrow_header_gives_up_detail_before_the_tasks_wire() -> None:
    """At 80 columns the header drops the declared verbs, the protocol and the server's version
    before it would cut the wire to "e…"; wide, it shows everything."""
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        header = app.query_one(HeaderBar)
        wide = header.header_text(200).plain.splitlines()[0]
        assert "0.1.0 · http · 2026-07-28 · extension tasks [call cancel update" in wide
        for columns in (80, 100):
            line = header.header_text(columns - 2).plain.splitlines()[0]
            assert len(line) <= columns - 2
            assert "extension tasks" in line and "…" not in line, line
        assert "[" not in header.header_text(78).plain.splitlines()[0]


async def test_sort_keys_say_in_words_which_come_first_and_poll_now() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        header = app.query_one(HeaderBar)

        def sort_shown() -> str:
            line = header.header_text(SIZE[0] - 2).plain.splitlines()[1]
            return line[line.index("sort: ") :] if "sort: " in line else ""

        assert sort_shown() == ""
        await pilot.press("S")
        assert sort_shown() == "sort: status (input first)"
        assert app.tasks.tasks[app.table.order[0]].status == "input_required"
        await pilot.press("S")
        assert sort_shown() == "sort: status (completed first)"
        await pilot.press("A")
        assert sort_shown() == "sort: age (newest first)"
        assert app.table.order[0] == "sync-1"  # the newest: seen 12 s ago
        await pilot.press("A")
        assert sort_shown() == "sort: age (oldest first)"
        assert app.table.order[0] == "tk-backup-e012"  # created 4,000 s ago
        await pilot.press("U")
        assert sort_shown() == "sort: changed (latest first)"
        await pilot.press("T")
        assert sort_shown() == "sort: tool (A→Z)"
        assert app.tasks.tasks[app.table.order[0]].tool_name == "analyze_logs"
        await pilot.press("T")
        assert sort_shown() == "sort: tool (Z→A)"
        app.go_to_task("tk-report-01a9")
        await pilot.press("r")
        source = app.source
        assert isinstance(source, RecordedSource) and source.polled == ["tk-report-01a9"]


async def test_palette_goes_to_a_task_even_through_a_filter() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("slash", *"status:working", "enter")
        await wait_for(pilot, lambda: "tk-sync-90be" not in app.table.order)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"go to task tk-sync")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.table.selected_task_id == "tk-sync-90be")
        assert app.filter_query == ""


async def test_input_waiting_task_opens_the_input_modal() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.go_to_task("tk-deploy-7f3a")
        await pilot.press("I")
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))


async def test_read_only_source_refuses_create_without_crashing() -> None:
    app = recorded_app()
    notes: list[str] = []
    async with app.run_test(size=SIZE, message_hook=lambda m: notes.append(repr(m))) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
        form = app.screen
        assert isinstance(form, ArgumentsForm)
        assert form.query_one("#arguments-task-note").display  # extension: server decides
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, ArgumentsForm))
        await pilot.pause(0.2)
        assert app.is_running and len(app.tasks) == RECORDED_TASKS
        assert any("recording" in note for note in notes)


async def test_arguments_form_validates_and_switches_to_json() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        tool = app.source.tools[0] if isinstance(app.source, RecordedSource) else None
        assert tool is not None
        results: list[Any] = []
        optional = dataclasses.replace(tool, task_support="optional")
        form = ArgumentsForm(optional, legacy=True, can_create_tasks=True)
        app.push_screen(form, results.append)
        await pilot.pause()
        pages = form.fields[1].widget
        assert isinstance(pages, Input)
        pages.value = "99"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not results and form.fields[1].error.display  # maximum 50
        pages.value = "12"
        await pilot.pause()
        assert not form.fields[1].error.display  # fixed: the mark clears as it is edited
        await pilot.press("ctrl+j")
        assert form.json_mode
        editor_text = form.query_one("#arguments-json").text  # type: ignore[attr-defined]
        assert json.loads(editor_text) == {"quarter": "Q3", "pages": 12, "draft": True}
        editor = form.query_one("#arguments-json", TextArea)
        editor.load_text('{"quarter": "Q1", "pages": 7, "draft": false}')
        await pilot.press("ctrl+j")  # back to the form, carrying the values
        assert not form.json_mode
        assert [field.raw() for field in form.fields] == ["Q1", "7", False]
        await pilot.press("ctrl+j")
        form.query_one("#ttl", Input).value = "5000"
        await pilot.press("ctrl+s")
        await pilot.pause()
        request = results[0]
        assert request.arguments == {"quarter": "Q1", "pages": 7, "draft": False}
        assert (request.ttl_ms, request.as_task) == (5000, True)


async def test_a_task_forbidden_tool_is_offered_no_ttl() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        forbidden = ToolInfo("lookup", "", {"type": "object"}, "forbidden")
        form = ArgumentsForm(forbidden, legacy=True, can_create_tasks=True)
        app.push_screen(form)
        await pilot.pause()
        assert not form.query("#ttl") and not form.query("#arguments-ttl-row")
        optional = ArgumentsForm(
            dataclasses.replace(forbidden, task_support="optional"),
            legacy=True,
            can_create_tasks=True,
        )
        app.push_screen(optional)
        await pilot.pause()
        assert optional.query("#ttl")


def test_task_choice_follows_task_support() -> None:
    def tool(support: Any) -> ToolInfo:
        return ToolInfo("t", "", {}, support)

    assert task_choice(tool("required"), True) == (True, False, "taskSupport: required")
    assert task_choice(tool("optional"), True)[:2] == (True, True)
    assert task_choice(tool("forbidden"), True)[:2] == (False, False)
    assert task_choice(tool("required"), False)[:2] == (False, False)


def test_known_tasks_round_trip_and_survive_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "known.json"
    store = KnownTasks("url:a", path)
    store.remember("t1", "tool_a")
    store.remember("t2", None)
    KnownTasks("url:b", path).remember("t3", "tool_b")
    assert [(e.task_id, e.tool) for e in store.load()] == [("t1", "tool_a"), ("t2", None)]
    store.drop({"t1"})
    assert [e.task_id for e in store.load()] == ["t2"]
    assert [e.task_id for e in KnownTasks("url:b", path).load()] == ["t3"]
    path.write_text("not json")
    assert store.load() == []
    store.remember("t4", None)
    assert [e.task_id for e in store.load()] == ["t4"]


async def test_batcher_flushes_a_burst_at_most_once_per_interval() -> None:
    batches: list[tuple[list[Any], list[Any]]] = []
    batcher = Batcher(lambda events, frames: batches.append((events, frames)), interval=0.2)
    first, *burst = recorded_events()[:5]
    frame = recorded_frames()[0]
    batcher.add_event(first)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert batches == [([first], [])]  # the first item after a quiet spell goes at once
    for event in burst:
        batcher.add_event(event)
    batcher.add_frame(frame)
    await asyncio.sleep(0.05)
    assert len(batches) == 1
    await asyncio.sleep(0.25)
    assert batches == [([first], []), (burst, [frame])]


async def test_batcher_paces_clock_pokes_with_the_batches() -> None:
    """A poke (the App's clock) flushes on the same cadence as events, even with nothing queued,
    so the clock and the batches together flush at most once per interval."""
    flushed: list[float] = []
    loop = asyncio.get_running_loop()
    batcher = Batcher(lambda events, frames: flushed.append(loop.time()), interval=0.1)
    end = loop.time() + 0.5
    while loop.time() < end:
        batcher.poke()
        batcher.add_event(recorded_events()[0])
        await asyncio.sleep(0.01)
    gaps = [later - earlier for earlier, later in itertools.pairwise(flushed)]
    assert len(flushed) >= 4 and min(gaps) >= 0.1 * 0.95


@pytest.mark.parametrize("query", ["", "tool:build"])
async def test_filter_bar_escape_clears(query: str) -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("slash", *query)
        await pilot.press("escape")
        assert app.filter_query == "" and len(app.table.order) == RECORDED_TASKS
        assert app.table.has_focus


async def test_inbox_lists_every_pending_input() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InputInbox))
        inbox = app.screen
        assert isinstance(inbox, InputInbox)
        assert [(e.request.task_id, e.request.key) for e in inbox.entries] == [
            ("tk-deploy-7f3a", "approve")
        ]


def finishing_app(config: TuiConfig) -> TaskscopeApp:
    """The App on a source where one task goes from working to failed."""
    working = recorded_events()[0].task
    assert working is not None
    failed = working.model_copy(update={"status": "failed", "status_message": "Out of disk"})
    events = [
        dataclasses.replace(recorded_events()[0]),
        TaskEvent(
            kind="transition",
            task_id=working.task_id,
            task=failed,
            at=NOW - 1,
            source="poll",
            previous_status="working",
        ),
    ]
    source = RecordedSource(INFO, events, [], TOOLS)
    return TaskscopeApp(source, clock=lambda: NOW, config=config, remember_tasks=False)


@pytest.mark.parametrize(("bell", "toasts"), [(True, True), (False, False), (True, False)])
async def test_a_task_ending_rings_and_toasts_unless_turned_off(
    bell: bool, toasts: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    app = finishing_app(TuiConfig(bell=bell, toasts=toasts))
    app.notes = NoteMerger(NOTE_SUMMARIES, quiet=0.0)  # told as soon as it ends
    rings: list[bool] = []
    monkeypatch.setattr(app, "bell", lambda: rings.append(True))
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_for(pilot, lambda: any(w.status == "failed" for w in app.tasks.tasks.values()))
        await pilot.pause()
    notes = [message.notification for message in seen if isinstance(message, Notify)]
    finished = [note for note in notes if note.title == "Task finished"]
    assert len(finished) == (1 if toasts else 0)
    if toasts:
        assert "failed" in finished[0].message
        assert finished[0].severity == "error"
    assert rings == ([True] if bell else [])


def test_history_caps_in_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"timeline": 50, "rpc_log": 0}))
    config = load_config(path)
    assert (config.timeline, config.rpc_log) == (50, TuiConfig().rpc_log)
    assert config.problems == ("rpc_log must be a whole number from 1 to 1,000,000",)


async def test_the_app_keeps_no_more_history_than_the_config_allows() -> None:
    roomy = recorded_app()
    async with roomy.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert len(roomy.rpc_frames) > 3
        assert max(len(watched.timeline) for watched in roomy.tasks.tasks.values()) > 1
    tight = recorded_app(config=TuiConfig(timeline=1, rpc_log=3))
    async with tight.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert len(tight.rpc_frames) == 3
        assert max(len(watched.timeline) for watched in tight.tasks.tasks.values()) == 1


def test_bell_and_toasts_switches_in_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"bell": False, "toasts": "no"}))
    config = load_config(path)
    assert config.bell is False and config.toasts is True
    assert config.problems == ("toasts must be true or false",)
