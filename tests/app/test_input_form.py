"""The elicitation form modal, driven through Pilot: field types, validation, actions, retry."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from app.demo.asking_tools import PROVISION_SCHEMA
from app.engine.forms.schema_form import parse_schema
from tests.support.input_host import FakeSubmit, InputHost, form_request
from widgets.input_form import InputForm
from widgets.input_modal import ConfirmDiscard

# Field order of PROVISION_SCHEMA, as `#field-N` ids.
FIELD = {name: f"#field-{index}" for index, name in enumerate(PROVISION_SCHEMA["properties"])}


def form_app(
    submit: FakeSubmit,
    schema: dict[str, Any] = PROVISION_SCHEMA,
    draft: dict[str, Any] | None = None,
) -> InputHost:
    request = form_request(schema)
    return InputHost(
        lambda: InputForm(request, parse_schema(schema), submit, server="demo", draft=draft)
    )


async def type_into(pilot: Pilot[None], selector: str, text: str) -> None:
    """Focus a text field (scrolling it into view), clear it, and type `text` key by key."""
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = ""
    await pilot.pause()
    await pilot.press(*text)


async def fill_required(pilot: Pilot[None]) -> None:
    await type_into(pilot, FIELD["admin_email"], "ops@example.com")


def field_error(pilot: Pilot[None], name: str) -> str:
    """The error text shown beside a field ('' when none)."""
    widget = pilot.app.screen.query_one(FIELD[name])
    assert widget.parent is not None
    error = widget.parent.query_one(".field-error", Static)
    return str(error.render()) if error.display else ""


async def test_defaults_are_prefilled_and_required_fields_marked() -> None:
    app = form_app(FakeSubmit())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one(FIELD["hostname"], Input).value == "web-1"
        assert screen.query_one(FIELD["disk_gb"], Input).value == "100"
        assert screen.query_one(FIELD["replicas"], Input).value == "2"
        assert screen.query_one(FIELD["monitoring"], Checkbox).value is True
        assert screen.query_one(FIELD["region"], Select).value == "eu-west"
        assert screen.query_one(FIELD["size"], Select).value == "m"
        assert screen.query_one(FIELD["image"], Select).value == Select.NULL
        assert list(screen.query_one(FIELD["ports"], SelectionList).selected) == ["22"]
        titles = [str(title.render()) for title in screen.query(".field-title").results(Static)]
        assert "Host name *" in titles
        assert "Admin e-mail *" in titles
        assert "Runbook URL" in titles
        assert "Describe the server to provision." in str(
            screen.query_one("#input-message").render()
        )
        assert "Task t-1 on server demo" in str(screen.query_one("#input-origin").render())


async def test_every_field_type_typed_and_picked_by_keyboard() -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await fill_required(pilot)
        await type_into(pilot, FIELD["runbook_url"], "https://runbooks.example/web")
        await type_into(pilot, FIELD["go_live"], "2026-09-01")
        await type_into(pilot, FIELD["maintenance_at"], "2026-09-02 03:00Z")
        await type_into(pilot, FIELD["disk_gb"], "250.5")
        await type_into(pilot, FIELD["replicas"], "3")
        await pilot.press("tab", "space")  # monitoring: on -> off
        await pilot.press("tab", "enter", "down", "enter")  # region: eu-west -> us-east
        await pilot.press("tab", "enter", "down", "enter")  # size: m -> l
        await pilot.press("tab", "enter", "down", "down", "enter")  # image: blank -> Ubuntu
        await pilot.press("tab", "down", "down", "space")  # ports: + 443
        await pilot.press("tab", "space", "down", "down", "space")  # features: backups, waf
        await pilot.press("ctrl+s")
        await pilot.pause()
    content = {
        "hostname": "web-1",
        "admin_email": "ops@example.com",
        "runbook_url": "https://runbooks.example/web",
        "go_live": "2026-09-01",
        "maintenance_at": "2026-09-02T03:00:00Z",
        "disk_gb": 250.5,
        "replicas": 3,
        "monitoring": False,
        "region": "us-east",
        "size": "l",
        "image": "ubuntu-24.04",
        "ports": ["22", "443"],
        "features": ["backups", "waf"],
    }
    assert submit.sent == [{"action": "accept", "content": content}]
    assert app.results == [{"action": "accept", "content": content}]


async def test_enter_in_a_text_field_submits_and_optional_empty_fields_are_left_out() -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await fill_required(pilot)
        await pilot.press("enter")
        await pilot.pause()
    (sent,) = submit.sent
    assert sent["action"] == "accept"
    assert set(sent["content"]) == {
        "hostname", "admin_email", "disk_gb", "replicas", "monitoring", "region", "size", "ports"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("name", "typed", "reason"),
    [
        ("hostname", "ab", "must be at least 3 characters"),
        ("hostname", "Web_1", "does not match the required pattern"),
        ("admin_email", "not-an-address", "not a valid e-mail address"),
        ("runbook_url", "runbooks.example", "not a valid URI"),
        ("go_live", "2026-02-30", "not a real date"),
        ("maintenance_at", "tomorrow", "not a valid date-time"),
        ("disk_gb", "5", "must be at least 10"),
        ("replicas", "12", "must be at most 9"),
        ("replicas", "0", "must be at least 1"),
    ],
)
async def test_invalid_text_answers_keep_the_modal_open_with_the_reason(
    name: str, typed: str, reason: str
) -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        if name != "admin_email":
            await fill_required(pilot)
        await type_into(pilot, FIELD[name], typed)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert reason in field_error(pilot, name)
        assert isinstance(app.screen, InputForm)
        assert app.screen.focused is app.screen.query_one(FIELD[name])
        assert submit.sent == []
        # Fixing the field clears its mark as it is typed, and the answer goes through.
        fixes = {
            "hostname": "db-2",
            "admin_email": "a@b.example",
            "runbook_url": "https://x.example",
            "go_live": "2026-02-28",
            "maintenance_at": "2026-02-28T10:00:00+01:00",
            "disk_gb": "10",
            "replicas": "9",
        }
        await type_into(pilot, FIELD[name], fixes[name])
        await pilot.pause()
        assert field_error(pilot, name) == ""
        assert "fixing" not in str(app.screen.query_one("#input-status").render())  # summary too
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert len(submit.sent) == 1
    assert submit.sent[0]["content"][name] is not None


async def test_required_fields_left_empty_are_reported() -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await type_into(pilot, FIELD["hostname"], "")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "this field is required" in field_error(pilot, "hostname")
        assert "this field is required" in field_error(pilot, "admin_email")
        assert "fixing" in str(app.screen.query_one("#input-status").render())
    assert submit.sent == []


async def test_multi_select_item_bounds_are_checked() -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await fill_required(pilot)
        app.screen.query_one(FIELD["features"], SelectionList).focus()
        await pilot.press("space", "down", "space", "down", "space")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "select at most 2 options" in field_error(pilot, "features")
        assert submit.sent == []
        await pilot.press("space", "ctrl+s")
        await pilot.pause()
    assert submit.sent[0]["content"]["features"] == ["backups", "ipv6"]


async def test_a_required_multi_select_needs_its_minimum() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ports": {
                "type": "array",
                "items": {"type": "string", "enum": ["22", "80", "443"]},
                "minItems": 2,
            }
        },
        "required": ["ports"],
    }
    submit = FakeSubmit()
    app = form_app(submit, schema)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("space", "ctrl+s")
        await pilot.pause()
        error = pilot.app.screen.query_one(".field-error", Static)
        assert "select at least 2 options" in str(error.render())
        await pilot.press("down", "space", "ctrl+s")
        await pilot.pause()
    assert submit.sent == [{"action": "accept", "content": {"ports": ["22", "80"]}}]


async def test_required_choice_without_default_starts_blank_and_must_be_picked() -> None:
    schema = {
        "type": "object",
        "properties": {"tier": {"type": "string", "enum": ["gold", "silver"]}},
        "required": ["tier"],
    }
    submit = FakeSubmit()
    app = form_app(submit, schema)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#field-0", Select).value == Select.NULL
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert submit.sent == []
        await pilot.press("enter", "down", "down", "enter", "ctrl+s")
        await pilot.pause()
    assert submit.sent == [{"action": "accept", "content": {"tier": "silver"}}]


async def test_decline_and_cancel_buttons_send_their_action() -> None:
    for button, action in (("#input-decline", "decline"), ("#input-cancel", "cancel")):
        submit = FakeSubmit()
        app = form_app(submit)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            await pilot.click(button)
            await pilot.pause()
        assert submit.sent == [{"action": action}]
        assert app.results == [{"action": action}]


async def test_later_closes_without_sending() -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.click("#input-later")
        await pilot.pause()
    assert submit.sent == []
    assert app.results == [None]


async def test_escape_puts_the_question_off_without_sending_and_keeps_the_typing() -> None:
    """Escape is Later: nothing reaches the server and what was typed comes back as a draft."""
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await fill_required(pilot)
        screen = app.screen
        assert isinstance(screen, InputForm)
        await pilot.press("escape")
        await pilot.pause()
    assert submit.sent == []
    assert app.results == [None]
    assert screen.kept_draft is not None
    assert screen.kept_draft["content"]["admin_email"] == "ops@example.com"
    again = form_app(FakeSubmit(), draft=screen.kept_draft["content"])
    async with again.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        field = again.screen.query_one(FIELD["admin_email"], Input)
        assert field.value == "ops@example.com"


async def test_escape_with_nothing_typed_keeps_no_draft() -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InputForm)
        await pilot.press("escape")
        await pilot.pause()
    assert submit.sent == [] and app.results == [None]
    assert screen.kept_draft is None


async def test_cancel_after_typing_asks_first() -> None:
    submit = FakeSubmit()
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await fill_required(pilot)
        await pilot.click("#input-cancel")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDiscard)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, InputForm)
        assert app.screen.query_one(FIELD["admin_email"], Input).value == "ops@example.com"
        assert submit.sent == []
        await pilot.click("#input-cancel")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    assert submit.sent == [{"action": "cancel"}]
    assert app.results == [{"action": "cancel"}]


async def test_a_failed_send_keeps_what_was_typed_and_a_retry_succeeds() -> None:
    submit = FakeSubmit(failures=1)
    app = form_app(submit)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await fill_required(pilot)
        await type_into(pilot, FIELD["replicas"], "4")
        await pilot.click("#input-accept")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InputForm)
        status = str(screen.query_one("#input-status").render())
        assert "Not sent: connection lost" in status
        assert screen.query_one(FIELD["admin_email"], Input).value == "ops@example.com"
        assert screen.query_one(FIELD["replicas"], Input).value == "4"
        assert not screen.query_one("#input-accept", Button).disabled
        await pilot.pause(0.3)  # a Button ignores a second click for 0.2 s
        await pilot.click("#input-accept")
        await pilot.pause()
    assert len(submit.sent) == 2
    assert submit.sent[0] == submit.sent[1]
    assert app.results == [submit.sent[1]]
    assert submit.sent[1]["content"]["replicas"] == 4


async def test_a_kept_draft_is_filled_in_again() -> None:
    draft = {
        "hostname": "db-7",
        "admin_email": "me@x.example",
        "replicas": 5,
        "region": "ap-south",
        "ports": ["80"],
    }
    submit = FakeSubmit()
    app = form_app(submit, draft=draft)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one(FIELD["hostname"], Input).value == "db-7"
        assert screen.query_one(FIELD["admin_email"], Input).value == "me@x.example"
        assert screen.query_one(FIELD["replicas"], Input).value == "5"
        assert list(screen.query_one(FIELD["ports"], SelectionList).selected) == ["80"]
        await pilot.press("ctrl+s")
        await pilot.pause()
    # A checkbox always holds a value, so a boolean is always part of the answer.
    assert submit.sent == [{"action": "accept", "content": {**draft, "monitoring": False}}]


async def test_a_draft_put_off_again_unchanged_is_kept_again() -> None:
    """A draft survives any number of Laters: reopened and put off untouched, it is kept as it was
    (it was lost the second time, and ctrl+s then sent the defaults)."""
    draft = {"hostname": "db-7", "admin_email": "me@x.example", "monitoring": True}
    app = form_app(FakeSubmit(), draft=draft)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InputForm)
        await pilot.press("escape")
        await pilot.pause()
    assert screen.kept_draft is not None
    kept = screen.kept_draft["content"]
    assert (kept["hostname"], kept["admin_email"], kept["monitoring"]) == (
        "db-7",
        "me@x.example",
        True,
    )


async def test_cancel_asks_before_throwing_away_a_restored_draft() -> None:
    """A draft filled in again is what the user typed: Cancel asks before discarding it."""
    app = form_app(FakeSubmit(), draft={"hostname": "db-7", "admin_email": "me@x.example"})
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.click("#input-cancel")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDiscard)


async def test_server_text_is_shown_literally_never_as_markup() -> None:
    schema = {
        "type": "object",
        "properties": {
            "x": {"type": "string", "title": "[bold red]Title[/]", "description": "\x1b[31mred"}
        },
    }
    app = form_app(FakeSubmit(), schema)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        titles = [str(s.render()) for s in app.screen.query(".field-title").results(Static)]
        descriptions = [
            str(s.render()) for s in app.screen.query(".field-description").results(Static)
        ]
    assert titles == ["[bold red]Title[/]"]
    assert descriptions == ["red"]
