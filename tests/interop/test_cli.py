"""The headless CLI against independent servers, on the default era (no `--era` flag): what a
newcomer types, run as a subprocess against servers taskscope's authors did not write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.interop.catalog import (
    BY_NAME,
    SERVERS,
    Call,
    Server,
    Transport,
    case_id,
    cases,
    target_flags,
)
from tests.support.cli_helpers import Run, run_cli

WATCH_TIMEOUT_S = 120
ALL = [(server, transport) for server in SERVERS for transport in server.transports]


def reach(case: tuple[Server, Transport], server_url: Any) -> list[str]:
    """The flags that reach the case's server over the case's transport."""
    server, transport = case
    url = server_url(server.name) if transport == "http" else None
    return target_flags(server, transport, url)


def call_args(call: Call, tmp_path: Path) -> list[str]:
    """`--tool-name … --tool-args …`, and `--answers FILE` when the call asks questions."""
    flags = ["--tool-name", call.tool, "--tool-args", json.dumps(call.arguments)]
    if call.answers:
        answers = tmp_path / "answers.json"
        answers.write_text(json.dumps(list(call.answers)))
        flags += ["--answers", str(answers)]
    return flags


def watched(target: list[str], call: Call, tmp_path: Path) -> Run:
    """`tools call … --task --task-watch`, unattended."""
    args = ["tools", "call", *target, *call_args(call, tmp_path), "--task", "--task-watch", "--yes"]
    return run_cli(*args, timeout=WATCH_TIMEOUT_S)


def result_text(document: dict[str, Any]) -> str:
    task = document.get("task") or {}
    return json.dumps(task.get("result"), ensure_ascii=False)


@pytest.mark.parametrize("case", ALL, ids=case_id)
def test_capabilities_settle_the_servers_era_and_wire(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    target = reach(case, server_url)
    run = run_cli("tasks", "capabilities", *target)
    assert run.code == 0, run.stderr
    document = run.document
    assert document["wire"] == server.wire, document
    assert document["era"]["preference"] == "auto"
    assert document["era"]["settled"] == server.era, document["era"]


@pytest.mark.parametrize("case", cases("finishes"), ids=case_id)
def test_a_task_is_created_and_watched_to_the_end(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    target = reach(case, server_url)
    assert server.finishes is not None
    run = watched(target, server.finishes, tmp_path)
    assert run.code == 0, (run.stdout, run.stderr)
    document = run.document
    assert document["outcome"] == "completed" and document["wire"] == server.wire
    assert server.finishes.expect in result_text(document)
    assert "answered synchronously" not in run.stderr
    if server.variant is not None:
        assert server.variant in document["variants"], document.get("variants")


@pytest.mark.parametrize("case", cases("form"), ids=case_id)
def test_a_form_question_is_answered_by_answers_file(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    target = reach(case, server_url)
    assert server.form is not None
    run = watched(target, server.form, tmp_path)
    assert run.code == 0, (run.stdout, run.stderr)
    assert run.document["outcome"] == "completed"
    assert server.form.expect in result_text(run.document)
    assert "elicitation/create" in run.stderr


@pytest.mark.parametrize("case", cases("sampling"), ids=case_id)
def test_a_sampling_request_is_answered_by_answers_file(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    target = reach(case, server_url)
    assert server.sampling is not None
    run = watched(target, server.sampling, tmp_path)
    assert run.code == 0, (run.stdout, run.stderr)
    assert server.sampling.expect in result_text(run.document)
    assert "sampling/createMessage" in run.stderr


@pytest.mark.parametrize("case", cases("plain"), ids=case_id)
def test_a_plain_tool_call_answers_at_once(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    target = reach(case, server_url)
    assert server.plain is not None
    run = run_cli("tools", "call", *target, *call_args(server.plain, tmp_path))
    assert run.code == 0, (run.stdout, run.stderr)
    assert server.plain.expect in json.dumps(run.document["content"])


@pytest.mark.parametrize("case", ALL, ids=case_id)
def test_the_verbs_of_the_other_wire_are_refused_unsent(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    target = reach(case, server_url)
    verb = {"legacy": ("update", "--input-responses", "{}"), "extension": ("list",)}.get(
        server.wire, ("get",)
    )
    run = run_cli(
        "tasks", verb[0], *target, *(["--task-id", "x"] if verb[0] != "list" else []), *verb[1:]
    )
    assert run.code != 0
    assert run.error["code"] in ("TASKS_UNSUPPORTED", "USAGE"), run.error
    if run.error["code"] == "TASKS_UNSUPPORTED":
        assert run.error["details"]["sent"] is False


LEGACY_HTTP = [
    case
    for case in cases("finishes", wire="legacy", transport="http")
    if case[0].survives_closed_sessions
]


@pytest.mark.parametrize("case", LEGACY_HTTP, ids=case_id)
def test_legacy_tasks_are_bound_to_the_session_that_made_them(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    target = reach(case, server_url)
    assert server.finishes is not None
    created = run_cli("tools", "call", *target, *call_args(server.finishes, tmp_path), "--task")
    assert created.code == 0, created.stderr
    task_id = created.document["taskId"]
    again = run_cli("tasks", "get", *target, "--task-id", task_id)
    assert again.code == 1
    assert again.error["code"] == "TASK_UNKNOWN_OR_EXPIRED"
    assert "bound to the session" in again.error["details"]["hint"]


EXTENSION_HTTP = cases("slow", wire="extension", transport="http")
"""Over stdio every command starts its own server process, which knows no earlier task."""


@pytest.mark.parametrize("case", EXTENSION_HTTP, ids=case_id)
def test_extension_tasks_are_cancelled_and_read_from_any_connection(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    target = reach(case, server_url)
    assert server.slow is not None and server.finishes is not None
    created = run_cli("tools", "call", *target, *call_args(server.slow, tmp_path), "--task")
    assert created.code == 0, created.stderr
    task_id = created.document["taskId"]
    cancelled = run_cli("tasks", "cancel", *target, "--task-id", task_id)
    assert cancelled.code == 0, cancelled.stderr
    assert cancelled.document["cooperative"] is True
    watch = run_cli(
        "tasks", "watch", *target, "--task-id", task_id, "--yes", timeout=WATCH_TIMEOUT_S
    )
    assert watch.document["outcome"] == "cancelled", watch.stdout
    done = watched(target, server.finishes, tmp_path)
    finished_id = done.document["taskId"]
    got = run_cli("tasks", "get", *target, "--task-id", finished_id)
    assert got.code == 0 and got.document["task"]["status"] == "completed"
    assert server.finishes.expect in json.dumps(got.document["task"]["result"])


@pytest.mark.slow
def test_a_question_on_the_call_stream_is_prompted_once(server_url: Any) -> None:
    """The TypeScript SDK example asks on the `tools/call` stream and returns the task while the
    question is still open; watching the task must not ask it a second time."""
    from tests.support.cli_helpers import interactive_cli

    server, call = BY_NAME["ts-sdk-simpleStreamableHttp"], Call("collect-user-info-task", {})
    target = reach((server, "http"), server_url)
    args = ("tools", "call", *target, "--tool-name", call.tool, "--task", "--task-watch")
    with interactive_cli(*args, "--tool-args", json.dumps({"infoType": "contact"})) as (
        term,
        process,
    ):
        term.expect("[a]ccept, [d]ecline or [c]ancel? [a]: ", timeout=WATCH_TIMEOUT_S)
        term.type("d")
        term.expect("watch ended (completed)", timeout=WATCH_TIMEOUT_S)
        stdout, _ = process.communicate(timeout=30)
    assert term.seen.count("[a]ccept, [d]ecline or [c]ancel?") == 1, term.seen
    assert "is not pending" not in term.seen
    assert "User declined to provide contact information" in stdout
