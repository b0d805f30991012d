"""Every confirmation asks the same way: enter confirms, esc declines, and `y` (copy elsewhere)
means nothing there; the hint line says so."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.screen import ModalScreen
from textual.widgets import Static

from widgets.confirm import ConfirmModal
from widgets.input_modal import ConfirmDiscard


class ConfirmHost(App[None]):
    """Pushes one confirmation and keeps what it was dismissed with."""

    def __init__(self, modal: ModalScreen[bool]) -> None:
        super().__init__()
        self.modal = modal
        self.answers: list[bool | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.modal, self.answers.append)


def confirm_check() -> ConfirmModal:
    return ConfirmModal("Check this server?", "It runs every check.", yes="Check", no="Cancel")


def hint_line(screen: Any) -> str:
    return str(screen.query_one(".confirm-keys", Static).render())


@pytest.mark.parametrize("make", [confirm_check, ConfirmDiscard])
async def test_enter_confirms_and_esc_declines(make: Any) -> None:
    for key, answer in (("enter", True), ("escape", False)):
        app = ConfirmHost(make())
        async with app.run_test() as pilot:
            await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
            assert app.answers == [answer]


@pytest.mark.parametrize("make", [confirm_check, ConfirmDiscard])
async def test_y_and_n_mean_nothing_in_a_confirmation(make: Any) -> None:
    app = ConfirmHost(make())
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("y", "n")
        await pilot.pause()
        assert app.answers == []
        assert app.screen is app.modal


async def test_the_hint_line_names_enter_and_esc_with_what_they_do() -> None:
    app = ConfirmHost(confirm_check())
    async with app.run_test() as pilot:
        await pilot.pause()
        assert hint_line(app.screen) == "enter check · esc cancel"
    app = ConfirmHost(ConfirmDiscard())
    async with app.run_test() as pilot:
        await pilot.pause()
        assert hint_line(app.screen) == "enter discard · esc keep editing"
