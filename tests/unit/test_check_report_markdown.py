"""The check report as Markdown: every check in one table, each finding that needs care explained
with its spec sentence and evidence, and server text shown as written (never links, HTML, table
cells or terminal escapes)."""

from __future__ import annotations

import re

from app.engine.check.catalog import BY_ID
from app.engine.check.model import Evidence, Finding, RunReport
from app.engine.check.report import report_markdown

HOSTILE = "[click](https://evil.example) <img src=x> | `tick` \x1b[31mred\x1b[0m \u202e"


def _report() -> RunReport:
    deep: object = "bottom"
    for _ in range(3000):
        deep = [deep]
    evidence = (
        Evidence("tasks/get", "in", "7`x", 12, {"result": {"status": HOSTILE}}, http_status=200),
        Evidence("tasks/get", "out", 7, 12),
        Evidence("notifications/tasks/status", "in", None, None, deep),
    )
    findings = (
        Finding(BY_ID["tasks-wire-resolvable"], "pass", "the legacy wire resolves"),
        Finding(BY_ID["tasks-ttl-shape"], "fail", HOSTILE, evidence),
        Finding(BY_ID["tasks-legacy-list"], "could-not-run", "no tool: pass --tool-name"),
        Finding(BY_ID["tasks-legacy-cancel-terminal"], "skip", "not declared"),
    )
    server = {
        "name": "demo|<b>",
        "version": "1",
        "transport": "stdio",
        "era": "legacy",
        "protocolVersion": "2025-11-25",
    }
    return RunReport("legacy", server, findings, ("task`9",), ("tools/list failed: " + HOSTILE,))


def test_every_check_is_a_row_and_the_outcome_heads_the_report() -> None:
    text = report_markdown(_report())
    assert text.startswith("# taskscope check: demo\\|\\<b\\> 1\n")
    assert "| Outcome | FAILED |" in text
    assert "| Checks | 1 pass, 1 fail, 0 warn, 1 skip, 1 could-not-run of 4 checks |" in text
    rows = [line for line in text.splitlines() if line.startswith("| ✓ ") or "| ✗ |" in line]
    assert len(rows) == 2
    for check_id in ("tasks-wire-resolvable", "tasks-ttl-shape", "tasks-legacy-list"):
        assert f"`{check_id}`" in text


def test_only_what_needs_care_is_explained_with_its_spec_and_evidence() -> None:
    text = report_markdown(_report())
    care = text.split("## What needs care", 1)[1]
    assert "### ✗ fail: `tasks-ttl-shape`" in care
    assert "### ? could-not-run: `tasks-legacy-list`" in care
    assert "tasks-legacy-cancel-terminal" not in care and "tasks-wire-resolvable" not in care
    assert "Spec: 2025-11-25 basic/utilities/tasks" in care
    assert "1. tasks/get, received, id 7\\`x, exchange 12, HTTP 200" in care
    assert "2. tasks/get, sent, id 7, exchange 12" in care
    assert "   ```json" in care  # each excerpt fenced, a nested one at any depth
    assert care.count('"bottom"') == 1
    assert "- Task `task'9` was left behind: it could not be cancelled." in text


def prose(text: str) -> str:
    """The report without its fenced JSON (which a viewer shows as code, not as markup)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def test_server_text_reads_as_written() -> None:
    text = report_markdown(_report())
    assert "\x1b" not in text and "\u202e" not in text
    outside = prose(text)
    assert "[click]" not in outside.replace("\\[click\\]", "")
    assert "<img" not in outside.replace("\\<img", "")
    assert "\\[click\\](https://evil.example) \\<img src=x\\> \\| \\`tick\\`" in text
    for line in text.splitlines():
        if line.startswith("| ✗ |"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 6  # five cells: the reason's is escaped
