"""`taskscope check` end to end: the clean demo servers pass every check that applies, on both
wires and both transports; each check fails on a server that breaks exactly its rule (the
violating relay of tests/support/servers/violating.py) and nowhere else; no tool means an
incomplete run, never a green one; a silent server ends within the timeout, without a traceback.
"""

from __future__ import annotations

import json
import shlex
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_helpers import Run, run_cli
from tests.support.demo_servers import start_http_demo, violating_relay

pytestmark = pytest.mark.slow

TIMEOUT = ("--timeout-ms", "8000")


def relay_command(wire: str, mode: str, *demo_args: str) -> str:
    words = [sys.executable, "-m", "tests.support.servers.violating", "--wire", wire]
    words += ["--violate", mode, "--", *demo_args]
    return shlex.join(words)


def report_of(run: Run) -> dict[str, Any]:
    assert "Traceback" not in run.stderr, run.stderr
    try:
        document = json.loads(run.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(
            f"no JSON report (exit {run.code}):\n{run.stdout}\n{run.stderr}"
        ) from exc
    assert isinstance(document, dict)
    assert_fails_cite_frames(document)
    return document


def assert_fails_cite_frames(document: dict[str, Any]) -> None:
    """Every fail points at the frames behind it: at least one evidence item, each naming a
    frame's method and direction, and an exchange number unless it is a notification."""
    for found in document["checks"]:
        if found["verdict"] != "fail":
            continue
        assert found["evidence"], found
        for item in found["evidence"]:
            assert item["method"] and item["direction"] in ("in", "out"), found
            notification = str(item["method"]).startswith("notifications/")
            assert notification or item["exchange"] is not None, found


def verdicts(document: dict[str, Any]) -> dict[str, str]:
    return {check["id"]: check["verdict"] for check in document["checks"]}


def check(*args: str) -> tuple[Run, dict[str, Any]]:
    run = run_cli("check", *args, "--format", "json", *TIMEOUT, timeout=240)
    return run, report_of(run)


def check_legacy_relay(mode: str, *demo_args: str) -> tuple[Run, dict[str, dict[str, Any]]]:
    """`check` on the legacy relay in `mode` with provision_server: the run and each check by id."""
    command = relay_command("legacy", mode, *demo_args)
    run, document = check("--command", command, "--tool-name", "provision_server")
    return run, {found["id"]: found for found in document["checks"]}


def test_clean_legacy_demo_over_stdio_passes_every_check() -> None:
    run, document = check("--demo", "legacy", "--tool-name", "provision_server")
    assert run.code == 0, run.stderr
    assert document["outcome"] == "passed"
    assert set(verdicts(document).values()) == {"pass"}
    assert document["server"]["transport"] == "stdio"
    assert "check: ✓ pass tasks-legacy-list" in run.stderr


def clean(document: dict[str, Any]) -> dict[str, str]:
    """The verdicts of a clean demo: nothing fails or could not run, and the one warning is
    the demo's missing subscriptions/listen (optional)."""
    found = verdicts(document)
    if "tasks-status-notifications" in found:
        assert found.pop("tasks-status-notifications") == "warn"
    assert not {v for v in found.values()} - {"pass", "skip"}, document
    return found


def test_clean_extension_demo_over_stdio_passes_and_skips_http_routing() -> None:
    run, document = check("--demo", "extension", "--tool-name", "provision_server")
    assert run.code == 0, run.stderr
    found = clean(document)
    skipped = {cid for cid, verdict in found.items() if verdict == "skip"}
    assert "tasks-mcp-name-routing" in skipped
    for item in document["checks"]:
        if item["verdict"] == "skip":
            reason = item["reason"]
            assert any(why in reason for why in ("Streamable HTTP", "fixture", "two questions"))


def test_clean_demos_over_http_pass_every_check() -> None:
    with start_http_demo("extension", "--conformance") as (url, _process):
        run, document = check("--url", url)
    assert run.code == 0, run.stderr
    assert set(clean(document).values()) == {"pass"}, document
    assert len(document["checks"]) == document["summary"]["total"] >= 47
    with start_http_demo("legacy") as (url, _process):
        run, document = check("--url", url, "--tool-name", "provision_server")
    assert run.code == 0, run.stderr
    assert set(verdicts(document).values()) == {"pass"}


def test_no_tool_is_incomplete_never_green(tmp_path: Path) -> None:
    junit = tmp_path / "check.xml"
    run, document = check("--demo", "legacy", "--junit", str(junit))
    assert run.code == 3
    assert document["outcome"] == "incomplete"
    assert "--tool-name" in document["incompleteReason"]
    found = verdicts(document)
    assert found["tasks-legacy-create-shape"] == "could-not-run"
    assert found["tasks-wire-resolvable"] == "pass"
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == str(document["summary"]["could-not-run"])
    assert junit.stat().st_mode & 0o777 == 0o600


def test_text_report_and_selection() -> None:
    run = run_cli(
        "check",
        "--demo",
        "legacy",
        "--check-id",
        "tasks-invalid-task-id-rejected",
        "--format",
        "text",
        *TIMEOUT,
    )
    assert run.code == 0, run.stderr
    assert "✓ pass" in run.stdout and "tasks-invalid-task-id-rejected" in run.stdout
    assert "outcome: PASSED" in run.stdout
    assert "tasks-legacy-list" not in run.stdout
    bad = run_cli("check", "--demo", "legacy", "--check-id", "no-such-check")
    assert bad.code == 2 and "no-such-check" in bad.stderr
    readonly = run_cli("check", "--demo", "legacy", "--readonly")
    assert readonly.code == 2 and "--readonly" in readonly.stderr


LEGACY_VIOLATIONS = [
    ("create-not-working", "tasks-legacy-create-shape", "fail"),
    ("ttl-string", "tasks-ttl-shape", "fail"),
    ("terminal-not-final", "tasks-legal-transitions", "fail"),
    ("unknown-id-internal", "tasks-invalid-task-id-rejected", "fail"),
    ("result-no-related-meta", "tasks-legacy-result", "fail"),
    ("question-unstamped", "tasks-legacy-input-related-task", "fail"),
    ("cancel-not-cancelled", "tasks-legacy-cancel-working", "fail"),
    ("cancel-terminal-accepted", "tasks-legacy-cancel-terminal", "fail"),
    ("list-misses-task", "tasks-legacy-list", "fail"),
    ("mixed-era", "tasks-declaration-hygiene", "fail"),
    ("early-expiry", "tasks-no-early-ttl-expiry", "fail"),
    ("status-notification-partial", "tasks-legacy-status-notifications", "fail"),
    ("cancel-unknown-missing", "tasks-declared-verbs-answer", "fail"),
    ("tools-call-undeclared", "tasks-legacy-tools-call-declared", "fail"),
    ("tasks-no-verbs", "tasks-wire-resolvable", "fail"),
    ("terminal-not-final-no-cancel", "tasks-legal-transitions", "fail"),
]
EXTENSION_VIOLATIONS = [
    ("get-result-type-task", "tasks-result-type-discipline", "fail"),
    ("legacy-field-names", "tasks-wire-field-renames", "fail"),
    ("ttl-float", "tasks-ttl-integer-shape", "fail"),
    ("request-state-create", "tasks-create-result-no-request-state", "fail"),
    ("request-state-get", "tasks-get-detailed-no-request-state", "fail"),
    ("completed-no-result", "tasks-inline-result", "fail"),
    ("related-meta-inline", "tasks-no-related-task-meta-on-inlined-result", "fail"),
    ("cancel-ack-task", "tasks-cancel-ack-shape", "fail"),
    ("cancel-terminal-refused", "tasks-cancel-terminal-idempotent-ack", "warn"),
    ("removed-verbs-exist", "sep-2663-tasks-result-removed-method-not-found", "fail"),
    ("undeclared-no-data", "tasks-undeclared-capability-names-requirements", "fail"),
    ("not-durable", "sep-2663-durable-create-strong-consistency", "fail"),
    ("undeclared-accepted", "tasks-undeclared-capability-rejected", "fail"),
    ("undeclared-creates", "tasks-undeclared-creation-refused", "fail"),
    ("legacy-param-honoured", "sep-2663-legacy-task-param-ignored", "fail"),
    ("mixed-era", "tasks-declaration-hygiene", "fail"),
    ("unknown-id-internal", "tasks-invalid-task-id-rejected", "fail"),
    ("terminal-not-final", "tasks-legal-transitions", "fail"),
    ("update-ignored", "tasks-input-required-update-completes", "fail"),
    ("mixed-era", "tasks-extension-advertised", "fail"),
    ("tasks-wrong-era", "tasks-wire-resolvable", "fail"),
    ("ttl-missing", "tasks-ttl-shape", "fail"),
    ("early-expiry", "tasks-no-early-ttl-expiry", "fail"),
    ("cancel-unknown-missing", "tasks-declared-verbs-answer", "fail"),
    ("unfinished-carries-result", "tasks-status-payload-shape", "fail"),
    ("first-get-other-id", "sep-2663-tasks-get-status-working", "fail"),
    ("tasks-list-answers", "tasks-removed-tasks-list", "fail"),
]
COLLATERAL = {
    "completed-no-result": {
        "tasks-status-payload-shape",
        "sep-2663-tasks-get-status-completed",
        "sep-2663-tool-error-uses-completed-status",
    },
    "greet-no-result-type": {"tasks-result-type-complete-on-non-task-responses"},
    "get-result-type-task": {"tasks-result-type-complete-on-non-task-responses"},
    "not-durable": {"sep-2663-tasks-get-status-working"},
    "cancel-ack-task": {"tasks-cancel-terminal-idempotent-ack"},
    "removed-verbs-exist": {"tasks-removed-tasks-list"},
    "mcp-name-ignored": {"sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get"},
    "method-mismatch-accepted": set(),
    "ended-name-refused": {"tasks-mcp-name-routing"},
    "mixed-era": {"tasks-declaration-hygiene", "tasks-extension-advertised"},
    "tasks-wrong-era": {"tasks-declaration-hygiene", "tasks-extension-advertised"},
}
"""Checks that judge the very same bytes another way (a completed task with no result has no
payload either; one ack answers both cancels; one rewrite removes both removed verbs; a 2026
server/discover with capabilities.tasks is mixed-era and not the extension's advertisement,
which the suite's tasks-extension-advertised says "and not capabilities.tasks")."""


def assert_only(document: dict[str, Any], mode: str, target: str, verdict: str) -> None:
    found = verdicts(document)
    assert found[target] == verdict, (mode, document)
    allowed = {target, *COLLATERAL.get(mode, set())}
    if mode != "listen-no-ack":
        allowed.add("tasks-status-notifications")
    broken = {cid: v for cid, v in found.items() if v in ("fail", "warn") and cid not in allowed}
    assert broken == {}, (mode, broken, document)


@pytest.mark.parametrize(("mode", "target", "verdict"), LEGACY_VIOLATIONS)
def test_each_legacy_check_fails_where_its_rule_is_broken(
    mode: str, target: str, verdict: str
) -> None:
    run, document = check(
        "--command", relay_command("legacy", mode), "--tool-name", "provision_server"
    )
    assert run.code == (1 if verdict == "fail" else 0), run.stderr
    assert_only(document, mode, target, verdict)


def test_a_task_required_tool_that_runs_plainly_fails_task_support() -> None:
    run, document = check(
        "--command", relay_command("legacy", "required-plain-ok"), "--tool-name", "build_report"
    )
    assert run.code == 1
    assert_only(document, "required-plain-ok", "tasks-legacy-task-support", "fail")


def test_ttl_null_passes_on_the_legacy_wire() -> None:
    """2025-11-25 allows `ttl: null` (unlimited); MCPJam fails it, taskscope does not."""
    run, document = check(
        "--command", relay_command("legacy", "ttl-null"), "--tool-name", "provision_server"
    )
    assert run.code == 0, document
    assert verdicts(document)["tasks-ttl-shape"] == "pass"


def test_a_task_announced_in_a_tool_results_meta_is_followed_and_its_shape_fails() -> None:
    """FastMCP 2.14 answers a task-augmented call with a tool result carrying the task in
    `_meta["modelcontextprotocol.io/task"]`: the create shape fails, naming that variant, and the
    announced task is still followed, so every other check decides."""
    run, found = check_legacy_relay("task-in-meta")
    assert run.code == 1, run.stderr
    assert {cid for cid, check in found.items() if check["verdict"] != "pass"} == {
        "tasks-legacy-create-shape"
    }
    assert found["tasks-legacy-create-shape"]["verdict"] == "fail"
    assert "_meta['modelcontextprotocol.io/task']" in found["tasks-legacy-create-shape"]["reason"]


def test_the_pre_release_related_task_key_on_tasks_result_only_warns() -> None:
    """FastMCP 2.14 stamps tasks/result with `modelcontextprotocol.io/related-task`: reported as
    the pre-release name, not silently taken for the spec's `io.modelcontextprotocol/…` key."""
    run, found = check_legacy_relay("result-old-related-key")
    assert run.code == 0, run.stderr
    assert {cid for cid, check in found.items() if check["verdict"] != "pass"} == {
        "tasks-legacy-result"
    }
    assert found["tasks-legacy-result"]["verdict"] == "warn"
    assert "modelcontextprotocol.io/related-task" in found["tasks-legacy-result"]["reason"]


def test_the_lifecycle_task_asks_no_ttl_so_the_servers_own_default_is_judged() -> None:
    """The TypeScript SDK examples answer `ttl: null` when no ttl is asked (as most clients ask):
    the lifecycle's task asks none, so the check sees the null, passes it and says so."""
    run, found = check_legacy_relay("ttl-null-unrequested")
    assert run.code == 0, run.stderr
    assert found["tasks-ttl-shape"]["verdict"] == "pass"
    assert "ttl is null (unlimited)" in found["tasks-ttl-shape"]["reason"]


def test_a_server_that_creates_tasks_without_declaring_tools_call_is_reported() -> None:
    """The Python SDK 1.23-1.26 declares `tasks.requests.tools: {}` without `call` yet creates
    tasks: one finding of its own, failed (an undeclared request type MUST be processed
    normally), whose evidence is the tools/call that made the task."""
    run, found = check_legacy_relay("tools-call-undeclared")
    assert run.code == 1, run.stderr
    broken = {cid for cid, check in found.items() if check["verdict"] != "pass"}
    assert broken == {"tasks-legacy-tools-call-declared"}
    under = found["tasks-legacy-tools-call-declared"]
    assert under["verdict"] == "fail"
    assert "under-declares" in under["reason"]
    assert under["evidence"][0]["method"] == "tools/call"


def test_an_unstamped_question_asked_before_the_create_result_says_when_it_came() -> None:
    """The TypeScript SDK's simpleStreamableHttp asks while its tools/call is still open, with no
    related-task meta: the failure says so, so the author knows which code path sent it."""
    run, found = check_legacy_relay("question-unstamped", "--elicit-channel", "call")
    assert run.code == 1
    assert found["tasks-legacy-input-related-task"]["verdict"] == "fail"
    assert "before its CreateTaskResult" in found["tasks-legacy-input-related-task"]["reason"]


@pytest.mark.parametrize(("mode", "target", "verdict"), EXTENSION_VIOLATIONS)
def test_each_extension_check_fails_where_its_rule_is_broken(
    mode: str, target: str, verdict: str
) -> None:
    run, document = check(
        "--command", relay_command("extension", mode), "--tool-name", "provision_server"
    )
    assert run.code == (1 if verdict == "fail" else 0), run.stderr
    assert_only(document, mode, target, verdict)


FIXTURE_VIOLATIONS = [
    ("input-no-method", "sep-2663-tasks-get-status-input-required"),
    ("partial-moves-on", "tasks-mrtr-partial-fulfillment"),
    ("content-empty", "sep-2663-tasks-get-status-completed"),
    ("tool-error-failed", "sep-2663-tool-error-uses-completed-status"),
    ("failed-with-result", "sep-2663-tasks-get-status-failed"),
    ("greet-no-result-type", "tasks-sync-tool-call"),
    ("mrtr-task-with-state", "sep-2663-mrtr-synchronous-before-task-creation"),
    ("ack-no-result-type", "tasks-result-type-complete-on-non-task-responses"),
    ("create-carries-result", "sep-2663-result-type-task-on-create"),
    ("required-runs-plainly", "sep-2663-server-returns-missing-capability-when-required"),
    ("slow-sync", "tasks-per-request-meta-opt-in"),
    ("failing-job-refused", "tasks-server-directed-creation-no-hint"),
    ("instant-no-content", "tasks-immediate-result-shortcut"),
    ("required-wrong-data", "sep-2663-server-returns-missing-capability-data-shape"),
]
"""Rules only the suite's fixture tools provoke: the relay runs the demo with --conformance."""


def test_a_listen_that_is_never_acknowledged_fails() -> None:
    run, document = check("--command", relay_command("extension", "listen-no-ack", "--conformance"))
    assert run.code == 1, run.stderr
    assert_only(document, "listen-no-ack", "tasks-status-notifications", "fail")


@pytest.mark.parametrize(("mode", "target"), FIXTURE_VIOLATIONS)
def test_each_fixture_check_fails_where_its_rule_is_broken(mode: str, target: str) -> None:
    run, document = check("--command", relay_command("extension", mode, "--conformance"))
    assert run.code == 1, run.stderr
    assert_only(document, mode, target, "fail")


def test_routing_header_checks_over_http() -> None:
    with violating_relay("none") as url:
        run, document = check("--url", url)
    assert run.code == 0, document
    assert set(clean(document).values()) == {"pass"}
    with violating_relay("mcp-name-ignored") as url:
        run, document = check("--url", url)
    assert run.code == 1
    assert_only(document, "mcp-name-ignored", "tasks-mcp-name-routing", "fail")
    mismatched = "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get"
    assert verdicts(document)[mismatched] == "fail", document
    with violating_relay("method-mismatch-accepted") as url:
        run, document = check("--url", url)
    assert run.code == 1
    assert_only(
        document, "method-mismatch-accepted", "tasks-headers-reject-mismatched-method", "fail"
    )
    with violating_relay("ended-name-refused") as url:
        run, document = check("--url", url)
    assert run.code == 1
    assert_only(
        document, "ended-name-refused", "sep-2663-routing-headers-accepted-on-tasks-get", "fail"
    )
    with violating_relay("mcp-method-refused") as url:
        run, document = check("--url", url)
    assert run.code == 1
    assert_only(
        document, "mcp-method-refused", "tasks-headers-tolerate-mcp-method-on-tools-call", "fail"
    )


def test_a_tasks_result_answered_while_the_task_still_works_fails() -> None:
    """2025-11-25: tasks/result MUST block until the task is terminal. check sends it at
    creation; the relay answers it at once (a well-formed result with its related-task meta)
    while build_report still works, and a tasks/get sent after that answer says working."""
    command = relay_command("legacy", "result-early")
    run, document = check("--command", command, "--tool-name", "build_report")
    assert run.code == 1, run.stderr
    assert_only(document, "result-early", "tasks-legacy-result", "fail")
    result = next(item for item in document["checks"] if item["id"] == "tasks-legacy-result")
    assert "MUST block" in result["reason"]
    assert [e["method"] for e in result["evidence"]] == ["tasks/result", "tasks/get"]


def test_tasks_declared_the_legacy_way_on_2026_fail_resolution_and_advertisement() -> None:
    """A 2026-07-28 server/discover with capabilities.tasks and no extension: no tasks wire
    resolves, said as it is (the tasks capability belongs to 2025-11-25; call is declared), and
    the extension's advertisement fails as the suite's check of that id does."""
    command = relay_command("extension", "tasks-wrong-era")
    run, document = check("--command", command, "--tool-name", "provision_server")
    assert run.code == 1, run.stderr
    found = {item["id"]: item for item in document["checks"]}
    assert found["tasks-extension-advertised"]["verdict"] == "fail"
    assert "capabilities.tasks" in found["tasks-extension-advertised"]["reason"]
    resolvable = found["tasks-wire-resolvable"]
    assert resolvable["verdict"] == "fail"
    assert "lacks requests.tools.call" not in resolvable["reason"]
    assert "2025-11-25" in resolvable["reason"]


def test_a_refused_tasks_get_is_no_expiry_unless_it_says_not_found() -> None:
    """A tasks/get that answers -32603 mid-follow is not an early TTL expiry: only -32602 (not
    found) before createdAt + ttl is; any other refusal could not run, saying what came. (On the
    extension wire the cancelled task of tasks-cancel-ack-shape is followed without a refusal,
    and that observation passes the check.)"""
    for wire, verdicts in (("legacy", {"could-not-run"}), ("extension", {"pass", "could-not-run"})):
        command = relay_command(wire, "get-internal-error")
        _run, document = check("--command", command, "--tool-name", "build_report")
        found = {item["id"]: item for item in document["checks"]}
        expiry = found["tasks-no-early-ttl-expiry"]
        assert expiry["verdict"] in verdicts, (wire, expiry)
        if expiry["verdict"] == "could-not-run":
            assert "-32603" in expiry["reason"], (wire, expiry)


@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_a_tasks_get_that_never_answers_is_not_implemented_nor_missing(wire: str) -> None:
    """tasks/get that never answers shows nothing about whether it is implemented: the declared
    verbs check could not run (naming the silence), never a pass."""
    run = run_cli(
        "check",
        "--command",
        relay_command(wire, "get-never-answers"),
        "--check-id",
        "tasks-declared-verbs-answer",
        "--format",
        "json",
        "--timeout-ms",
        "1500",
        timeout=120,
    )
    document = report_of(run)
    found = {item["id"]: item for item in document["checks"]}
    verbs = found["tasks-declared-verbs-answer"]
    assert verbs["verdict"] == "could-not-run", verbs
    assert "tasks/get" in verbs["reason"] and "no answer" in verbs["reason"]
    assert run.code == 3


def test_a_silent_server_ends_within_the_timeout_without_a_traceback() -> None:
    run = run_cli(
        "check",
        "--command",
        relay_command("legacy", "silent-get"),
        "--tool-name",
        "build_report",
        "--format",
        "json",
        "--timeout-ms",
        "1500",
        timeout=120,
    )
    document = report_of(run)
    assert run.code in (1, 3)
    found = verdicts(document)
    assert found["tasks-legal-transitions"] in ("could-not-run", "fail")
    reasons = " ".join(c["reason"] for c in document["checks"])
    assert "no answer" in reasons


def test_a_check_run_is_recorded_like_any_session(tmp_path: Path) -> None:
    recording = tmp_path / "check.ndjson"
    run = run_cli(
        "check",
        "--demo",
        "extension",
        "--check-id",
        "tasks-invalid-task-id-rejected",
        "--format",
        "json",
        "--record",
        str(recording),
        *TIMEOUT,
    )
    document = report_of(run)
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert lines[0]["command"] == "check"
    sent = [line["frame"] for line in lines if line["type"] == "frame"]
    cited = document["checks"][0]["evidence"][0]["exchange"]
    assert any(frame["exchange"] == cited and frame["direction"] == "in" for frame in sent)
    assert any(str(frame["reason"]).startswith("check #") for frame in sent)


def test_check_never_polls_sooner_than_the_server_asked(tmp_path: Path) -> None:
    """Each task is polled no sooner than the pollIntervalMs its previous answer named (the
    frames' own times: a lower bound, which load can only lengthen)."""
    trace = tmp_path / "frames.ndjson"
    run, document = check(
        "--command",
        relay_command("extension", "none", "--conformance"),
        "--trace-frames",
        str(trace),
    )
    assert run.code == 0, document
    frames = [json.loads(line) for line in trace.read_text().splitlines()]
    answers = {f["exchange"]: f for f in frames if f["direction"] == "in"}
    last: dict[str, tuple[float, int]] = {}
    checked = 0
    for frame in frames:
        if frame["direction"] != "out" or not str(frame["reason"]).count("follow task"):
            continue
        task_id = frame["message"]["params"]["taskId"]
        if task_id in last:
            sent, hint_ms = last[task_id]
            assert frame["at"] - sent >= hint_ms / 1000 - 0.005, (task_id, frame["at"] - sent)
            checked += 1
        result = (answers.get(frame["exchange"]) or {}).get("message", {}).get("result") or {}
        last[task_id] = (frame["at"], int(result.get("pollIntervalMs") or 1000))
    assert checked >= 2
