"""Reading a recording back and playing it: `taskscope replay FILE` and exports from a recording.

`read_recording` parses an NDJSON recording (see `recording.py`); lines it cannot use are skipped
and listed in `problems`, so a recording cut short by a crash still replays. `play` delivers the
frames and events in their recorded order, at the original pace divided by `speed`, or all at
once when `speed` is None.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from app.engine.record.recording import (
    Action,
    BadLine,
    Entry,
    Header,
    Opened,
    RecordedEvent,
    RecordedFrame,
    SessionInfo,
    decode,
)
from app.engine.rpc.rpc_types import Frame
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.server_keys import task_key

MAX_PROBLEMS = 20


class RecordingError(Exception):
    """The file cannot be read, or holds no taskscope recording at all."""


@dataclass(frozen=True, slots=True)
class Recording:
    """Every usable entry of a recording file, in order, and what was wrong with the rest."""

    entries: tuple[Entry, ...]
    problems: tuple[str, ...] = ()

    @property
    def info(self) -> SessionInfo | None:
        """The server of the last session that opened a connection, if any did (with several
        servers, see `servers` and `server_info`)."""
        opened = [entry.info for entry in self.entries if isinstance(entry, Opened)]
        return opened[-1] if opened else None

    @property
    def servers(self) -> tuple[str, ...]:
        """The servers of the last session, when it watched several (its header names them):
        empty for a one-server session."""
        last = 0
        for index, entry in enumerate(self.entries):
            if isinstance(entry, Header):
                last = index
        session = self.entries[last:]
        named = [entry.server for entry in session if not isinstance(entry, Header)]
        header = session[0] if session and isinstance(session[0], Header) else None
        found = (header.servers if header else ()) + tuple(n for n in named if n is not None)
        return tuple(dict.fromkeys(found))

    def server_info(self, name: str) -> SessionInfo | None:
        """What the server `name` said when it last connected (None: it never did)."""
        opened = [e.info for e in self.entries if isinstance(e, Opened) and e.server == name]
        return opened[-1] if opened else None

    @property
    def events(self) -> list[TaskEvent]:
        return [entry.event for entry in self.entries if isinstance(entry, RecordedEvent)]

    @property
    def frames(self) -> list[Frame]:
        return [entry.frame for entry in self.entries if isinstance(entry, RecordedFrame)]

    @property
    def actions(self) -> list[Action]:
        return [entry for entry in self.entries if isinstance(entry, Action)]

    @property
    def task_ids(self) -> list[str]:
        """Every task an event was about, in first-seen order: its id, or with several servers
        its row key ("alpha · task-7")."""
        return list(
            dict.fromkeys(
                task_key(entry.server, entry.event.task_id)
                for entry in self.entries
                if isinstance(entry, RecordedEvent) and entry.event.task_id
            )
        )

    def keys_of(self, given: str) -> list[str]:
        """The recorded tasks `given` names: its row key, or an id, which names that task on
        every server that has one (empty: the recording has none)."""
        keys = self.task_ids
        if given in keys:
            return [given]
        return [
            task_key(entry.server, entry.event.task_id)
            for entry in self._first_events()
            if entry.server is not None and entry.event.task_id == given
        ]

    def _first_events(self) -> list[RecordedEvent]:
        """The first recorded event of each task, in first-seen order."""
        first: dict[str, RecordedEvent] = {}
        for entry in self.entries:
            if isinstance(entry, RecordedEvent) and entry.event.task_id:
                first.setdefault(task_key(entry.server, entry.event.task_id), entry)
        return list(first.values())


def parse_recording(lines: Iterable[str]) -> Recording:
    """Decode recording lines; a blank line is ignored, a bad one skipped and reported."""
    entries: list[Entry] = []
    problems: list[str] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            entries.append(decode(json.loads(text)))
        except (ValueError, BadLine) as exc:
            if len(problems) < MAX_PROBLEMS:
                problems.append(f"line {number}: {exc}")
    if not any(isinstance(entry, Header) for entry in entries):
        raise RecordingError("no taskscope recording header found")
    return Recording(tuple(entries), tuple(problems))


def read_recording(path: str | Path) -> Recording:
    """Read and decode the recording at `path`; raises RecordingError when there is none."""
    try:
        with Path(path).expanduser().open(encoding="utf-8", errors="replace") as file:
            return parse_recording(file)
    except OSError as exc:
        raise RecordingError(f"cannot read {path}: {exc.strerror or exc}") from exc


Sleep = Callable[[float], Awaitable[None]]


async def play(
    entries: Iterable[Entry],
    deliver: Callable[[RecordedFrame | RecordedEvent], None],
    *,
    speed: float | None = 1.0,
    sleep: Sleep = asyncio.sleep,
) -> None:
    """Deliver the frame and event entries in order, waiting the recorded gaps divided by
    `speed`.

    `speed=None` delivers everything without waiting. The gap before a new session's header
    (a later run appended to the same file) is skipped.
    """
    if speed is not None and speed <= 0:
        raise ValueError("speed must be above zero")
    previous: float | None = None
    for entry in entries:
        if isinstance(entry, Header):
            previous = None
            continue
        if speed is not None and previous is not None and entry.at > previous:
            await sleep((entry.at - previous) / speed)
        previous = entry.at if previous is None else max(previous, entry.at)
        if isinstance(entry, RecordedFrame | RecordedEvent):
            deliver(entry)
