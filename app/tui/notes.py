"""The notes the App shows when something needs the user (a question, a finished task), merged per
kind so that a burst makes one note: a server that asked 3,000 questions at once used to leave
3,000 toasts for Textual to lay out, which kept the App at a full core for half a minute.

A burst is gathered until it is over: the notes of a title wait until none has come for
`QUIET_S`, so fifteen tasks cancelled at once, whose answers land one by one over a second or two,
make one "15 tasks finished" note rather than the first task's note and then the rest's.

Pure state with no Textual in it: the App adds what happened as a batch is applied, and shows what
`due()` hands back at the end of every batch (the clock flushes one at least every second).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

NOTE_INTERVAL_S = 5.0
"""At most one note of a kind this often (as long as Textual shows a toast), so at most one toast
of each kind is on screen; what arrives meanwhile is counted into the next note."""

QUIET_S = 1.0
"""A title's notes are shown once none has come for this long (a burst is over), or once the first
has waited `NOTE_INTERVAL_S` (a steady stream is still told of every few seconds)."""

_SEVERITY_RANK: dict[SeverityLevel, int] = {"information": 0, "warning": 1, "error": 2}

Summary = Callable[[int, int], str]
"""The message of a merged note from (how many were merged, how many of them were errors)."""


@dataclass(frozen=True, slots=True)
class Note:
    """One note to show: the toast's title, message and severity."""

    title: str
    message: str
    severity: SeverityLevel


@dataclass(slots=True)
class _Gathered:
    """The notes of one kind waiting to be shown: the first as it was, how many in all, and when
    the first and the last came."""

    first: Note
    first_at: float
    last_at: float
    count: int = 0
    errors: int = 0
    severity: SeverityLevel = "information"


class NoteMerger:
    """Gathers notes by title and releases one per title once its burst is over (`quiet` seconds
    without another), at most one per title every `interval` seconds: the note itself when it
    came alone, else its title's summary of how many came (`summaries` has one for every title
    added)."""

    def __init__(
        self,
        summaries: Mapping[str, Summary],
        *,
        interval: float = NOTE_INTERVAL_S,
        quiet: float = QUIET_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._summaries = summaries
        self._interval = interval
        self._quiet = quiet
        self._clock = clock
        self._gathered: dict[str, _Gathered] = {}
        self._shown_at: dict[str, float] = {}

    def add(self, note: Note) -> None:
        """Count `note` in with the others of its title not shown yet."""
        now = self._clock()
        gathered = self._gathered.get(note.title)
        if gathered is None:
            gathered = self._gathered[note.title] = _Gathered(note, first_at=now, last_at=now)
        gathered.last_at = now
        gathered.count += 1
        gathered.errors += note.severity == "error"
        if _SEVERITY_RANK[note.severity] > _SEVERITY_RANK[gathered.severity]:
            gathered.severity = note.severity

    def due(self, held: Collection[str] = ()) -> list[Note]:
        """The notes to show now, one per title, merged: each title whose burst is over (or has
        waited `interval`) and whose last note is `interval` old; the `held` titles keep
        gathering."""
        now = self._clock()
        notes = []
        for title, gathered in list(self._gathered.items()):
            if title in held or now - self._shown_at.get(title, float("-inf")) < self._interval:
                continue
            if now - gathered.last_at < self._quiet and now - gathered.first_at < self._interval:
                continue
            del self._gathered[title]
            self._shown_at[title] = now
            notes.append(self._merged(gathered))
        return notes

    def _merged(self, gathered: _Gathered) -> Note:
        first = gathered.first
        if gathered.count == 1:
            return first
        summary = self._summaries[first.title](gathered.count, gathered.errors)
        return Note(first.title, summary, gathered.severity)
