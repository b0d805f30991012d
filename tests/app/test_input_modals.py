"""JSON fallback, URL consent and sampling modals, and `open_input` choosing between them."""

from __future__ import annotations

from typing import Any

import pytest
from textual import work
from textual.widgets import Button, Input, Select, Static, TextArea

from app.engine.tasks.models import InputKind, InputRequest
from app.tui.inputs import input_screen, open_input
from tests.support.input_host import (
    PUNYCODE_URL,
    FakeSubmit,
    InputHost,
    form_request,
    sampling_request,
    url_request,
)
from widgets.input_form import InputForm
from widgets.input_json import InputJson
from widgets.input_sampling import InputSampling
from widgets.input_url import InputUrl

NESTED_SCHEMA = {
    "type": "object",
    "properties": {
        "owner": {
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 2}},
            "required": ["name"],
        }
    },
    "required": ["owner"],
}


def text_of(app: InputHost, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


# -- JSON fallback -------------------------------------------------------------------------------


async def test_a_schema_outside_the_subset_opens_the_json_editor_checked_against_it() -> None:
    submit = FakeSubmit()
    request = form_request(NESTED_SCHEMA)
    app = InputHost(lambda: input_screen(request, submit, server="demo"))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, InputJson)
        assert "nested objects are not supported" in text_of(app, "#json-reason")
        editor = app.screen.query_one("#json-editor", TextArea)
        editor.text = ""
        await pilot.press(*"{oops")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "not valid JSON" in text_of(app, "#input-status")
        editor.text = ""
        await pilot.press(*'{"owner": {"name": "x"}}')
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "owner.name: must be at least 2 characters" in text_of(app, "#input-status")
        assert submit.sent == []
        editor.text = '{"owner": {"name": "Ada"}}'
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert submit.sent == [{"action": "accept", "content": {"owner": {"name": "Ada"}}}]
    assert app.results == submit.sent


async def test_json_editor_decline_and_cancel_asks_after_typing() -> None:
    submit = FakeSubmit()
    request = form_request(NESTED_SCHEMA)
    app = InputHost(lambda: input_screen(request, submit))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.click("#input-cancel")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, InputJson)
        await pilot.click("#input-decline")
        await pilot.pause()
    assert submit.sent == [{"action": "decline"}]


async def test_json_editor_escape_keeps_a_parsed_object_as_the_draft() -> None:
    submit = FakeSubmit()
    request = form_request(NESTED_SCHEMA)
    app = InputHost(lambda: input_screen(request, submit))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InputJson)
        screen.query_one("#json-editor", TextArea).text = '{"kept": true}'
        await pilot.press("escape")
        await pilot.pause()
    assert submit.sent == [] and app.results == [None]
    assert screen.kept_draft == {"action": "accept", "content": {"kept": True}}


async def test_json_editor_keeps_a_restored_draft_put_off_again_unchanged() -> None:
    """A draft survives any number of Laters in the JSON editor too."""
    request = form_request(NESTED_SCHEMA)
    draft = {"action": "accept", "content": {"kept": True}}
    app = InputHost(lambda: input_screen(request, FakeSubmit(), draft=draft))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InputJson)
        await pilot.press("escape")
        await pilot.pause()
    assert screen.kept_draft == draft


async def test_an_unknown_request_kind_gets_a_raw_response_editor() -> None:
    submit = FakeSubmit()
    request = InputRequest(
        key="k", kind=InputKind.UNKNOWN, method="widgets/pick", params={}, wire="extension"
    )
    app = InputHost(lambda: input_screen(request, submit))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, InputJson)
        assert not app.screen.query("#input-decline")
        app.screen.query_one("#json-editor", TextArea).text = '{"picked": 3}'
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert submit.sent == [{"picked": 3}]


# -- URL consent ---------------------------------------------------------------------------------


async def test_url_consent_shows_the_full_url_and_the_host_decoded_and_raw() -> None:
    opened: list[str] = []
    submit = FakeSubmit()
    app = InputHost(lambda: InputUrl(url_request(), submit, server="shop", opener=opened.append))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert PUNYCODE_URL in text_of(app, "#url-full")
        host = text_of(app, "#url-host")
        assert "bücher.example" in host
        assert "xn--bcher-kva.example" in host
        assert "Sign in to the book shop" in text_of(app, "#input-message")
        await pilot.pause(0.2)
        assert opened == []  # never opened by itself
        await pilot.click("#input-accept")
        await pilot.pause()
    assert opened == []  # accepting is consent, not opening
    assert submit.sent == [{"action": "accept"}]
    assert app.results == [{"action": "accept"}]


async def test_o_opens_the_url_only_when_asked() -> None:
    opened: list[str] = []
    submit = FakeSubmit()
    app = InputHost(lambda: InputUrl(url_request(), submit, opener=opened.append))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause(0.1)
        assert opened == [PUNYCODE_URL]
        assert "Opened in your browser" in text_of(app, "#input-status")
        assert isinstance(app.screen, InputUrl)
        await pilot.press("escape")
        await pilot.pause()
    assert submit.sent == [] and app.results == [None]  # escape is Later


