"""Tasks remembered from an earlier run and shown again at start-up: a legacy demo's task (bound to
the session that created it) comes back in a new run as "not visible to this session" in the list,
the detail pane, the header and the time view alike, its age, last change and TTL counted from the
server's own `createdAt`, `lastUpdatedAt` and `ttl` as the earlier run saw them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text

from app.engine.tasks.gone import NOT_VISIBLE_REASON
from app.view.formatting import format_duration
from app.view.known_tasks import FILE_NAME
from tests.support.demo_servers import start_http_demo
from tests.support.markup import rendered_text, shown_text
from tests.support.tui_helpers import (
    SIZE,
    SPEED,
    connected,
    earlier_run_task,
    http_target,
    live_app,
    only_task,
    wait_for,
)
from widgets.detail_overview import overview_table
from widgets.header_bar import HeaderBar
from widgets.time_bars import STATUS_BAR_GLYPHS
from widgets.time_view import TimeView

pytestmark = pytest.mark.timeout(90)

LATER_S = 125.0
"""How long after the task's creation the second run's clock stands."""


@pytest.fixture(autouse=True)
def data_dir_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the known-task store is kept."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))
    return tmp_path / "data"


def cell(app: object, task_id: str, key: str) -> str:
    from app.tui.app import TaskscopeApp

    assert isinstance(app, TaskscopeApp)
    value = app.table.get_cell(task_id, key)
    return value.plain if isinstance(value, Text) else str(value)


async def test_a_legacy_task_a_new_session_cannot_see_reads_not_visible_everywhere() -> None:
    with start_http_demo("legacy", "--speed", SPEED) as (url, _):
        target = http_target(url)
        task = (await earlier_run_task(target)).task
        assert task is not None and task.created_at and task.last_updated_at and task.ttl_ms
        created = task.created_at.timestamp()
        now = created + LATER_S
        second = live_app(target, clock=lambda: now)
        async with second.run_test(size=SIZE) as pilot:
            await connected(pilot)
            await wait_for(pilot, lambda: second.tasks and only_task(second).settled)
            await pilot.pause(0.4)  # the batch is drawn
            row = only_task(second)
            task_id = row.task_id
            assert cell(second, task_id, "status") == "◌ not visible"
            assert cell(second, task_id, "message") == NOT_VISIBLE_REASON
            assert cell(second, task_id, "age") == format_duration(LATER_S)
            changed = now - task.last_updated_at.timestamp()
            assert cell(second, task_id, "changed") == format_duration(changed)
            assert cell(second, task_id, "ttl") == format_duration(task.ttl_ms / 1000 - LATER_S)
            overview = rendered_text(overview_table(row))
            assert NOT_VISIBLE_REASON in overview
            assert "forgotten" not in overview and "expired" not in overview
            assert "● completed (by an earlier run)" in overview
            header = second.query_one(HeaderBar).header_text().plain
            assert "1 not visible" in header and "gone" not in header
            await pilot.press("t")
            await wait_for(pilot, lambda: isinstance(second.shown_list, TimeView))
            view = second.shown_list
            assert isinstance(view, TimeView)
            bar = view.bar_text(task_id).strip()
            assert bar and set(bar) == {STATUS_BAR_GLYPHS["not_visible"]}
            await pilot.pause(0.3)
            assert "◌ not visible" in shown_text(view)  # the legend names it while shown


async def test_a_legacy_task_from_an_old_store_reads_not_visible_with_its_times_unknown(
    data_dir_path: Path,
) -> None:
    """A store written before taskscope kept what it saw of a task holds only its id and tool:
    on a legacy server the task is still one another session made, not one the server forgot,
    and with no TTL known nothing says "before its TTL"; its age and last change are unknown,
    not counted from the restore."""
    with start_http_demo("legacy", "--speed", SPEED) as (url, _):
        target = http_target(url)
        task_id = (await earlier_run_task(target)).task_id
        store = data_dir_path / FILE_NAME
        document = json.loads(store.read_text(encoding="utf-8"))
        (entries,) = document.values()
        assert [entry["id"] for entry in entries] == [task_id]
        for entry in entries:  # as an older taskscope wrote it
            for field in set(entry) - {"id", "tool"}:
                del entry[field]
        store.write_text(json.dumps(document), encoding="utf-8")

        second = live_app(target)
        async with second.run_test(size=SIZE) as pilot:
            await connected(pilot)
            await wait_for(pilot, lambda: second.tasks and only_task(second).settled)
            await pilot.pause(0.4)  # the batch is drawn
            row = only_task(second)
            assert row.task_id == task_id
            assert cell(second, task_id, "status") == "◌ not visible"
            assert cell(second, task_id, "message") == NOT_VISIBLE_REASON
            for clock in ("age", "changed", "ttl"):
                assert cell(second, task_id, clock) == "—"
            overview = rendered_text(overview_table(row))
            assert NOT_VISIBLE_REASON in overview
            assert "forgotten" not in overview and "before its TTL" not in overview
