"""SVG snapshots of the input modals at 120x36 and 80x24: the full form, URL consent, sampling."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from app.demo.asking_tools import PROVISION_SCHEMA
from app.engine.forms.schema_form import parse_schema
from app.engine.tasks.models import InputKind, InputRequest
from tests.support.input_host import (
    INPUT_SIZES,
    FakeSubmit,
    InputHost,
    form_request,
    sampling_request,
    url_request,
)
from widgets.input_form import InputForm
from widgets.input_inbox import InboxEntry, InputInbox
from widgets.input_sampling import InputSampling
from widgets.input_url import InputUrl


async def settle(pilot: Pilot[None]) -> None:
    """Stop text-area cursors blinking and let the modal finish its layout."""
    for area in pilot.app.screen.query(TextArea):
        area.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", INPUT_SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_form_with_every_field_type(snap_compare: Any, size: tuple[int, int]) -> None:
    request = form_request(PROVISION_SCHEMA)
    spec = parse_schema(PROVISION_SCHEMA)
    app = InputHost(lambda: InputForm(request, spec, FakeSubmit(), server="demo-extension"))
    assert snap_compare(app, terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", INPUT_SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_url_consent(snap_compare: Any, size: tuple[int, int]) -> None:
    app = InputHost(lambda: InputUrl(url_request(), FakeSubmit(), server="shop", opener=print))
    assert snap_compare(app, terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", INPUT_SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_sampling_request(snap_compare: Any, size: tuple[int, int]) -> None:
    app = InputHost(lambda: InputSampling(sampling_request(), FakeSubmit(), server="demo"))
    assert snap_compare(app, terminal_size=size, run_before=settle)


def inbox_entry(key: str, task_id: str, message: str, age: float) -> InboxEntry:
    """A form question of `task_id` on one server, asked `age` seconds before INBOX_NOW."""
    request = InputRequest(
        key=key,
        kind=InputKind.FORM,
        method="elicitation/create",
        params={},
        wire="extension",
        task_id=task_id,
        message=message,
    )
    return InboxEntry(request, "demo", INBOX_NOW - age)


INBOX_NOW = 1_000_000.0
INBOX_ENTRIES = [
    inbox_entry("a", "t-1", "Approve the rollout of 2.4.0?", 95),
    inbox_entry("b", "t-1", "When should it roll out?", 90),
    inbox_entry("c", "t-2", "Describe the server to provision: " + "its name, size, " * 8, 30),
]


@pytest.mark.parametrize("size", INPUT_SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_inbox_with_one_server(snap_compare: Any, size: tuple[int, int]) -> None:
    """One server: no Server column, the question takes the room and a long one ends in …."""
    app = InputHost(lambda: InputInbox(INBOX_ENTRIES, no_answer, clock=lambda: INBOX_NOW))
    assert snap_compare(app, terminal_size=size, run_before=settle)


async def no_answer(entry: InboxEntry) -> dict[str, Any] | None:
    """Puts every question off (the snapshot only shows the list)."""
    return None
