"""What an earlier run saw of a task, as the known-task store and recordings keep it: written from
a task, read back equal, and read leniently from a broken or hostile file (a bad field is unknown,
never an error)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.engine.tasks.last_seen import LastSeen, last_seen_from_json, last_seen_of
from app.engine.tasks.models import Task
from app.view.known_tasks import KnownTask, KnownTasks

CREATED = datetime(2026, 11, 18, 11, 0, tzinfo=UTC)
UPDATED = datetime(2026, 11, 18, 11, 0, 3, tzinfo=UTC)


def a_task() -> Task:
    return Task(
        task_id="t-1",
        wire="legacy",
        status="completed",
        created_at=CREATED,
        last_updated_at=UPDATED,
        ttl_ms=600_000,
    )


def test_what_is_seen_of_a_task_is_kept_in_the_store_and_read_back(tmp_path: Path) -> None:
    seen = last_seen_of(a_task())
    assert seen == LastSeen(
        "legacy", "completed", CREATED.timestamp(), UPDATED.timestamp(), 600_000
    )
    assert seen.expires_at == CREATED.timestamp() + 600
    store = KnownTasks("url:http://a/mcp", tmp_path / "known.json")
    store.remember("t-1", "build_report", seen)
    store.remember("t-1", None)  # a later event without a task keeps the tool and what was seen
    assert store.load() == [KnownTask("t-1", "build_report", seen)]


@pytest.mark.parametrize(
    "entry",
    [
        '{"wire": "legacy\\u001b[31m", "status": "exploded"}',
        '{"createdAt": Infinity, "lastUpdatedAt": NaN}',
        '{"createdAt": 1e999, "lastUpdatedAt": -5}',
        '{"createdAt": ' + "9" * 400 + ', "ttl": -1}',
        '{"createdAt": "yesterday", "ttl": 1e30}',
        '{"createdAt": true, "ttl": true}',
        '{"ttl": 999999999999999999999}',
    ],
)
def test_a_bad_remembered_field_is_read_as_unknown(entry: str) -> None:
    assert last_seen_from_json(json.loads(entry)) is None


def test_good_fields_beside_bad_ones_are_kept() -> None:
    seen = last_seen_from_json({"wire": "extension", "createdAt": 1.5e9, "ttl": "forever"})
    assert seen == LastSeen(wire="extension", created_at=1.5e9)
    assert seen.expires_at is None
