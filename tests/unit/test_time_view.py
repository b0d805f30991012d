"""Unit tests of the time view's drawing rules (`widgets.time_bars`) and of the status history the
App keeps for it (`app.view.status_history`, folded in by `apply_event`): given histories, a width
and a span, which characters come out."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from app.engine.tasks.events import EventKind, Source, TaskEvent
from app.engine.tasks.models import Task
from app.view.state import WatchedTask, apply_event
from app.view.status_history import HISTORY_CAP, Moment, StatusChange, next_history
from widgets.time_bars import (
    LEGEND,
    MARK_GLYPHS,
    RARE_KINDS,
    STATUS_BAR_GLYPHS,
    TTL_GLYPH,
    Bar,
    TimeScale,
    axis_lines,
    axis_ticks,
    bar_for,
    bar_text,
    choose_scale,
    legend_lines,
    tick_label,
)

T0 = 1_000_000.0


def scale(cells: int = 10, cell_seconds: float = 1.0, now: float | None = None) -> TimeScale:
    """A scale of `cells` columns from T0; `now` defaults to inside the last column."""
    span = cells * cell_seconds
    return TimeScale(T0, cell_seconds, cells, span, T0 + span - 0.5 if now is None else now)


def changes(*steps: tuple[float, str]) -> tuple[StatusChange, ...]:
    return tuple(StatusChange(T0 + at, status) for at, status in steps)


def bar(
    *steps: tuple[float, str],
    start: float = 0.0,
    end: float | None = None,
    moments: tuple[tuple[float, str], ...] = (),
    ttl: float | None = None,
) -> Bar:
    return Bar(
        T0 + start,
        changes(*steps),
        tuple(Moment(T0 + at, kind) for at, kind in moments),  # type: ignore[arg-type]
        None if end is None else T0 + end,
        None if ttl is None else T0 + ttl,
    )


# ---------------------------------------------------------------------------- glyphs per status


def test_every_status_and_mark_has_its_own_glyph_and_a_legend_entry() -> None:
    glyphs = [*STATUS_BAR_GLYPHS.values(), *MARK_GLYPHS.values(), TTL_GLYPH]
    assert len(set(glyphs)) == len(glyphs)
    legend_glyphs = {glyph for glyph, _words, _kind in LEGEND}
    for status in ("working", "input_required", "completed", "failed", "cancelled"):
        assert STATUS_BAR_GLYPHS[status] in legend_glyphs
    assert set(MARK_GLYPHS.values()) | {TTL_GLYPH} <= legend_glyphs


def test_a_live_bar_runs_from_its_start_to_now_in_its_status_glyphs() -> None:
    drawn = bar_text(bar((0, "working"), (4, "input_required"), (6, "working"), start=2), scale())
    assert drawn == "  ━━▒▒━━━━"


@pytest.mark.parametrize(
    ("final", "glyph"), [("completed", "✓"), ("failed", "✗"), ("cancelled", "\u2573")]
)
def test_an_ended_bar_stops_at_its_end_with_the_final_status(final: str, glyph: str) -> None:
    drawn = bar_text(bar((0, "working"), (5, final), end=5), scale())
    assert drawn == "━━━━━" + glyph + "    "


def test_a_short_wait_for_input_shows_even_inside_one_long_cell() -> None:
    drawn = bar_text(
        bar((0, "working"), (12.0, "input_required"), (12.5, "working")),
        scale(cells=5, cell_seconds=5.0),
    )
    assert drawn == "━━▒━━"


def test_before_the_first_known_status_the_bar_reads_unknown() -> None:
    drawn = bar_text(bar((3, "working"), start=0), scale())
    assert drawn == "···━━━━━━━"


def test_a_bar_that_began_and_ended_at_once_is_one_cell() -> None:
    assert bar_text(bar((4, "completed"), start=4, end=4), scale()) == "    ✓     "


# ---------------------------------------------------------------------------- marks and TTL


def test_marks_sit_at_their_moments_and_a_failed_poll_wins_a_shared_cell() -> None:
    drawn = bar_text(
        bar(
            (0, "working"),
            (2, "input_required"),
            (5, "working"),
            moments=((2.1, "asked"), (5.2, "answered"), (7.3, "poll_failed"), (7.6, "asked")),
        ),
        scale(),
    )
    assert drawn == "━━?▒▒↵━!━━"


def test_the_ttl_deadline_is_marked_inside_the_axis_even_past_the_end() -> None:
    drawn = bar_text(bar((0, "working"), (3, "completed"), end=3, ttl=7.5), scale())
    assert drawn == "━━━✓   ┊  "
    assert TTL_GLYPH not in bar_text(bar((0, "working"), ttl=60), scale())


def test_the_end_cap_outranks_a_mark_in_its_cell() -> None:
    drawn = bar_text(
        bar((0, "working"), (4.5, "failed"), end=4.5, moments=((4.2, "poll_failed"),)), scale()
    )
    assert drawn[4] == "✗"


# ---------------------------------------------------------------------------- scale and axis


def test_the_scale_takes_the_shortest_span_that_holds_every_bar() -> None:
    now = 10_000.0
    assert choose_scale(now - 8, now, 50).span == 10
    assert choose_scale(now - 45, now, 50).span == 60
    assert choose_scale(now - 2.9 * 3600, now, 50).span == 3 * 3600
    far = choose_scale(now - 3 * 365 * 86400, now, 50)
    assert far.start <= now - 3 * 365 * 86400


def test_the_right_edge_holds_now_and_stands_still_inside_a_cell() -> None:
    first = choose_scale(9_990.0, 10_000.2, 50)
    later = choose_scale(9_990.0, 10_000.3, 50)
    assert first.grid == later.grid
    assert first.column(10_000.2) == first.cells - 1
    moved = choose_scale(9_990.0, 10_000.2 + first.cell_seconds, 50)
    assert moved.start == pytest.approx(first.start + first.cell_seconds)


def test_axis_ticks_run_back_from_now_and_stand_apart() -> None:
    axis = scale(cells=60, cell_seconds=1.0)
    ticks = axis_ticks(axis)
    assert ticks[0] == (59, 0.0)
    assert [offset for _column, offset in ticks] == [0, 10, 20, 30, 40, 50]
    assert all(a - b >= 9 for (a, _), (b, _) in itertools.pairwise(ticks))


def test_axis_lines_label_each_tick_and_draw_the_rule() -> None:
    labels, rule = axis_lines(scale(cells=40, cell_seconds=3.0))
    assert len(labels) == len(rule) == 40
    assert labels.endswith("now")
    assert labels.split() == ["-1m30s", "-1m", "-30s", "now"]
    assert rule.count("┬") == 4 and rule[-1] == "┬"
    assert rule.index("┬") == labels.index("-1m30s") + len("-1m30s") - 1


@pytest.mark.parametrize(
    ("seconds", "label"),
    [(0, "now"), (30, "-30s"), (90, "-1m30s"), (3600, "-1h"), (5400, "-1h30m"), (129600, "-1d12h")],
)
def test_tick_labels(seconds: float, label: str) -> None:
    assert tick_label(seconds) == label


def test_the_legend_wraps_to_the_width() -> None:
    wide = legend_lines(200)
    narrow = legend_lines(60)
    assert len(wide) == 1 and len(narrow) > 1
    for line in narrow:
        assert sum(len(g) + 1 + len(w) for g, w, _k in line) + 2 * (len(line) - 1) <= 60
    common = [entry for entry in LEGEND if entry[2] not in RARE_KINDS]
    assert [entry for line in narrow for entry in line] == common


def test_the_legend_names_a_rare_status_only_while_a_bar_shows_it() -> None:
    shown = [entry[2] for line in legend_lines(200, {"not_visible"}) for entry in line]
    assert "not_visible" in shown and "not_found" not in shown
    assert "not_visible" not in [entry[2] for line in legend_lines(200) for entry in line]


# ---------------------------------------------------------------------------- history in the state


def _task(status: str, created: float = T0) -> Task:
    return Task(
        task_id="t1",
        wire="extension",
        status=status,  # type: ignore[arg-type]
        created_at=datetime.fromtimestamp(created, tz=UTC),
        ttl_ms=60_000,
        tool_name="build",
    )


def _event(kind: EventKind, status: str, at: float, source: Source = "poll") -> TaskEvent:
    return TaskEvent(kind, "t1", _task(status), T0 + at, source)


def _fold(*events: TaskEvent) -> WatchedTask:
    watched: WatchedTask | None = None
    for event in events:
        watched = apply_event(watched, event)
    assert watched is not None
    return watched


def test_the_state_records_status_changes_marks_and_when_the_task_settled() -> None:
    watched = _fold(
        _event("created", "working", 0.4, source="create"),
        _event("polled", "working", 1),
        _event("transition", "input_required", 2),
        _event("input_needed", "input_required", 2),
        _event("input_answered", "input_required", 3),
        _event("transition", "working", 4),
        _event("error", "working", 5),
        _event("transition", "completed", 6),
    )
    history = watched.history
    assert [(c.at - T0, c.status) for c in history.changes] == [
        (0.0, "working"),  # a task we created worked since the server's createdAt
        (2, "input_required"),
        (4, "working"),
        (6, "completed"),
    ]
    assert [(m.at - T0, m.kind) for m in history.moments] == [
        (2, "asked"),
        (3, "answered"),
        (5, "poll_failed"),
    ]
    assert history.settled_at == T0 + 6
    drawn = bar_for(watched)
    assert drawn.start == T0 and drawn.end == T0 + 6 and drawn.ttl_at == T0 + 60


def test_a_plain_poll_keeps_the_same_history_object() -> None:
    watched = _fold(_event("created", "working", 0, source="create"))
    polled = apply_event(watched, _event("polled", "working", 1))
    assert polled.history is watched.history


def test_the_history_is_bounded_and_says_it_dropped_the_oldest() -> None:
    from app.view.status_history import EMPTY_HISTORY

    history = EMPTY_HISTORY
    for step in range(HISTORY_CAP + 10):
        status = "working" if step % 2 else "input_required"
        history = next_history(history, "transition", T0 + step, status, settled=False)
        history = next_history(history, "error", T0 + step, status, settled=False)
    assert len(history.changes) == HISTORY_CAP and len(history.moments) == HISTORY_CAP
    assert history.dropped and history.changes[-1].at == T0 + HISTORY_CAP + 9
