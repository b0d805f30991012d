"""Reading a recording back and playing it: `taskscope replay FILE` and exports from a recording.

`read_recording` parses an NDJSON recording (see `recording.py`) of at most
`TASKSCOPE_MAX_RECORDING` bytes; lines it cannot use (cut short by a crash, or hand-made to break a
reader: nested past any recursion limit, numbers no float holds) are skipped and named in
`problems`, and the rest still replays. `play` delivers the entries in their recorded order, at
the original pace divided by `speed` (an idle stretch shortened to `MAX_REPLAY_WAIT_S`), or all at
once when `speed` is None; its `ReplayClock` reads the recorded time all along.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from app.engine.record.export import latest_server
from app.engine.record.recording import (
    Action,
    Entry,
    Header,
    RecordedEvent,
    RecordedFrame,
    SessionInfo,
    decode,
)
from app.engine.rpc.rpc_types import Frame
from app.engine.safety import deep_json
from app.engine.safety.limits import ENVIRONMENT, configured
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.server_keys import task_key

MAX_PROBLEMS = 20
"""Skipped lines named one by one; the rest are counted."""
MAX_REASON_CHARS = 200
"""A skipped line's reason is cut to this (a validation error may quote the line's values)."""
MAX_RECORDED_SERVERS = 256
"""Server names read from one file at most (a hand-edited one may list any number)."""


class RecordingError(Exception):
    """The file cannot be read, or holds no taskscope recording at all."""


class AmbiguousTaskId(ValueError):
    """A short task id that begins several recorded tasks (`candidates`: their ids or row keys)."""

    def __init__(self, given: str, candidates: list[str]) -> None:
        super().__init__(f"{given} is ambiguous: it begins {len(candidates)} recorded tasks")
        self.given = given
        self.candidates = candidates


@dataclass(frozen=True, slots=True)
class Recording:
    """Every usable entry of a recording file, in order, and what was wrong with the rest."""

    entries: tuple[Entry, ...]
    problems: tuple[str, ...] = ()
    """Each skipped line's number and why (the first `MAX_PROBLEMS`)."""
    skipped: int = 0
    """How many lines were skipped in all."""

    def skipped_lines(self) -> list[str]:
        """One line per skipped line ("skipped line 6: not a JSON object"), then how many more
        there were past the first `MAX_PROBLEMS`."""
        lines = [f"skipped {problem}" for problem in self.problems]
        if self.skipped > len(self.problems):
            lines.append(f"skipped {self.skipped - len(self.problems):,} more bad lines")
        return lines

    @property
    def info(self) -> SessionInfo | None:
        """The one server of the last one-server session that connected, if any did (with
        several servers, see `servers` and `server_info`)."""
        return latest_server(self.entries)

    @property
    def servers(self) -> tuple[str, ...]:
        """Every server the sessions of the file watched together (their headers and lines name
        them), first seen first, at most `MAX_RECORDED_SERVERS`: empty when each session had
        one server."""
        names: dict[str, None] = {}
        for entry in self.entries:
            found = entry.servers if isinstance(entry, Header) else (entry.server,)
            for name in found:
                if name is not None and len(names) < MAX_RECORDED_SERVERS:
                    names[name] = None
        return tuple(names)

    def server_info(self, name: str) -> SessionInfo | None:
        """What the server `name` said when it last connected (None: it never did)."""
        return latest_server(self.entries, name)

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
        return list(self._tasks())

    def keys_of(self, given: str) -> list[str]:
        """The recorded tasks `given` names: a row key or a one-server task's id names that
        task; an id also names the task of that id on every server that has one. Failing that,
        `given` may be the start of one id or row key (the short id the screen shows); the start
        of several is an AmbiguousTaskId naming them."""
        tasks = self._tasks()
        exact = [key for key, task_id in tasks.items() if given in (key, task_id)]
        if exact or not given:
            return exact
        begun = {
            key: task_id
            for key, task_id in tasks.items()
            if key.startswith(given) or task_id.startswith(given)
        }
        if len(set(begun.values())) > 1:
            raise AmbiguousTaskId(given, list(begun))
        return list(begun)

    def _tasks(self) -> dict[str, str]:
        """Each recorded task's key with the id its server gave it, first seen first."""
        tasks: dict[str, str] = {}
        for entry in self.entries:
            if isinstance(entry, RecordedEvent) and entry.event.task_id:
                tasks.setdefault(task_key(entry.server, entry.event.task_id), entry.event.task_id)
        return tasks


