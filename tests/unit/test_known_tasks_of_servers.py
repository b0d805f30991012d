"""The remembered tasks of several servers (`KnownTasksOfServers`): each server's kept under its
own key, the same store a one-server run reads, and seen under row keys."""

from __future__ import annotations

from pathlib import Path

from app.view.known_tasks import KnownTask, KnownTasks, KnownTasksOfServers


def test_each_servers_tasks_live_under_its_own_key_and_come_back_under_row_keys(
    tmp_path: Path,
) -> None:
    path = tmp_path / "known-tasks.json"
    several = KnownTasksOfServers({"alpha": "url:http://a/mcp", "beta": "command:b"}, path)
    several.remember("alpha · t-1", "build_report")
    several.remember("beta · t-1", None)
    several.remember("gamma · t-9", None)  # no such server: let go
    assert KnownTasks("url:http://a/mcp", path).load() == [KnownTask("t-1", "build_report")]
    KnownTasks("command:b", path).remember("t-2", "deploy_release")  # a one-server run of beta
    assert several.load() == [
        KnownTask("alpha · t-1", "build_report"),
        KnownTask("beta · t-1", None),
        KnownTask("beta · t-2", "deploy_release"),
    ]
    several.drop({"beta · t-1", "gamma · t-9", "t-2"})
    assert [entry.task_id for entry in several.load()] == ["alpha · t-1", "beta · t-2"]
