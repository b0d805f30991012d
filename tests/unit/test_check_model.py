"""The checker's pure parts: wire shapes, the judge's worst-observation rule, a run's outcome
(never green when it could not decide), and the three report forms."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

from app.engine.check.catalog import BY_ID, CHECKS, select
from app.engine.check.judge import Judge
from app.engine.check.model import Check, Finding, RunReport, excerpt_of, outcome_of
from app.engine.check.report import report_json, report_junit, report_text
from app.engine.check.shapes import (
    extension_field_problems,
    illegal_moves,
    is_iso_timestamp,
    legacy_task_problems,
    status_payload_problems,
)

TASK = {
    "taskId": "t1",
    "status": "working",
    "createdAt": "2026-07-28T10:00:00Z",
    "lastUpdatedAt": "2026-07-28T10:00:01.5+00:00",
}


def _check(level: str = "MUST", check_id: str = "c") -> Check:
    return Check(check_id, "title", "both", level, "lifecycle", "spec")  # type: ignore[arg-type]


def test_legacy_ttl_null_passes_and_a_string_fails() -> None:
    assert legacy_task_problems({**TASK, "ttl": None}) == []
    assert legacy_task_problems({**TASK, "ttl": 60000, "pollInterval": 500}) == []
    assert legacy_task_problems({**TASK, "ttl": "60000"}) == [
        "ttl '60000' is neither an integer nor null"
    ]
    assert legacy_task_problems(TASK) == ["ttl is missing (it is required, null meaning unlimited)"]
    assert legacy_task_problems({**TASK, "ttl": True}) != []


def test_timestamps_must_be_iso_date_times() -> None:
    assert is_iso_timestamp("2026-07-28T10:00:00Z")
    assert not is_iso_timestamp("yesterday")
    assert not is_iso_timestamp(1753696800)
    assert not is_iso_timestamp("2026-07-28")
    problems = legacy_task_problems({**TASK, "ttl": None, "createdAt": "now"})
    assert problems == ["createdAt 'now' is not an ISO 8601 date-time"]


def test_extension_fields_and_status_payloads() -> None:
    good = {**TASK, "ttlMs": None, "pollIntervalMs": 1000}
    assert extension_field_problems(good) == []
    assert "the legacy field ttl is present" in extension_field_problems({**good, "ttl": 5})
    assert extension_field_problems({**good, "ttlMs": 0.5}) != []
    assert extension_field_problems({**good, "pollIntervalMs": 0}) != []
    assert status_payload_problems({**good, "status": "completed"}) == [
        "a completed task has no inline result object"
    ]
    failed = {**good, "status": "failed", "error": {"code": -32603, "message": "x"}}
    assert status_payload_problems(failed) == []
    assert status_payload_problems({**failed, "result": {}}) == ["a failed task carries a result"]
    assert status_payload_problems({**good, "status": "input_required"}) != []
    assert status_payload_problems({**good, "result": {"content": []}}) == [
        "a task still working carries result (only a completed task has a result, only a "
        "failed one an error)"
    ]
    asking = {**good, "status": "input_required", "inputRequests": {}, "error": {"code": 1}}
    assert [p for p in status_payload_problems(asking) if "carries error" in p] != []
    assert status_payload_problems({**good, "result": None}) == []


def test_transitions() -> None:
    assert illegal_moves(["working", "input_required", "working", "completed", "completed"]) == []
    assert illegal_moves(["completed", "working"]) == [
        "completed → working: a terminal status changed"
    ]
    assert illegal_moves(["working", "bogus"]) == ["working → bogus is not a legal transition"]


def test_the_worst_observation_decides_and_should_only_warns() -> None:
    checks = {"must": _check("MUST", "must"), "should": _check("SHOULD", "should")}
    heard: list[Finding] = []
    judge = Judge(checks, heard.append)
    judge.passed("must", "fine")
    judge.violated("must", "broken")
    judge.passed("must", "fine again")
    judge.violated("should", "not quite")
    judge.settle(["must"])
    assert [f.verdict for f in heard] == ["fail"]
    judge.passed("must", "too late: settled")
    findings = {f.check.id: f for f in judge.findings()}
    assert findings["must"].reason == "broken"
    assert findings["should"].verdict == "warn"


def test_an_unobserved_check_could_not_run() -> None:
    judge = Judge({"c": _check()})
    judge.unrun("c", "needs a tool")
    (finding,) = judge.findings()
    assert (finding.verdict, finding.reason) == ("could-not-run", "needs a tool")


def test_no_false_green() -> None:
    must, should = _check("MUST"), _check("SHOULD")
    assert outcome_of([Finding(must, "pass", ""), Finding(should, "could-not-run", "")]) == "passed"
    assert (
        outcome_of([Finding(must, "pass", ""), Finding(must, "could-not-run", "")]) == "incomplete"
    )
    assert outcome_of([Finding(must, "fail", ""), Finding(must, "could-not-run", "")]) == "failed"
    assert outcome_of([Finding(must, "skip", "")]) == "incomplete"
    assert outcome_of([]) == "incomplete"


def test_catalogue_ids_are_unique_and_selected_per_wire() -> None:
    assert len(BY_ID) == len(CHECKS)
    legacy = select("legacy")
    assert "tasks-legacy-list" in legacy and "tasks-mcp-name-routing" not in legacy
    assert "tasks-wire-resolvable" in select("extension")
    assert list(select("legacy", ("tasks-legacy-list",))) == ["tasks-legacy-list"]
    assert all(
        check.category == "dispatch"
        for check in select("extension", categories=("dispatch",)).values()
    )


def test_excerpts_are_bounded_even_when_deep() -> None:
    deep: object = "x"
    for _ in range(5000):
        deep = [deep]
    shown = excerpt_of(deep)
    assert isinstance(shown, dict) and shown["chars"] > 4000
    assert excerpt_of({"a": 1}) == {"a": 1}


def test_reports_carry_every_finding_and_are_safe() -> None:
    hostile = "\x1b[31mred\x1b[0m \u202e <b>&</b>"
    findings = (
        Finding(BY_ID["tasks-ttl-shape"], "fail", hostile),
        Finding(BY_ID["tasks-legacy-list"], "could-not-run", "no tool"),
        Finding(BY_ID["tasks-legacy-cancel-terminal"], "skip", "not declared"),
        Finding(BY_ID["tasks-wire-resolvable"], "pass", "ok"),
    )
    report = RunReport("legacy", {"name": "s", "version": "1"}, findings, ("t9",))
    document = report_json(report)
    assert document["outcome"] == "failed"
    assert document["summary"] == {
        "total": 4,
        "pass": 1,
        "fail": 1,
        "warn": 0,
        "skip": 1,
        "could-not-run": 1,
    }
    assert document["tasksLeftBehind"] == ["t9"]
    json.dumps(document)
    text = report_text(report)
    assert "\x1b" not in text and "\u202e" not in text
    assert "✗ fail" in text and "outcome: FAILED" in text
    tree = ElementTree.fromstring(report_junit(report))
    suite = tree.find("testsuite")
    assert suite is not None
    assert (
        suite.get("tests"),
        suite.get("failures"),
        suite.get("errors"),
        suite.get("skipped"),
    ) == ("4", "1", "1", "1")
    assert len(suite.findall("testcase")) == 4
