"""Numbers out of range from a server: bounded where they enter, shown, never a crash or a hang.

The hostile server's number modes through the real CLI (a subprocess) and the real App (Pilot):
a TTL past any date, a 401-digit poll interval, `Retry-After: inf`, a 5,001-digit integer in a
result. Then property runs of the entry points: `normalize` on random huge and odd numbers raises
nothing but `ProtocolViolation`, and every delay and date it lets through is finite.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.demo.hostile_modes import HUGE_INTEGER_DIGITS
from app.engine.polling.pacing import LONGEST_DELAY_MS, LONGEST_DELAY_S, next_delay
from app.engine.rpc.targets import StdioTarget
from app.engine.rpc.transports.base import parse_retry_after
from app.engine.safety import deep_json
from app.engine.tasks.models import ProtocolViolation, Task
from app.engine.tasks.normalize import LONGEST_TTL_MS, Variants
from app.engine.tasks.parse import task_from_payload
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from tests.support.demo_servers import REPO_ROOT, hostile_command, start_http_hostile
from tests.support.hostile_cli import on_stdio, taskscope, watch_job
from tests.support.tui_helpers import SIZE, connected, only_task, wait_for
from widgets.arguments_form import CreateRequest

pytestmark = pytest.mark.timeout(90)

WIRES = ["legacy", "extension"]
TTL_KEY = {"legacy": "ttl", "extension": "ttlMs"}
POLL_KEY = {"legacy": "pollInterval", "extension": "pollIntervalMs"}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


@pytest.mark.parametrize("wire", WIRES)
def test_a_ttl_past_any_date_is_read_as_unlimited(wire: str) -> None:
    """9007199254740991 ms on creation and 1e20 on every poll: the watch runs to completion, the
    task has no TTL, and the variant says why."""
    run = watch_job(on_stdio(wire, "ttl-overflow"))
    assert run.code == 0, run.stderr[-2000:]
    document = run.document
    assert document["outcome"] == "completed"
    assert "ttlMs" not in document["task"]
    key = TTL_KEY[wire]
    assert document["variants"][f"{key}: more than a century, read as unlimited"] >= 2
    assert document["variants"][f"{key}: number sent as a float"] >= 1
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("wire", WIRES)
async def test_a_ttl_past_any_date_shows_as_unlimited_in_the_app(wire: str) -> None:
    """The App's TTL column (where `createdAt + ttl` overflowed) shows ∞ and the task completes."""
    command = hostile_command(wire, "ttl-overflow")  # type: ignore[arg-type]
    app = TaskscopeApp(LiveSource(StdioTarget(command, cwd=str(REPO_ROOT))))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("job", {}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        await wait_for(pilot, lambda: only_task(app).status == "completed")
        watched = only_task(app)
        assert watched.task is not None and watched.task.ttl_ms is None
        assert app.table.get_cell(watched.task_id, "ttl").plain == "∞"


@pytest.mark.parametrize("wire", WIRES)
def test_a_401_digit_poll_interval_is_cut_to_a_week(wire: str) -> None:
    """The created task's id is printed; a watch waits the clamped week (here, until its
    --duration-ms ends it) with the clamp named in the variants."""
    with start_http_hostile(wire, "poll-interval-overflow") as (url, _process):  # type: ignore[arg-type]
        created = taskscope("tools", "call", "--url", url, "--tool-name", "job", "--task")
    assert created.code == 0, created.stderr[-2000:]
    assert created.document["status"] == "task_created"
    assert created.document["taskId"] == "task-1"
    assert created.document["task"]["pollIntervalMs"] == LONGEST_DELAY_MS
    run = watch_job(on_stdio(wire, "poll-interval-overflow"), "--duration-ms", "1500")
    assert run.code == 7, run.stderr[-2000:]
    assert run.document["outcome"] == "timeout" and run.document["taskId"] == "task-1"
    assert run.lines("task task-1 created on the")
    (watched,) = run.lines("watched: working — started")
    assert watched.endswith(f"(next poll in {LONGEST_DELAY_S:.2f}s, server)")
    assert run.document["variants"] == {f"{POLL_KEY[wire]}: longer than a week, a week used": 1}


@pytest.mark.parametrize("wire", WIRES)
def test_retry_after_inf_is_ignored_and_polling_goes_on(wire: str) -> None:
    """A 429 with `Retry-After: inf` is one failed poll paced by the backoff, not an endless
    wait ("next poll in infs")."""
    with start_http_hostile(wire, "retry-after-inf") as (url, _process):  # type: ignore[arg-type]
        run = watch_job(["--url", url])
    assert run.code == 0, run.stderr[-2000:]
    assert run.document["outcome"] == "completed"
    (failed,) = run.lines("request failed:")
    assert "HTTP 429" in failed and failed.endswith("(next poll in 1.00s, backoff)")
    assert not run.lines("infs")


@pytest.mark.parametrize("wire", WIRES)
def test_a_5001_digit_integer_keeps_the_result(wire: str, tmp_path: Path) -> None:
    """The answer still parses: the result is shown with the integer's exact digits (as a JSON
    string), and the recording keeps them too."""
    record = tmp_path / "session.ndjson"
    run = watch_job(on_stdio(wire, "huge-integer"), "--record", str(record))
    assert run.code == 0, run.stderr[-2000:]
    assert run.document["outcome"] == "completed"
    assert not run.lines("request failed") and not run.lines("recording stopped")
    content = run.document["task"]["result"]["structuredContent"]
    assert content == {"summary": "a big count", "count": "9" * HUGE_INTEGER_DIGITS}
    lines = [json.loads(text) for text in record.read_text(encoding="utf-8").splitlines()]
    answers = [
        line["frame"]["message"]
        for line in lines
        if line["type"] == "frame" and "9" * HUGE_INTEGER_DIGITS in json.dumps(line)
    ]
    assert answers and all("result" in answer for answer in answers)


# -- properties ------------------------------------------------------------------------------------

huge_ints = st.integers(min_value=-(10**500), max_value=10**500)
odd_floats = st.floats(allow_nan=True, allow_infinity=True)
long_integer_literals = st.integers(min_value=4301, max_value=6000).map(
    lambda digits: deep_json.loads("1" * digits)
)
numeric_texts = st.one_of(
    st.sampled_from(["inf", "-inf", "nan", "Infinity", "1e400", "-0", "1_000", " 7 ", "0x10"]),
    huge_ints.map(str),
    odd_floats.map(repr),
)
odd_numbers = st.one_of(
    huge_ints,
    odd_floats,
    long_integer_literals,
    numeric_texts,
    st.booleans(),
    st.none(),
    st.integers(min_value=-(2**64), max_value=2**64),
)
timestamps = st.one_of(
    st.sampled_from(["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "x"]),
    st.datetimes(timezones=st.timezones()).map(lambda moment: moment.isoformat()),
)


@given(
    wire=st.sampled_from(WIRES),
    ttl=odd_numbers,
    poll=odd_numbers,
    created=timestamps,
    key_style=st.booleans(),
)
def test_normalize_bounds_every_number_or_calls_it_a_violation(
    wire: Any, ttl: Any, poll: Any, created: str, key_style: bool
) -> None:
    keys = (TTL_KEY[wire], POLL_KEY[wire]) if key_style else ("ttl", "pollIntervalMs")
    payload = {"taskId": "t", "status": "working", "createdAt": created}
    payload.update({keys[0]: ttl, keys[1]: poll})
    try:
        task = task_from_payload(payload, wire=wire, variants=Variants())
    except ProtocolViolation as exc:
        assert len(exc.reason) < 200  # a huge value is quoted cut short, kept whole in the frame
        return
    assert task.ttl_ms is None or 0 <= task.ttl_ms <= LONGEST_TTL_MS
    assert task.poll_interval_ms is None or 0 < task.poll_interval_ms <= LONGEST_DELAY_MS
    assert task.expires_at is None or task.created_at is not None  # computed without overflow
    delay, _term = next_delay(
        server_hint_ms=task.poll_interval_ms,
        user_min_ms=None,
        retry_after_s=None,
        consecutive_errors=0,
    )
    assert 0 < delay <= LONGEST_DELAY_S


@given(hint=huge_ints, user=huge_ints, retry_after=odd_floats, errors=st.integers(0, 10**6))
def test_pacing_plans_a_finite_delay_from_any_terms(
    hint: int, user: int, retry_after: float, errors: int
) -> None:
    delay, _term = next_delay(
        server_hint_ms=hint, user_min_ms=user, retry_after_s=retry_after, consecutive_errors=errors
    )
    assert math.isfinite(delay) and 0 < delay <= LONGEST_DELAY_S


@given(value=st.one_of(numeric_texts, st.text(max_size=40), huge_ints.map(str)))
def test_retry_after_is_finite_and_bounded_or_none(value: str) -> None:
    seconds = parse_retry_after(value)
    assert seconds is None or 0.0 <= seconds <= LONGEST_DELAY_S


@given(digits=st.integers(min_value=1, max_value=6000), negative=st.booleans())
def test_any_integer_literal_parses_and_prints(digits: int, negative: bool) -> None:
    literal = ("-" if negative else "") + "7" * digits
    value = deep_json.loads(f'{{"n": [{literal}]}}')["n"][0]
    assert str(value) == literal
    printed = deep_json.dumps_utf8({"n": value})
    assert literal in printed
    Task(task_id="t", wire="legacy", status="completed", result={"n": value}).model_dump(
        mode="json"
    )
