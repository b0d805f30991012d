"""End-to-end tests of the headless CLI: `taskscope` run as a subprocess against the demo servers
(both wires, stdio and Streamable HTTP) and a deliberately hostile stdio server."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_helpers import clean_env, cli_command, run_cli
from tests.support.demo_servers import REPO_ROOT, start_http_demo

FAST = ("--speed", "20")


def demo(wire: str, *extra: str) -> tuple[str, str]:
    """The `--command` flag for a stdio demo server of `wire`."""
    return ("--command", f"{sys.executable} -m app.demo --wire {wire} " + " ".join(extra or FAST))


def frames(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def sent_methods(path: Path) -> list[str]:
    return [f["method"] for f in frames(path) if f["direction"] == "out" and f["method"]]


@pytest.fixture
def answers_file(tmp_path: Path) -> Path:
    rules = [
        {
            "match": {"message": "Approve the rollout"},
            "response": {"action": "accept", "content": {"approve": True, "reason": "ship"}},
        },
        {
            "match": {"message": "^When should", "method": "elicitation/create"},
            "response": {"action": "accept", "content": {"window": "weekend"}},
        },
        {
            "match": {"message": "Describe the server"},
            "response": {
                "action": "accept",
                "content": {
                    "hostname": "db-7",
                    "admin_email": "ops@example.com",
                    "replicas": 3,
                    "region": "us-east",
                },
            },
        },
    ]
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(rules))
    return path


# -- no server needed -----------------------------------------------------------------------------


def test_no_target_is_a_usage_error_suggesting_the_demo() -> None:
    run = run_cli("tasks", "capabilities")
    assert run.code == 2
    assert run.error["code"] == "USAGE"
    assert "--url" in run.error["message"] and "--command" in run.error["message"]
    assert "--demo legacy" in json.dumps(run.error["details"])


@pytest.mark.parametrize(
    "args",
    [
        ("tools", "call", "--demo", "legacy", "--tool-name", "x", "--tool-args", "{not json"),
        ("tools", "call", "--demo", "legacy", "--tool-name", "x", "--tool-args", "[1]"),
        ("tools", "call", "--demo", "legacy", "--tool-name", "x", "--task-ttl", "5"),
        ("tools", "call", "--demo", "legacy", "--tool-name", "x", "--task-watch"),
        (
            "tools",
            "call",
            "--wire",
            "extension",
            "--demo",
            "extension",
            "--tool-name",
            "x",
            "--task",
            "--task-ttl",
            "5",
        ),
        ("tasks", "get", "--demo", "legacy", "--url", "http://127.0.0.1:9/mcp", "--task-id", "t"),
        ("tasks", "get", "--demo", "legacy"),
        ("tasks", "watch", "--demo", "legacy", "--task-id", "t", "--duration-ms", "0"),
        ("tasks", "frobnicate"),
        ("tasks", "get", "--demo", "legacy", "--task-id", "t", "--env", "A=1"),
    ],
)
def test_usage_errors_exit_2_with_an_error_document(args: tuple[str, ...]) -> None:
    run = run_cli(*args, timeout=20)
    assert run.code == 2, run.stderr
    assert run.error["code"] == "USAGE"
    assert run.stdout == ""


def test_no_subcommand_prints_short_help_naming_targets_and_demo() -> None:
    run = run_cli()
    assert run.code == 0
    assert "--demo legacy|extension" in run.stdout and "taskscope demo" in run.stdout


def test_demo_server_subcommand_runs_the_demo_entry_point() -> None:
    run = run_cli("demo-server", "--help")
    assert run.code == 0
    assert "--elicit-channel" in run.stdout


def test_headless_start_up_imports_neither_mcp_nor_textual() -> None:
    probe = "import sys, app.cli.run; print('mcp' in sys.modules, 'textual' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT, check=True
    )
    assert out.stdout.split() == ["False", "False"]


# -- capabilities, the wire matrix and undeclared verbs -------------------------------------------


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        (
            "legacy",
            {
                "wire": "legacy",
                "toolCalls": True,
                "list": True,
                "cancel": True,
                "update": False,
                "inlineResult": False,
            },
        ),
        (
            "extension",
            {
                "wire": "extension",
                "toolCalls": True,
                "list": False,
                "cancel": True,
                "update": True,
                "inlineResult": True,
            },
        ),
    ],
)
def test_capabilities_over_stdio_and_http(
    wire: str, expected: dict[str, Any], legacy_url: str, extension_url: str
) -> None:
    url = legacy_url if wire == "legacy" else extension_url
    era = "legacy" if wire == "legacy" else "modern"
    for target in (demo(wire), ("--url", url)):
        run = run_cli("tasks", "capabilities", *target)
        assert run.code == 0, run.stderr
        document = dict(run.document)
        decision = document.pop("era")
        assert document.pop("advertised")["declaresTasks"] is True
        assert document == expected
        assert decision["preference"] == "auto" and decision["settled"] == era
        assert decision["tried"][0]["method"] == "server/discover"
        assert [step["method"] for step in decision["tried"]][-1] == (
            "initialize" if era == "legacy" else "server/discover"
        )


def test_wire_mismatch_exits_1_and_never_sends_the_call(tmp_path: Path, extension_url: str) -> None:
    trace = tmp_path / "frames.ndjson"
    run = run_cli(
        "tools",
        "call",
        "--url",
        extension_url,
        "--wire",
        "legacy",
        "--tool-name",
        "build_report",
        "--task",
        "--trace-frames",
        str(trace),
    )
    assert run.code == 1
    assert run.error["code"] == "TASKS_WIRE_MISMATCH"
    assert run.error["details"]["actual"] == "extension"
    assert "tools/call" not in sent_methods(trace)


def test_undeclared_verbs_are_refused_without_sending(
    tmp_path: Path, legacy_url: str, extension_url: str
) -> None:
    trace = tmp_path / "frames.ndjson"
    cases = [
        (extension_url, ("tasks", "list"), "tasks/list"),
        (
            legacy_url,
            ("tasks", "update", "--task-id", "t", "--input-responses", "{}"),
            "tasks/update",
        ),
        (extension_url, ("tasks", "result", "--task-id", "t"), "tasks/result"),
    ]
    for url, verb, method in cases:
        run = run_cli(*verb, "--url", url, "--trace-frames", str(trace))
        assert run.code == 1, run.stderr
        assert run.error["code"] == "TASKS_UNSUPPORTED"
        assert method not in sent_methods(trace)
    assert "tasks get" in run.error["details"]["hint"]  # extension result points to get


@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_unknown_task_id_is_task_unknown_or_expired(
    wire: str, legacy_url: str, extension_url: str
) -> None:
    url = legacy_url if wire == "legacy" else extension_url
    run = run_cli("tasks", "get", "--url", url, "--task-id", "no-such-task")
    assert run.code == 1
    assert run.error["code"] == "TASK_UNKNOWN_OR_EXPIRED"
    assert ("session" in run.error["details"].get("hint", "")) == (wire == "legacy")
    cancel = run_cli("tasks", "cancel", "--url", url, "--task-id", "no-such-task")
    assert cancel.code == 1
    assert cancel.error["code"] == "TASK_UNKNOWN_OR_EXPIRED"
    watch = run_cli("tasks", "watch", "--url", url, "--task-id", "no-such-task")
    assert watch.code == 1
    assert watch.document["outcome"] == "expired"
    assert watch.document["taskId"] == "no-such-task"
    assert ("session that created them" in watch.document["detail"]) == (wire == "legacy")


def test_legacy_list_and_result_on_a_fresh_session(legacy_url: str) -> None:
    listed = run_cli("tasks", "list", "--url", legacy_url)
    assert listed.code == 0
    assert listed.document == {"wire": "legacy", "tasks": []}
    result = run_cli("tasks", "result", "--url", legacy_url, "--task-id", "gone")
    assert result.code == 1
    assert result.error["code"] == "TASK_UNKNOWN_OR_EXPIRED"


# -- tools ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_tools_list_and_plain_calls_keep_the_exit_contract(
    wire: str, legacy_url: str, extension_url: str
) -> None:
    url = legacy_url if wire == "legacy" else extension_url
    listed = run_cli("tools", "list", "--url", url)
    assert listed.code == 0
    assert "analyze_logs" in {tool["name"] for tool in listed.document["tools"]}
    weather = run_cli(
        "tools",
        "call",
        "--url",
        url,
        "--tool-name",
        "lookup_weather",
        "--tool-args",
        '{"city": "Porto"}',
    )
    assert weather.code == 0, weather.stderr
    assert "Porto" in weather.document["content"][0]["text"]
    tool_error = run_cli("tools", "call", "--url", url, "--tool-name", "validate_config")
    assert tool_error.code == 1
    assert tool_error.document["isError"] is True


def test_tool_args_from_file_and_stdin(tmp_path: Path, legacy_url: str) -> None:
    args_file = tmp_path / "args.json"
    args_file.write_text('{"city": "Braga"}')
    from_file = run_cli(
        "tools",
        "call",
        "--url",
        legacy_url,
        "--tool-name",
        "lookup_weather",
        "--tool-args",
        f"@{args_file}",
    )
    assert "Braga" in from_file.document["content"][0]["text"]
    from_stdin = run_cli(
        "tools",
        "call",
        "--url",
        legacy_url,
        "--tool-name",
        "lookup_weather",
        "--tool-args",
        "-",
        stdin='{"city": "Faro"}',
    )
    assert "Faro" in from_stdin.document["content"][0]["text"]


def test_task_ttl_on_the_extension_wire_is_a_usage_error(extension_url: str) -> None:
    run = run_cli(
        "tools",
        "call",
        "--url",
        extension_url,
        "--tool-name",
        "build_report",
        "--task",
        "--task-ttl",
        "60000",
    )
    assert run.code == 2
    assert run.error["code"] == "USAGE"


def test_legacy_task_creation_envelope_with_ttl(legacy_url: str) -> None:
    run = run_cli(
        "tools",
        "call",
        "--url",
        legacy_url,
        "--tool-name",
        "build_report",
        "--task",
        "--task-ttl",
        "60000",
    )
    assert run.code == 0, run.stderr
    document = run.document
    assert document["status"] == "task_created" and document["wire"] == "legacy"
    assert document["task"]["taskId"] == document["taskId"]
    assert document["task"]["ttlMs"] == 60000


def test_a_task_watched_past_its_ttl_is_said_to_have_expired_not_to_be_session_bound() -> None:
    """One connection creates and watches the task: the diagnosis is the elapsed TTL, and no
    session-binding hint tells the user to do what they just did."""
    run = run_cli(
        "--demo",
        "legacy",
        "tools",
        "call",
        "--tool-name",
        "migrate_database",
        "--task",
        "--task-ttl",
        "1500",
        "--task-watch",
    )
    assert run.code == 1, run.stderr
    assert run.document["outcome"] == "expired"
    detail = run.document["detail"]
    assert "TTL of 1500 ms elapsed" in detail
    assert "session" not in detail and "connection" not in detail


def test_synchronous_answer_to_a_task_request_prints_the_result(extension_url: str) -> None:
    run = run_cli(
        "tools",
        "call",
        "--url",
        extension_url,
        "--tool-name",
        "lookup_weather",
        "--task",
        "--task-watch",
    )
    assert run.code == 0, run.stderr
    assert "Lisbon" in run.document["content"][0]["text"]
    assert "synchronously" in run.stderr


# -- extension tasks across connections: get, cancel, update, watch -------------------------------


def test_extension_get_cancel_and_watch_across_connections(extension_url: str) -> None:
    created = run_cli(
        "tools",
        "call",
        "--url",
        extension_url,
        "--tool-name",
        "migrate_database",
        "--tool-args",
        '{"tables": 10000}',
        "--task",
    )
    assert created.code == 0, created.stderr
    task_id = created.document["taskId"]
    got = run_cli("tasks", "get", "--url", extension_url, "--task-id", task_id)
    assert got.code == 0, got.stderr
    assert got.document["task"]["status"] == "working"
    cancelled = run_cli("tasks", "cancel", "--url", extension_url, "--task-id", task_id)
    assert cancelled.code == 0
    assert cancelled.document["cooperative"] is True
    assert cancelled.document["status"] == "cancel_requested"
    watched = run_cli("tasks", "watch", "--url", extension_url, "--task-id", task_id)
    assert watched.code == 1
    assert watched.document["outcome"] == "cancelled"


@pytest.mark.slow
def test_extension_update_is_validated_against_the_schema(extension_url: str) -> None:
    created = run_cli(
        "tools", "call", "--url", extension_url, "--tool-name", "provision_server", "--task"
    )
    task_id = created.document["taskId"]
    task: dict[str, Any] = {}
    for _ in range(40):
        task = run_cli("tasks", "get", "--url", extension_url, "--task-id", task_id).document[
            "task"
        ]
        if task["status"] == "input_required":
            break
        time.sleep(0.25)
    (request,) = task["inputRequests"]
    bad = {request["key"]: {"action": "accept", "content": {"hostname": "X!", "replicas": 99}}}
    rejected = run_cli(
        "tasks",
        "update",
        "--url",
        extension_url,
        "--task-id",
        task_id,
        "--input-responses",
        json.dumps(bad),
    )
    assert rejected.code == 2
    assert rejected.error["code"] == "INVALID_INPUT_RESPONSE"
    problems = rejected.error["details"]["problems"][request["key"]]
    assert any(p.startswith("admin_email") for p in problems)
    assert any(p.startswith("replicas") for p in problems)
    good = {
        request["key"]: {
            "action": "accept",
            "content": {
                "hostname": "db-9",
                "admin_email": "a@b.io",
                "replicas": 2,
                "region": "eu-west",
            },
        }
    }
    accepted = run_cli(
        "tasks",
        "update",
        "--url",
        extension_url,
        "--task-id",
        task_id,
        "--input-responses",
        "-",
        stdin=json.dumps(good),
    )
    assert accepted.code == 0, accepted.stderr
    assert accepted.document["answered"] == [request["key"]]
    watched = run_cli("tasks", "watch", "--url", extension_url, "--task-id", task_id)
    assert watched.code == 0
    assert "Provisioned db-9 in eu-west" in json.dumps(watched.document["task"]["result"])


# -- watching: outcomes and exit codes ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("wire", "tool", "outcome", "code"),
    [
        ("legacy", "build_report", "completed", 0),
        ("extension", "build_report", "completed", 0),
        ("legacy", "sync_inventory", "failed", 1),
        ("extension", "sync_inventory", "failed", 1),
        ("extension", "validate_config", "completed", 0),  # isError is completed on the extension
        ("legacy", "validate_config", "failed", 1),  # ... and failed on legacy
        ("legacy", "analyze_logs", "completed", 0),  # a tool with an outputSchema, as a task
        ("extension", "analyze_logs", "completed", 0),
    ],
)
def test_create_and_watch_outcomes_over_stdio(
    wire: str, tool: str, outcome: str, code: int
) -> None:
    run = run_cli("tools", "call", *demo(wire), "--tool-name", tool, "--task", "--task-watch")
    assert run.code == code, run.stderr
    document = run.document
    assert (document["outcome"], document["wire"]) == (outcome, wire)
    assert document["task"]["taskId"] == document["taskId"]
    assert "watch ended" in run.stderr
    if tool == "analyze_logs":
        assert document["task"]["result"]["structuredContent"]["top_source"] == "api-gateway"
    if tool == "sync_inventory":
        assert "502" in document["task"]["error"]["message"]


def test_watch_timeout_exits_7(extension_url: str) -> None:
    run = run_cli(
        "tools",
        "call",
        "--url",
        extension_url,
        "--tool-name",
        "migrate_database",
        "--tool-args",
        '{"tables": 10000}',
        "--task",
        "--task-watch",
        "--duration-ms",
        "1200",
    )
    assert run.code == 7, run.stderr
    assert run.document["outcome"] == "timeout"
    assert run.document["task"]["status"] == "working"


@pytest.mark.slow
def test_sigterm_aborts_with_the_envelope_printed() -> None:
    process = subprocess.Popen(
        cli_command(
            "tools",
            "call",
            *demo("legacy", "--speed", "1"),
            "--tool-name",
            "migrate_database",
            "--task",
            "--task-watch",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env=clean_env(),
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "watched" in line:
            break
    process.send_signal(signal.SIGTERM)
    stdout, _ = process.communicate(timeout=20)
    assert process.returncode == 130
    document = json.loads(stdout)
    assert document["outcome"] == "aborted"
    assert document["task"]["status"] == "working"


# -- input: scripted answers, unanswered input ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_answers_file_answers_a_two_input_task(wire: str, answers_file: Path) -> None:
    run = run_cli(
        "tools",
        "call",
        *demo(wire),
        "--tool-name",
        "deploy_release",
        "--task",
        "--task-watch",
        "--answers",
        str(answers_file),
    )
    assert run.code == 0, run.stderr
    assert run.document["outcome"] == "completed"
    assert "scheduled: weekend" in json.dumps(run.document["task"]["result"])
    assert run.stderr.count("from answers") == 2


@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_answers_file_answers_an_elicitation_during_a_plain_call(
    wire: str, answers_file: Path, legacy_url: str, extension_url: str
) -> None:
    url = legacy_url if wire == "legacy" else extension_url
    run = run_cli(
        "tools",
        "call",
        "--url",
        url,
        "--tool-name",
        "provision_server",
        "--answers",
        str(answers_file),
    )
    assert run.code == 0, run.stderr
    assert "Provisioned db-7 in us-east" in run.document["content"][0]["text"]


def test_legacy_input_on_the_call_stream_is_answered_before_the_task_exists(
    answers_file: Path,
) -> None:
    run = run_cli(
        "tools",
        "call",
        *demo("legacy", "--speed", "20", "--elicit-channel", "call"),
        "--tool-name",
        "provision_server",
        "--task",
        "--task-watch",
        "--answers",
        str(answers_file),
    )
    assert run.code == 0, run.stderr
    assert "Provisioned db-7" in json.dumps(run.document["task"]["result"])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("wire", "flags", "env"),
    [
        ("legacy", (), {}),
        ("extension", (), {}),
        ("legacy", ("--interactive",), {}),  # piped stdin: never prompts
        ("extension", ("--interactive",), {"CI": "true"}),
        ("legacy", ("--interactive", "--yes"), {}),
    ],
)
def test_unanswerable_input_is_declined_to_the_server_and_exits_6(
    wire: str, flags: tuple[str, ...], env: dict[str, str]
) -> None:
    run = run_cli(
        "tools",
        "call",
        *demo(wire),
        "--tool-name",
        "provision_server",
        "--task",
        "--task-watch",
        *flags,
        env=clean_env(**env),
    )
    assert run.code == 6, run.stderr
    assert "declining it" in run.stderr
    (declined,) = run.document["declinedInput"]
    assert declined["method"] == "elicitation/create"
    assert "Describe the server" in declined["message"]
    # The server got the decline: the tool went on as it does when the user declines.
    assert run.document["outcome"] == "completed"
    assert "Provisioning abandoned (decline)." in json.dumps(run.document["task"]["result"])


@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_a_plain_call_declines_what_it_cannot_answer_over_http(
    wire: str, legacy_url: str, extension_url: str
) -> None:
    url = legacy_url if wire == "legacy" else extension_url
    run = run_cli("tools", "call", "--url", url, "--tool-name", "provision_server")
    assert run.code == 6, run.stderr
    assert run.document["content"][0]["text"] == "Provisioning abandoned (decline)."


def test_a_declined_extension_task_ends_on_the_server_as_declined(extension_url: str) -> None:
    run = run_cli(
        "tools",
        "call",
        "--url",
        extension_url,
        "--tool-name",
        "provision_server",
        "--task",
        "--task-watch",
        env=clean_env(CI="true"),
    )
    assert run.code == 6, run.stderr
    task_id = run.document["taskId"]
    seen = run_cli("tasks", "get", "--url", extension_url, "--task-id", task_id)
    assert seen.code == 0, seen.stderr
    assert seen.document["task"]["status"] == "completed"
    assert "Provisioning abandoned (decline)." in json.dumps(seen.document["task"]["result"])


def test_scripted_answer_that_breaks_the_schema_is_not_sent(tmp_path: Path) -> None:
    rules = [
        {
            "match": {"method": "elicitation/create"},
            "response": {"action": "accept", "content": {"hostname": "ok-name"}},
        }
    ]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rules))
    run = run_cli(
        "tools",
        "call",
        *demo("extension"),
        "--tool-name",
        "provision_server",
        "--task",
        "--task-watch",
        "--answers",
        str(path),
    )
    assert run.code == 6, run.stderr
    assert any("admin_email" in p for p in run.document["answerProblems"])


@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_roots_are_answered_from_root_flags(
    wire: str, tmp_path: Path, legacy_url: str, extension_url: str
) -> None:
    url = legacy_url if wire == "legacy" else extension_url
    root = tmp_path / "workspace"
    root.mkdir()
    run = run_cli(
        "tools",
        "call",
        "--url",
        url,
        "--tool-name",
        "index_workspace",
        "--task",
        "--task-watch",
        "--root",
        str(root),
        env=clean_env(CI="true"),  # never prompted: roots are configuration
    )
    assert run.code == 0, run.stderr
    assert f"roots/list answered with 1 root: {root.as_uri()}" in run.stderr
    assert root.as_uri() in json.dumps(run.document["task"]["result"])


def test_without_root_flags_the_roots_capability_is_not_declared(tmp_path: Path) -> None:
    trace = tmp_path / "frames.ndjson"
    run = run_cli(
        "tools",
        "call",
        *demo("legacy", "--speed", "20"),
        "--tool-name",
        "index_workspace",
        "--task",
        "--task-watch",
        "--trace-frames",
        str(trace),
    )
    assert run.code == 0, run.stderr
    frames = [json.loads(line) for line in trace.read_text().splitlines()]
    (initialize,) = [f for f in frames if f.get("message", {}).get("method") == "initialize"]
    assert "roots" not in initialize["message"]["params"]["capabilities"]
    assert "No roots were given" in json.dumps(run.document["task"]["result"])


# -- pacing ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_polls_never_come_sooner_than_the_server_asked(tmp_path: Path) -> None:
    trace = tmp_path / "frames.ndjson"
    run = run_cli(
        "tools",
        "call",
        *demo("extension", "--speed", "1", "--poll-interval-ms", "1500"),
        "--tool-name",
        "migrate_database",
        "--tool-args",
        '{"tables": 5}',
        "--task",
        "--task-watch",
        "--poll-interval-ms",
        "300",
        "--trace-frames",
        str(trace),
    )
    assert run.code == 0, run.stderr
    records = frames(trace)
    polls = [f for f in records if f["direction"] == "out" and f["method"] == "tasks/get"]
    answers = {f["id"]: f["at"] for f in records if f["direction"] == "in" and f["id"] is not None}
    assert len(polls) >= 2
    for previous, current in itertools.pairwise(polls):
        assert current["at"] - answers[previous["id"]] >= 1.5 - 0.01


@pytest.mark.slow
def test_retry_after_on_429_is_honoured(tmp_path: Path) -> None:
    trace = tmp_path / "frames.ndjson"
    extra = (
        "--speed",
        "1",
        "--poll-interval-ms",
        "250",
        "--rate-limit-every",
        "2",
        "--retry-after",
        "1.5",
    )
    with start_http_demo("extension", *extra) as (url, _process):
        run = run_cli(
            "tools",
            "call",
            "--url",
            url,
            "--tool-name",
            "migrate_database",
            "--tool-args",
            '{"tables": 3}',
            "--task",
            "--task-watch",
            "--trace-frames",
            str(trace),
        )
    assert run.code == 0, run.stderr
    assert "retry-after" in run.stderr
    records = frames(trace)
    limited = {f["id"] for f in records if f["direction"] == "in" and f["httpStatus"] == 429}
    polls = [f for f in records if f["direction"] == "out" and f["method"] == "tasks/get"]
    refused = [n for n, poll in enumerate(polls[:-1]) if poll["id"] in limited]
    assert refused, "the server never answered 429"
    for n in refused:
        assert polls[n + 1]["at"] - polls[n]["at"] >= 1.5 - 0.01


# -- bad input from a hostile server --------------------------------------------------------------

HOSTILE_SERVER = textwrap.dedent(
    """
    import json, sys
    ESC = "\\x1b"
    polls = 0
    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n"); sys.stdout.flush()
    def task(status, **extra):
        return {"taskId": "t-1", "status": status, "createdAt": "2025-11-25T10:00:00Z",
                "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 60000, "pollInterval": 100,
                **extra}
    for line in sys.stdin:
        message = json.loads(line)
        method, rpc_id = message.get("method"), message.get("id")
        if rpc_id is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25",
                      "serverInfo": {"name": "hostile", "version": "1"},
                      "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}}
        elif method == "tools/call" and message["params"]["name"] == "vanish":
            result = {"task": {**task("working"), "taskId": "t-die"}}
        elif method == "tools/call":
            result = {"task": task("working")}
        elif method == "tasks/get" and message["params"]["taskId"] == "t-die":
            sys.exit(0)
        elif method == "tasks/get" and message["params"]["taskId"] != "t-1":
            result = {**task("paused"), "taskId": message["params"]["taskId"]}
        elif method == "tasks/get":
            polls += 1
            sys.stdout.write("this line is not JSON\\n")
            hidden = ESC + "]52;c;SGVsbG8=\\x07" + ESC + "[31mred"
            script = {1: task("paused"), 2: {**task("working"), "taskId": 42},
                      3: task("working", statusMessage=hidden)}
            result = script.get(polls, task("completed"))
        elif method == "tasks/result":
            result = {"content": [{"type": "text", "text": ESC + "[2Jwiped"}], "isError": False}
        else:
            send({"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32601, "message": "no"}})
            continue
        send({"jsonrpc": "2.0", "id": rpc_id, "result": result})
    """
)


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[str, str]:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE_SERVER)
    return ("--command", f"{sys.executable} {script}")


def test_bad_frames_never_crash_a_watch(hostile: tuple[str, str]) -> None:
    run = run_cli("tools", "call", *hostile, "--tool-name", "x", "--task", "--task-watch")
    assert run.code == 0, run.stderr
    assert run.document["outcome"] == "completed"
    assert run.stderr.count("protocol violation") >= 2
    assert "paused" in run.stderr and "frame:" in run.stderr
    assert "\x1b" not in run.stderr and "\x1b" not in run.stdout
    assert "\\u001b[2Jwiped" in run.stdout  # server text stays data, escaped


def test_bad_task_payload_on_get_is_a_protocol_violation(hostile: tuple[str, str]) -> None:
    run = run_cli("tasks", "get", *hostile, "--task-id", "other")
    assert run.code == 1
    assert run.error["code"] == "PROTOCOL_VIOLATION"
    assert "paused" in json.dumps(run.error)


def test_a_server_that_goes_away_ends_the_watch_as_unreachable(hostile: tuple[str, str]) -> None:
    run = run_cli(  # reconnecting off: test_reconnect_cli covers a respawned server
        "tools",
        "call",
        *hostile,
        "--tool-name",
        "vanish",
        "--task",
        "--task-watch",
        "--reconnect-attempts",
        "0",
    )
    assert run.code == 1, run.stderr
    assert run.document["outcome"] == "unreachable"
    assert run.document["task"]["status"] == "working"
    # no long error backoff against a dead connection: one failed poll, one short backoff, the end
    failed = [line for line in run.stderr.splitlines() if "request failed" in line]
    assert len(failed) == 1 and failed[0].endswith("(next poll in 1.00s, backoff)"), run.stderr


def test_a_tool_that_needs_a_task_names_the_missing_extension(extension_url: str) -> None:
    run = run_cli("tools", "call", "--url", extension_url, "--tool-name", "migrate_database")
    assert run.code == 1
    assert run.error["code"] == "RPC_ERROR"
    assert run.error["details"]["code"] == -32021
    assert "--task" in run.error["details"]["hint"]
