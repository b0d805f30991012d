"""NoteMerger: a burst of notes of one title becomes one note once it is over, at most one per
interval."""

from __future__ import annotations

from app.tui.notes import Note, NoteMerger
from tests.support.manual_clock import ManualClock as Clock

ASKED = "Input needed"
ENDED = "Task finished"


def merger(clock: Clock) -> NoteMerger:
    summaries = {
        ASKED: lambda count, errors: f"{count} new questions",
        ENDED: lambda count, errors: f"{count} tasks finished, {errors} failed",
    }
    return NoteMerger(summaries, interval=5.0, quiet=1.0, clock=clock)


def test_a_note_alone_is_shown_as_it_came_once_nothing_else_came() -> None:
    clock = Clock()
    notes = merger(clock)
    note = Note(ASKED, "t1 needs input: Name?", "warning")
    notes.add(note)
    clock.now += 0.9
    assert notes.due() == []
    clock.now += 0.1
    assert notes.due() == [note]
    assert notes.due() == []


def test_a_burst_is_one_note_per_title_with_the_worst_severity() -> None:
    clock = Clock()
    notes = merger(clock)
    for number in range(3000):
        notes.add(Note(ASKED, f"question {number}", "warning"))
    notes.add(Note(ENDED, "t1 completed", "information"))
    notes.add(Note(ENDED, "t2 failed", "error"))
    clock.now += 1.0
    assert notes.due() == [
        Note(ASKED, "3000 new questions", "warning"),
        Note(ENDED, "2 tasks finished, 1 failed", "error"),
    ]


def test_what_comes_within_the_interval_waits_for_the_next_note() -> None:
    clock = Clock()
    notes = merger(clock)
    notes.add(Note(ASKED, "first", "warning"))
    clock.now += 1.0
    assert [note.message for note in notes.due()] == ["first"]
    notes.add(Note(ASKED, "second", "warning"))
    notes.add(Note(ASKED, "third", "warning"))
    notes.add(Note(ENDED, "t1 completed", "information"))
    clock.now += 1.0
    assert [note.message for note in notes.due()] == ["t1 completed"]  # another title is free
    clock.now += 3.9
    assert notes.due() == []
    clock.now += 0.1
    assert [note.message for note in notes.due()] == ["2 new questions"]


def test_a_burst_spread_over_a_few_seconds_is_one_note() -> None:
    """Fifteen cancelled tasks whose answers land one by one: one note once they stop coming."""
    clock = Clock()
    notes = merger(clock)
    for number in range(15):
        notes.add(Note(ENDED, f"t{number} cancelled", "information"))
        clock.now += 0.2
        assert notes.due() == []
    clock.now += 0.8
    assert notes.due() == [Note(ENDED, "15 tasks finished, 0 failed", "information")]


def test_a_steady_stream_is_still_told_of_every_interval() -> None:
    clock = Clock()
    notes = merger(clock)
    shown: list[str] = []
    for number in range(60):  # one every half second for 30 s: never a quiet second
        notes.add(Note(ENDED, f"t{number} completed", "information"))
        shown += [note.message for note in notes.due()]
        clock.now += 0.5
    assert shown == ["11 tasks finished, 0 failed"] * 5  # each waited the interval, no more


def test_held_titles_keep_gathering_until_let_go() -> None:
    clock = Clock()
    notes = merger(clock)
    notes.add(Note(ENDED, "t1 completed", "information"))
    notes.add(Note(ASKED, "t2 needs input", "warning"))
    clock.now += 10
    assert [note.title for note in notes.due(held={ENDED})] == [ASKED]
    notes.add(Note(ENDED, "t3 completed", "information"))
    clock.now += 10
    assert notes.due(held={ENDED}) == []
    assert notes.due() == [Note(ENDED, "2 tasks finished, 0 failed", "information")]
