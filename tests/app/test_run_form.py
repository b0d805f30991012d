"""The run form (`n`): JSON reached from a form that does not check yet, and its buttons and
keys kept on screen on a small terminal."""

from __future__ import annotations

import json
from typing import Any

from textual.widgets import Input, TextArea

from app.engine.rpc.tool_info import ToolInfo
from tests.support.tui_helpers import wait_for
from tests.support.tui_recording import RECORDED_TASKS, TOOLS, recorded_app
from widgets.arguments_form import ArgumentsForm, CreateRequest

DEPLOY = ToolInfo(
    "deploy",
    "Deploys a version.",
    {
        "type": "object",
        "properties": {
            "version": {"type": "string", "title": "Version"},
            "replicas": {"type": "integer", "minimum": 1, "title": "Replicas"},
            "region": {"type": "string", "title": "Region"},
        },
        "required": ["version"],
    },
    "optional",
)
"""A tool whose required field has no default: the form does not check until it is filled."""


async def open_form(pilot: Any, form: ArgumentsForm, results: list[CreateRequest | None]) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS)
    app.push_screen(form, results.append)
    await wait_for(pilot, lambda: app.screen is form and bool(form.fields))
    await pilot.pause()


async def test_ctrl_j_takes_a_form_that_does_not_check_to_json_with_what_is_valid() -> None:
    app = recorded_app()
    results: list[CreateRequest | None] = []
    async with app.run_test(size=(120, 36)) as pilot:
        form = ArgumentsForm(DEPLOY, legacy=True, can_create_tasks=True)
        await open_form(pilot, form, results)
        _version, replicas, region = (field.widget for field in form.fields)
        assert isinstance(replicas, Input) and isinstance(region, Input)
        replicas.value = "zero"  # does not parse; the required version is left empty
        region.value = "eu-west"
        await pilot.press("ctrl+j")
        assert form.json_mode
        editor = form.query_one("#arguments-json", TextArea)
        assert json.loads(editor.text) == {"region": "eu-west"}
        status = str(form.query_one("#arguments-status").render())
        assert "replicas" in status.lower() and "version" in status.lower()
        editor.load_text('{"version": "2.4.0", "region": "eu-west"}')  # pasted
        await pilot.press("ctrl+j")  # back: the replicas typed are still there
        assert not form.json_mode
        assert [field.raw() for field in form.fields] == ["2.4.0", "zero", "eu-west"]
        replicas.value = "3"
        await pilot.press("ctrl+j", "ctrl+s")
        await wait_for(pilot, lambda: results)
    request = results[0]
    assert request is not None
    assert request.arguments == {"version": "2.4.0", "replicas": 3, "region": "eu-west"}


async def test_json_without_a_required_field_goes_back_to_the_form() -> None:
    """An empty required field is the form's to mark: JSON that leaves it out still opens the
    form; a value the form cannot hold keeps the JSON editor."""
    app = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        form = ArgumentsForm(DEPLOY, legacy=True, can_create_tasks=True)
        await open_form(pilot, form, [])
        await pilot.press("ctrl+j")
        editor = form.query_one("#arguments-json", TextArea)
        editor.load_text('{"replicas": 0}')
        await pilot.press("ctrl+j")
        assert form.json_mode  # replicas below its minimum: the form cannot hold it
        editor.load_text('{"replicas": 2}')
        await pilot.press("ctrl+j")
        assert not form.json_mode
        assert [field.raw() for field in form.fields] == ["", "2", ""]


async def test_the_run_form_keeps_its_buttons_and_keys_on_screen_at_80x24() -> None:
    app = recorded_app()
    async with app.run_test(size=(80, 24)) as pilot:
        form = ArgumentsForm(TOOLS[0], legacy=True, can_create_tasks=True)
        await open_form(pilot, form, [])
        body = form.query_one("#arguments-body").content_region
        for selector in ("#arguments-run", "#arguments-close", "#arguments-keys"):
            assert body.contains_region(form.query_one(selector).region), selector
        await pilot.press("ctrl+j")
        await pilot.pause()
        body = form.query_one("#arguments-body").content_region
        for selector in ("#arguments-run", "#arguments-keys"):
            assert body.contains_region(form.query_one(selector).region), selector
