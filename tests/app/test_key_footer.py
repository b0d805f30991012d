"""The one-widget key footer: what it shows (the bindings Textual's Footer would show, keymap and
read-only included), the command-palette hint at the right, clicks, and coalesced redraws."""

from __future__ import annotations

import dataclasses
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding

from app.tui.app import TaskscopeApp
from app.tui.config import TuiConfig
from tests.support.tui_helpers import wait_for
from tests.support.tui_recording import INFO, recorded_app, recorded_source
from widgets.key_footer import KeyFooter

MAIN_SCREEN_KEYS = (
    "x Cancel space Mark n New / Filter f Faults p Pause i Inbox L RPC log t Time c Check "
    "? Keys q Quit"
)
"""Textual's compact Footer showed exactly these, in this order, with the task list focused (and
`t Time` since the time view came, `c Check` since the check did)."""


def footer_line(app: App[Any]) -> str:
    """The footer's row as plain text."""
    footer = app.query_one(KeyFooter)
    return footer.render().plain


async def test_shows_the_main_screens_keys_and_the_palette_at_the_right() -> None:
    app = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        line = footer_line(app)
        assert len(line) == 120
        assert line.startswith(MAIN_SCREEN_KEYS + " ")
        assert line.endswith("▏^p palette ")


async def test_narrow_terminal_drops_the_rightmost_keys_but_keeps_help_quit_and_palette() -> None:
    app = recorded_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        line = footer_line(app)
        assert len(line) == 80 and line.endswith("▏^p palette ")
        assert line.startswith("x Cancel space Mark n New / Filter f Faults p Pause ? Keys q Quit ")
        assert "RPC log" not in line and "Inbox" not in line  # the rightmost gave way first
        footer = app.query_one(KeyFooter)
        quit_hint = footer.hint_at(line.index("q Quit"))
        assert quit_hint is not None and quit_hint.key == "q"  # what is drawn is clickable
        assert footer.hint_at(77) is not None  # the palette is clickable
        assert footer.hint_at(80 - len("▏^p palette ")) is None  # separator


async def test_a_very_narrow_footer_shortens_the_palette_hint_before_help_or_quit() -> None:
    app = recorded_app()
    async with app.run_test(size=(24, 24)) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        line = footer_line(app)
        assert line.startswith("? Keys q Quit ") and line.endswith("▏^p ")


async def test_keymap_overrides_and_read_only_show_in_the_footer() -> None:
    app = recorded_app(config=TuiConfig(keymap={"pause": "P"}))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        assert " P Pause " in footer_line(app) and " p Pause " not in footer_line(app)
        assert "n New" in footer_line(app)
        app.info = dataclasses.replace(INFO, readonly=True)
        app.refresh_bindings()
        await pilot.pause()
        assert "n New" not in footer_line(app) and "x Cancel" not in footer_line(app)


async def test_clicking_a_key_runs_its_binding() -> None:
    app = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        column = footer_line(app).index("f Faults")
        assert not app.task_filter.faults_only
        await pilot.click(KeyFooter, offset=(column + 3, 0))
        assert app.task_filter.faults_only
        await pilot.click(KeyFooter, offset=(column - 1, 0))  # the gap between two keys
        assert app.task_filter.faults_only


async def test_bindings_changes_before_a_refresh_cost_one_render() -> None:
    renders: list[int] = []

    class CountingFooter(KeyFooter):
        def render(self) -> Any:
            renders.append(1)
            return super().render()

    class CountingApp(TaskscopeApp):
        def compose(self) -> ComposeResult:
            for widget in super().compose():
                yield CountingFooter() if isinstance(widget, KeyFooter) else widget

    app = CountingApp(recorded_source(), remember_tasks=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        await pilot.pause()
        before = len(renders)
        for _ in range(3):
            app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert len(renders) == before + 1


class GreyedApp(App[None]):
    """One binding shown but disabled (`check_action` answers None), one enabled."""

    BINDINGS = [Binding("g", "grey", "Grey"), Binding("o", "ok", "Ok")]

    def __init__(self) -> None:
        super().__init__()
        self.pressed: list[str] = []
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "grey" else True

    def action_grey(self) -> None:
        self.pressed.append("grey")

    def action_ok(self) -> None:
        self.pressed.append("ok")

    def bell(self) -> None:
        self.bells += 1


async def test_a_disabled_key_is_dimmed_and_a_click_on_it_rings_the_bell() -> None:
    app = GreyedApp()
    async with app.run_test(size=(60, 5)) as pilot:
        footer = app.query_one(KeyFooter)
        text = footer.render()
        assert text.plain.startswith("g Grey o Ok ")
        assert text.get_style_at_offset(app.console, 0).dim
        assert not text.get_style_at_offset(app.console, 7).dim
        await pilot.click(KeyFooter, offset=(0, 0))
        await pilot.click(KeyFooter, offset=(7, 0))
        assert app.pressed == ["ok"] and app.bells == 1


async def test_the_pause_key_says_resume_while_polling_is_paused() -> None:
    app = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        await pilot.press("p")
        await wait_for(pilot, lambda: "p Resume" in footer_line(app))
        assert "Pause" not in footer_line(app)
        await pilot.press("p")
        await wait_for(pilot, lambda: "p Pause" in footer_line(app))
