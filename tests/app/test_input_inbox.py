"""The input inbox: pending inputs oldest first, with task, server, kind and age; enter answers."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.widgets import DataTable, Static

from app.engine.tasks.models import InputKind, InputRequest
from tests.support.input_host import InputHost
from widgets.input_inbox import InboxEntry, InputInbox

NOW = 1_000_000.0


def entry(key: str, task_id: str, kind: InputKind, age: float, server: str = "demo") -> InboxEntry:
    method = {InputKind.SAMPLING: "sampling/createMessage"}.get(kind, "elicitation/create")
    request = InputRequest(
        key=key,
        kind=kind,
        method=method,
        params={},
        wire="extension",
        task_id=task_id,
        message=f"question {key}",
    )
    return InboxEntry(request, server, NOW - age)


ENTRIES = [
    entry("b", "t-2", InputKind.URL, 5),
    entry("a", "t-1", InputKind.FORM, 95, server="other"),
    entry("c", "t-3", InputKind.SAMPLING, 30),
]


class Answerer:
    """Records which entries were answered; answers with `response` (None: put off)."""

    def __init__(self, response: dict[str, Any] | None) -> None:
        self.response = response
        self.asked: list[InboxEntry] = []

    async def __call__(self, chosen: InboxEntry) -> dict[str, Any] | None:
        self.asked.append(chosen)
        return self.response


def rows(app: InputHost) -> list[list[str]]:
    table = app.screen.query_one("#inbox-table", DataTable)
    return [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]


async def test_lists_every_pending_input_oldest_first() -> None:
    app = InputHost(
        lambda: InputInbox(ENTRIES, Answerer(None), clock=lambda: NOW, several_servers=True)
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert rows(app) == [
            ["1m35s", "t-1", "other", "form", "question a"],
            ["30s", "t-3", "demo", "sampling", "question c"],
            ["5.0s", "t-2", "demo", "url", "question b"],
        ]


async def test_enter_answers_the_highlighted_input_and_removes_it() -> None:
    answerer = Answerer({"action": "accept"})
    app = InputHost(lambda: InputInbox(ENTRIES, answerer, clock=lambda: NOW))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert [chosen.request.key for chosen in answerer.asked] == ["c"]
        assert [row[-1] for row in rows(app)] == ["question a", "question b"]


async def test_an_input_put_off_stays_listed() -> None:
    answerer = Answerer(None)
    app = InputHost(lambda: InputInbox(ENTRIES, answerer, clock=lambda: NOW))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert [chosen.request.key for chosen in answerer.asked] == ["a"]
        assert len(rows(app)) == 3


async def test_new_entries_update_the_open_inbox_and_escape_closes_it() -> None:
    inbox = InputInbox([], Answerer(None), clock=lambda: NOW)
    app = InputHost(lambda: inbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#inbox-empty", Static).display
        inbox.set_entries(ENTRIES[:1])
        await pilot.pause()
        assert [row[1] for row in rows(app)] == ["t-2"]
        assert not app.screen.query_one("#inbox-empty", Static).display
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


async def test_the_same_key_on_two_servers_is_two_rows() -> None:
    twins = [entry("k", "t-1", InputKind.FORM, 10), entry("k", "t-1", InputKind.FORM, 5, "b")]
    app = InputHost(
        lambda: InputInbox(twins, Answerer(None), clock=lambda: NOW, several_servers=True)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert [row[2] for row in rows(app)] == ["demo", "b"]


def asking(message: str, key: str = "q") -> InboxEntry:
    """One form question of task t-1 on server demo, `message` long."""
    request = InputRequest(
        key=key,
        kind=InputKind.FORM,
        method="elicitation/create",
        params={},
        wire="extension",
        task_id="t-1",
        message=message,
    )
    return InboxEntry(request, "demo", NOW - 5)


def column_labels(app: InputHost) -> list[str]:
    table = app.screen.query_one("#inbox-table", DataTable)
    return [str(column.label) for column in table.ordered_columns]


async def test_at_80_columns_one_server_shows_no_server_column_and_the_whole_question() -> None:
    question = "Approve the rollout of 2.4.0?"
    app = InputHost(lambda: InputInbox([asking(question)], Answerer(None), clock=lambda: NOW))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert column_labels(app) == ["Age", "Task", "Kind", "Question"]
        assert rows(app)[0][-1] == question
        table = app.screen.query_one("#inbox-table", DataTable)
        question_column = table.ordered_columns[-1]
        assert question_column.width >= len(question)
        assert table.virtual_size.width <= table.scrollable_content_region.width


async def test_a_long_question_is_cut_with_an_ellipsis_inside_the_table() -> None:
    question = "Please confirm " + "the very long rollout plan " * 10
    app = InputHost(lambda: InputInbox([asking(question)], Answerer(None), clock=lambda: NOW))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        shown = rows(app)[0][-1]
        table = app.screen.query_one("#inbox-table", DataTable)
        assert shown.endswith("…")
        assert cell_len(shown) <= table.ordered_columns[-1].width
        assert table.virtual_size.width <= table.scrollable_content_region.width


async def test_the_inbox_closes_after_the_last_answer() -> None:
    answerer = Answerer({"action": "accept"})
    entries = [asking("first?", "q1"), asking("second?", "q2")]
    app = InputHost(lambda: InputInbox(entries, answerer, clock=lambda: NOW))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, InputInbox)  # one is still waiting
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, InputInbox)
        assert app.results == [None]
