"""The task ids taskscope watched per server, kept in the user's data directory across runs.

On start the App adopts every id still listed for the server, so a restart resumes watching the
live ones; ids the server no longer knows are shown once as expired, forgotten or (a legacy task,
bound to the session that created it) not visible to this session, then dropped. Each id keeps
what the last run saw of its task (`LastSeen`: wire, status, `createdAt`, `lastUpdatedAt`, `ttl`),
so such a row still tells its age and TTL.
The file is small JSON (`known-tasks.json`); a broken file is treated as empty, never fatal. Server
keys never hold a URL's `user:password@` nor a learned secret (a value a config took from the
environment): a file written by an older taskscope that has one is rewritten without it as soon
as it is read.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.engine.paths import data_dir
from app.engine.rpc.targets import without_userinfo
from app.engine.safety.redact import hide_learned
from app.engine.tasks.last_seen import LastSeen, last_seen_from_json
from app.engine.tasks.server_keys import row_key, split_key

FILE_NAME = "known-tasks.json"
MAX_TASKS_PER_SERVER = 500
"""Oldest ids beyond this are dropped, so the file cannot grow without bound."""


@dataclass(frozen=True, slots=True)
class KnownTask:
    """One remembered task: its id and, when known, the tool that created it and what the last
    run saw of it."""

    task_id: str
    tool: str | None = None
    seen: LastSeen | None = None

    def as_json(self) -> dict[str, Any]:
        """The entry as the file keeps it."""
        entry: dict[str, Any] = {"id": self.task_id, "tool": self.tool}
        if self.seen is not None:
            entry.update(self.seen.as_json())
        return entry


class KnownTasks:
    """The remembered task ids of one server; every change is written through at once."""

    def __init__(self, server_key: str, path: Path | None = None) -> None:
        self.server_key = server_key
        self.path = path or data_dir() / FILE_NAME

    def load(self) -> list[KnownTask]:
        """The ids remembered for this server, oldest first."""
        document, scrubbed = self._read_scrubbed()
        if scrubbed:
            self._save(document)
        entries = document.get(self.server_key, [])
        known: list[KnownTask] = []
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                tool = entry.get("tool")
                known.append(
                    KnownTask(
                        entry["id"],
                        tool if isinstance(tool, str) else None,
                        last_seen_from_json(entry),
                    )
                )
        return known

    def remember(self, task_id: str, tool: str | None, seen: LastSeen | None = None) -> None:
        """Add (or refresh the tool of) one id."""
        self.remember_all([KnownTask(task_id, tool, seen)])

    def remember_all(self, tasks: list[KnownTask]) -> None:
        """Add or refresh several ids in one write (a refreshed id keeps its place, and its tool
        and what was seen of it when the new entry does not say)."""
        known = {entry.task_id: entry for entry in self.load()}
        for task in tasks:
            before = known.get(task.task_id)
            if before is not None:
                task = KnownTask(task.task_id, task.tool or before.tool, task.seen or before.seen)
            known[task.task_id] = task
        self._write(list(known.values())[-MAX_TASKS_PER_SERVER:])

    def drop(self, task_ids: set[str]) -> None:
        """Forget ids (the user dismissed them, or the server no longer knows them)."""
        known = self.load()
        kept = [entry for entry in known if entry.task_id not in task_ids]
        if len(kept) != len(known):
            self._write(kept)

    def _read_scrubbed(self) -> tuple[dict[str, Any], bool]:
        """The file's document with `user:password@` and learned secrets taken out of every server
        key (the entries of keys that then coincide are merged), and whether there was any."""
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}, False
        if not isinstance(document, dict):
            return {}, False
        scrubbed: dict[str, Any] = {}
        for key, entries in document.items():
            clean = hide_learned(
                "url:" + without_userinfo(key[4:]) if key.startswith("url:") else key
            )
            if clean in scrubbed and isinstance(entries, list):
                earlier = scrubbed[clean]
                entries = [*(earlier if isinstance(earlier, list) else []), *entries]
            scrubbed[clean] = entries
        return scrubbed, scrubbed.keys() != document.keys()

    def _write(self, known: list[KnownTask]) -> None:
        document, _ = self._read_scrubbed()
        entries = [entry.as_json() for entry in known]
        if entries:
            document[self.server_key] = entries
        else:
            document.pop(self.server_key, None)
        self._save(document)

    def _save(self, document: dict[str, Any]) -> None:
        """Replace the file with `document` atomically (a crash leaves the old file or the new)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=self.path.parent, delete=False, suffix=".tmp"
        ) as handle:
            json.dump(document, handle, indent=1)
        Path(handle.name).replace(self.path)


class KnownTasksOfServers:
    """The remembered tasks of several servers watched together, seen under their row keys:
    each server's are kept under its own key, as when it is opened alone, so a task created in
    either way comes back in the other."""

    def __init__(self, keys: Mapping[str, str], path: Path | None = None) -> None:
        self._stores = {name: KnownTasks(key, path) for name, key in keys.items()}

    def load(self) -> list[KnownTask]:
        """Every server's remembered tasks, under their row keys."""
        return [
            KnownTask(row_key(name, entry.task_id), entry.tool, entry.seen)
            for name, store in self._stores.items()
            for entry in store.load()
        ]

    def remember(self, task_id: str, tool: str | None, seen: LastSeen | None = None) -> None:
        """Remember a row key's task with its own server (a key of no known server is let go)."""
        self.remember_all([KnownTask(task_id, tool, seen)])

    def remember_all(self, tasks: list[KnownTask]) -> None:
        """Remember row keys' tasks, each with its own server (one write per server)."""
        names = set(self._stores)
        by_server: dict[str, list[KnownTask]] = {}
        for task in tasks:
            found = split_key(task.task_id, names)
            if found is not None:
                by_server.setdefault(found[0], []).append(KnownTask(found[1], task.tool, task.seen))
        for name, found_tasks in by_server.items():
            self._stores[name].remember_all(found_tasks)

    def drop(self, task_ids: set[str]) -> None:
        """Forget row keys' tasks, each on its own server (one write per server)."""
        names = set(self._stores)
        found = [split for key in task_ids if (split := split_key(key, names)) is not None]
        for name, store in self._stores.items():
            ids = {task_id for server, task_id in found if server == name}
            if ids:
                store.drop(ids)
