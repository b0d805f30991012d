"""Exports of a task's life: golden Markdown and JSON from fixed recordings (one per wire, made
with `taskscope tools call ... --task-watch --answers ... --record`), several tasks together,
hostile server text, and the headless `taskscope tasks export` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.record.export import lives_json, lives_markdown, render, task_lives
from app.engine.record.recording import Action, Entry, RecordedEvent
from app.engine.record.replay import read_recording
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import InputKind, InputRequest, Task
from tests.support.demo_servers import REPO_ROOT

GOLDEN = Path(__file__).resolve().parents[1] / "support" / "golden"
WIRES = ("extension", "legacy")


def recording_path(wire: str) -> Path:
    return GOLDEN / f"deploy-release-{wire}.ndjson"


def created_task_id(wire: str) -> str:
    actions = read_recording(recording_path(wire)).actions
    return next(a.task_id for a in actions if a.action == "created" and a.task_id)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("fmt", ["md", "json"])
def test_export_matches_the_golden_file(wire: str, fmt: str) -> None:
    recording = read_recording(recording_path(wire))
    assert recording.problems == ()
    lives = task_lives(recording.entries, [created_task_id(wire)])
    expected = (GOLDEN / f"deploy-release-{wire}.{fmt}").read_text(encoding="utf-8")
    assert render(lives, "md" if fmt == "md" else "json") == expected


@pytest.mark.parametrize("wire", WIRES)
def test_a_life_has_creation_transitions_both_questions_and_answers_and_the_result(
    wire: str,
) -> None:
    recording = read_recording(recording_path(wire))
    (life,) = task_lives(recording.entries, [created_task_id(wire)])
    kinds = [step.kind for step in life.steps]
    assert kinds[:2] == ["create requested", "created"]
    assert kinds.count("question") == 2 and kinds.count("answer") == 2
    assert "transition" in kinds and kinds[-2:] == ["result", "stopped"]
    assert "polled" not in kinds
    document = json.loads(lives_json([life]))["tasks"][0]
    assert document["finalStatus"] == "completed" and document["tool"] == "deploy_release"
    answers = [step["answer"] for step in document["steps"] if step["kind"] == "answer"]
    assert {"action": "accept", "content": {"window": "weekend"}} in answers
    assert "scheduled: weekend" in json.dumps(document["result"])


def test_marked_tasks_export_together_each_with_its_own_server(tmp_path: Path) -> None:
    combined = tmp_path / "both.ndjson"
    combined.write_text(
        "".join(recording_path(wire).read_text(encoding="utf-8") for wire in WIRES),
        encoding="utf-8",
    )
    ids = [created_task_id(wire) for wire in WIRES]
    lives = task_lives(read_recording(combined).entries, ids)
    assert [life.task_id for life in lives] == ids
    assert [life.server.server_name if life.server else None for life in lives] == [
        "taskscope-demo-extension",
        "taskscope-demo-legacy",
    ]
    markdown = lives_markdown(lives)
    assert markdown.count("## Task `") == 2
    assert json.loads(lives_json(lives))["tasks"][1]["wire"] == "legacy"


def test_hostile_server_text_is_inert_in_markdown_and_escaped_in_json() -> None:
    hostile = "done | \x1b]52;c;aGk=\x07ok\u202e ```x``` `tick` [x](http://e) <b>&amp; *em*"
    task = Task(
        task_id="id`|1",
        wire="extension",
        status="completed",
        status_message=hostile,
        result={"content": [{"type": "text", "text": hostile}]},
        raw={},
    )
    entries = [RecordedEvent(1.0, TaskEvent("created", "id`|1", task, 1.0, "create"))]
    lives = task_lives(entries, ["id`|1"])
    markdown = lives_markdown(lives)
    assert "\x1b" not in markdown and "\x07" not in markdown and "\u202e" not in markdown
    assert "done \\| " in markdown  # the pipe cannot break the table row
    assert "\\[x\\](http://e) \\<b\\>\\&amp; \\*em\\*" in markdown  # no link, tag, entity
    assert "## Task `id'|1`" in markdown  # a backtick cannot end the code span early
    assert "````json" in markdown  # the result's fence outgrows the backticks inside it
    text = lives_json(lives)
    assert text.isascii() and json.loads(text)["tasks"][0]["result"]["content"][0]["text"] == (
        hostile
    )


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )


def test_the_headless_export_prints_the_golden_markdown() -> None:
    task_id = created_task_id("legacy")
    run = cli(
        "tasks", "export", "--task-id", task_id, "--from-recording", str(recording_path("legacy"))
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == (GOLDEN / "deploy-release-legacy.md").read_text(encoding="utf-8")


def test_the_headless_export_refuses_an_id_that_is_not_in_the_recording() -> None:
    run = cli(
        "tasks",
        "export",
        "--task-id",
        "nope",
        "--from-recording",
        str(recording_path("legacy")),
        "--format",
        "json",
    )
    assert run.returncode == 2
    error = json.loads(run.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "USAGE" and "nope" in error["message"]
    assert error["details"]["recordedTaskIds"] == [created_task_id("legacy")]


def test_the_headless_export_takes_the_short_id_the_screen_shows() -> None:
    """A unique prefix names its task, as the filter does on screen."""
    short = created_task_id("legacy")[:8]
    run = cli(
        "tasks", "export", "--task-id", short, "--from-recording", str(recording_path("legacy"))
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == (GOLDEN / "deploy-release-legacy.md").read_text(encoding="utf-8")


def test_the_headless_export_refuses_an_ambiguous_prefix_naming_the_candidates(
    tmp_path: Path,
) -> None:
    """Two recorded tasks whose ids share their first eight characters: those name neither."""
    task_id = created_task_id("legacy")
    twin = task_id[:8] + "-twin"
    recorded = recording_path("legacy").read_text(encoding="utf-8")
    both = tmp_path / "twins.ndjson"
    both.write_text(recorded + recorded.replace(task_id, twin), encoding="utf-8")
    run = cli("tasks", "export", "--task-id", task_id[:8], "--from-recording", str(both))
    assert run.returncode == 2
    error = json.loads(run.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "USAGE" and "ambiguous" in error["message"]
    assert error["details"]["candidates"] == [task_id, twin]
    assert run.stdout == ""


def test_the_headless_export_reports_a_file_that_is_not_a_recording(tmp_path: Path) -> None:
    junk = tmp_path / "junk.ndjson"
    junk.write_text("hello\n")
    run = cli("tasks", "export", "--task-id", "x", "--from-recording", str(junk))
    assert run.returncode == 2
    assert "no taskscope recording" in run.stderr


def test_a_declined_question_and_an_unanswered_one_are_told_apart() -> None:
    question = InputRequest(
        key="7",
        kind=InputKind.SAMPLING,
        method="sampling/createMessage",
        params={},
        wire="legacy",
        task_id="t",
        message="Summarize?",
    )
    other = question.model_copy(update={"key": "8", "message": "Again?"})
    task = Task(task_id="t", wire="legacy", status="input_required", raw={})
    entries: list[Entry] = [
        RecordedEvent(1.0, TaskEvent("input_needed", "t", task, 1.0, "stream", None, None, q))
        for q in (question, other)
    ]
    entries.append(Action(2.0, "reject", "t", {"key": "7", "code": -1}))
    markdown = lives_markdown(task_lives(entries, ["t"]))
    assert "Declined with a JSON-RPC error." in markdown
    assert markdown.count("No answer was sent.") == 1
    assert "| rejected (user) |" in markdown