async def test_a_non_web_url_is_never_opened() -> None:
    opened: list[str] = []
    app = InputHost(
        lambda: InputUrl(url_request("file:///etc/passwd"), FakeSubmit(), opener=opened.append)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#url-open", Button).disabled
        await pilot.press("o")
        await pilot.pause(0.1)
        assert "not http or https" in text_of(app, "#input-status")
    assert opened == []


# -- sampling ------------------------------------------------------------------------------------


async def test_sampling_shows_the_request_and_sends_the_typed_reply() -> None:
    submit = FakeSubmit()
    app = InputHost(lambda: InputSampling(sampling_request(), submit, server="demo"))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert "Answer in one word." in text_of(app, "#sampling-system")
        assert "user: Capital of France?" in text_of(app, "#sampling-messages")
        limits = text_of(app, "#sampling-limits")
        assert "max tokens 100" in limits
        assert "temperature 0.2" in limits
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Type the assistant's reply first" in text_of(app, "#input-status")
        await pilot.press(*"Paris")
        model = app.screen.query_one("#sampling-model", Input)
        model.focus()
        model.value = ""
        await pilot.press(*"me-1")
        await pilot.press("tab", "enter", "down", "down", "enter")
        assert app.screen.query_one("#sampling-stop", Select).value == "maxTokens"
        await pilot.press("ctrl+s")
        await pilot.pause()
    expected = {
        "role": "assistant",
        "content": {"type": "text", "text": "Paris"},
        "model": "me-1",
        "stopReason": "maxTokens",
    }
    assert submit.sent == [expected]
    assert app.results == [expected]


async def test_sampling_later_sends_nothing() -> None:
    submit = FakeSubmit()
    app = InputHost(lambda: InputSampling(sampling_request(), submit))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.click("#input-later")
        await pilot.pause()
    assert submit.sent == []
    assert app.results == [None]


class FakeReject:
    """An async `reject` that answers with `outcome` (raising it when it is an exception)."""

    def __init__(self, *outcomes: bool | Exception) -> None:
        self.outcomes = list(outcomes)
        self.calls = 0

    async def __call__(self) -> bool:
        self.calls += 1
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def notes(app: InputHost) -> list[tuple[str, str]]:
    return [(note.message, note.severity) for note in app._notifications]


async def test_declining_sampling_rejects_it_and_says_so() -> None:
    submit, reject = FakeSubmit(), FakeReject(ConnectionError("connection lost"), True)
    app = InputHost(lambda: InputSampling(sampling_request(), submit, reject=reject))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.click("#input-reject")
        await pilot.pause()
        assert "Not declined: connection lost" in text_of(app, "#input-status")
        assert app.results == []
        await pilot.pause(0.3)  # a Button ignores a second click for 0.2 s
        await pilot.click("#input-reject")
        await pilot.pause()
        assert notes(app) == [
            ("Sampling request declined: the server got an error reply.", "information")
        ]
    assert reject.calls == 2
    assert submit.sent == []
    assert app.results == [None]


async def test_declining_where_the_wire_cannot_leaves_the_request_pending() -> None:
    reject = FakeReject(False)
    app = InputHost(lambda: InputSampling(sampling_request(), FakeSubmit(), reject=reject))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.click("#input-reject")
        await pilot.pause()
        [(message, severity)] = notes(app)
    assert "stays pending" in message and severity == "warning"
    assert app.results == [None]


# -- open_input ----------------------------------------------------------------------------------


class OpenInputHost(InputHost):
    """Calls `open_input` from a worker, as the App does, and records what it returned."""

    def __init__(self, request: InputRequest, submit: FakeSubmit, **options: Any) -> None:
        super().__init__(None)
        self.request = request
        self.submit = submit
        self.options = options

    def on_mount(self) -> None:
        self.answer()  # instead of pushing a screen itself

    @work
    async def answer(self) -> None:
        self.results.append(
            await open_input(self, self.request, submit=self.submit, **self.options)
        )


async def test_open_input_returns_the_acknowledged_answer() -> None:
    submit = FakeSubmit()
    schema = {"type": "object", "properties": {"ok": {"type": "boolean", "default": True}}}
    app = OpenInputHost(form_request(schema), submit, server="demo")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, InputForm)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [{"action": "accept", "content": {"ok": True}}]


def test_roots_never_get_a_modal() -> None:
    request = InputRequest(
        key="r", kind=InputKind.ROOTS, method="roots/list", params={}, wire="legacy"
    )
    with pytest.raises(ValueError, match="answered from --root"):
        input_screen(request, FakeSubmit())


async def test_open_input_fills_in_a_kept_answer() -> None:
    submit = FakeSubmit()
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    draft = {"action": "accept", "content": {"name": "kept"}}
    app = OpenInputHost(form_request(schema), submit, draft=draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#field-0", Input).value == "kept"
