"""The task ids taskscope watched per server, kept in the user's data directory across runs.

On start the App adopts every id still listed for the server, so a restart resumes watching the
live ones; ids the server no longer knows are shown once as expired or forgotten, then dropped.
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
from app.engine.tasks.server_keys import row_key, split_key

FILE_NAME = "known-tasks.json"
MAX_TASKS_PER_SERVER = 500
"""Oldest ids beyond this are dropped, so the file cannot grow without bound."""


@dataclass(frozen=True, slots=True)
class KnownTask:
    """One remembered task: its id and, when known, the tool that created it."""

    task_id: str
    tool: str | None = None


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
                known.append(KnownTask(entry["id"], tool if isinstance(tool, str) else None))
        return known

    def remember(self, task_id: str, tool: str | None) -> None:
        """Add (or refresh the tool of) one id."""
        known = [entry for entry in self.load() if entry.task_id != task_id]
        known.append(KnownTask(task_id, tool))
        self._write(known[-MAX_TASKS_PER_SERVER:])

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
        entries = [{"id": entry.task_id, "tool": entry.tool} for entry in known]
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
            KnownTask(row_key(name, entry.task_id), entry.tool)
            for name, store in self._stores.items()
            for entry in store.load()
        ]

    def remember(self, task_id: str, tool: str | None) -> None:
        """Remember a row key's task with its own server (a key of no known server is let go)."""
        found = split_key(task_id, set(self._stores))
        if found is not None:
            self._stores[found[0]].remember(found[1], tool)

    def drop(self, task_ids: set[str]) -> None:
        """Forget row keys' tasks, each on its own server (one write per server)."""
        names = set(self._stores)
        found = [split for key in task_ids if (split := split_key(key, names)) is not None]
        for name, store in self._stores.items():
            ids = {task_id for server, task_id in found if server == name}
            if ids:
                store.drop(ids)