def parse_recording(lines: Iterable[str]) -> Recording:
    """Decode recording lines; a blank line is ignored, a bad one skipped and reported."""
    entries: list[Entry] = []
    problems: list[str] = []
    skipped = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            entries.append(decode(deep_json.loads(text)))
        except ValueError as exc:  # malformed JSON, or a BadLine
            skipped += 1
            if len(problems) < MAX_PROBLEMS:
                problems.append(f"line {number}: {clean_text(exc, max_len=MAX_REASON_CHARS)}")
    if not any(isinstance(entry, Header) for entry in entries):
        raise RecordingError("no taskscope recording header found")
    return Recording(tuple(entries), tuple(problems), skipped)


def read_recording(path: str | Path, max_bytes: int | None = None) -> Recording:
    """Read and decode the recording at `path`, of at most `max_bytes` (default: the
    `TASKSCOPE_MAX_RECORDING` bound); raises RecordingError when there is none, or it is larger."""
    limit = configured().recording_bytes if max_bytes is None else max_bytes
    try:
        with Path(path).expanduser().open("rb") as file:
            return parse_recording(_lines(file, limit, path))
    except OSError as exc:
        raise RecordingError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _lines(file: BinaryIO, limit: int, path: str | Path) -> Iterator[str]:
    """The file's lines as text (bad UTF-8 replaced); raises RecordingError once it holds more
    than `limit` bytes, having read at most one byte more."""
    left = limit
    while line := file.readline(left + 1):
        left -= len(line)
        if left < 0:
            raise RecordingError(
                f"{path} is larger than {limit:,} bytes, the bound on a recording read "
                f"({ENVIRONMENT['recording_bytes']} raises it)"
            )
        yield line.decode("utf-8", errors="replace")


Sleep = Callable[[float], Awaitable[None]]

MAX_REPLAY_WAIT_S = 5.0
"""The longest a replay waits between two entries, whatever the gap and speed: a recorded idle
stretch (a session left open, nothing happening) plays in this, while the replay's clock still
moves over the whole gap, so ages and TTLs come out as they were."""


class ReplayClock:
    """The replay's time: the recorded moment of the entry last played, moving on to the next
    entry's moment over the real wait before it (so it reads what the live session's clock read
    at each point); it stands still when everything is played at once and after the last entry."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._at = 0.0
        self._until = 0.0
        self._since = 0.0
        self._rate = 0.0

    def stand(self, at: float) -> None:
        """The replay has reached the recorded moment `at`."""
        self._at = self._until = at
        self._rate = 0.0

    def move(self, until: float, seconds: float) -> None:
        """The replay waits `seconds` before the entry recorded at `until`."""
        self._until = until
        self._since = self._monotonic()
        self._rate = (until - self._at) / seconds if seconds > 0 else 0.0

    def __call__(self) -> float:
        if not self._rate:
            return self._at
        return min(self._until, self._at + (self._monotonic() - self._since) * self._rate)


async def play(
    entries: Iterable[Entry],
    deliver: Callable[[Entry], None],
    *,
    speed: float | None = 1.0,
    sleep: Sleep = asyncio.sleep,
    clock: ReplayClock | None = None,
) -> None:
    """Deliver every entry but the headers in order, waiting the recorded gaps divided by `speed`
    (at most `MAX_REPLAY_WAIT_S` each); `clock` follows the recorded time.

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
            wait = min((entry.at - previous) / speed, MAX_REPLAY_WAIT_S)
            if clock is not None:
                clock.move(entry.at, wait)
            await sleep(wait)
        previous = entry.at if previous is None else max(previous, entry.at)
        if clock is not None:
            clock.stand(previous)
        deliver(entry)
