"""NoteMerger: a burst of notes of one title becomes one note, at most one per interval."""

from __future__ import annotations

from app.tui.notes import Note, NoteMerger

ASKED = "Input needed"
ENDED = "Task finished"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def merger(clock: Clock) -> NoteMerger:
    summaries = {
        ASKED: lambda count, errors: f"{count} new questions",
        ENDED: lambda count, errors: f"{count} tasks finished, {errors} failed",
    }
    return NoteMerger(summaries, interval=5.0, clock=clock)


def test_a_note_alone_is_shown_as_it_came() -> None:
    notes = merger(Clock())
    note = Note(ASKED, "t1 needs input: Name?", "warning")
    notes.add(note)
    assert notes.due() == [note]
    assert notes.due() == []


def test_a_burst_is_one_note_per_title_with_the_worst_severity() -> None:
    notes = merger(Clock())
    for number in range(3000):
        notes.add(Note(ASKED, f"question {number}", "warning"))
    notes.add(Note(ENDED, "t1 completed", "information"))
    notes.add(Note(ENDED, "t2 failed", "error"))
    assert notes.due() == [
        Note(ASKED, "3000 new questions", "warning"),
        Note(ENDED, "2 tasks finished, 1 failed", "error"),
    ]


def test_what_comes_within_the_interval_waits_for_the_next_note() -> None:
    clock = Clock()
    notes = merger(clock)
    notes.add(Note(ASKED, "first", "warning"))
    assert [note.message for note in notes.due()] == ["first"]
    notes.add(Note(ASKED, "second", "warning"))
    notes.add(Note(ASKED, "third", "warning"))
    notes.add(Note(ENDED, "t1 completed", "information"))
    assert [note.message for note in notes.due()] == ["t1 completed"]  # another title is free
    clock.now += 4.9
    assert notes.due() == []
    clock.now += 0.1
    assert [note.message for note in notes.due()] == ["2 new questions"]
