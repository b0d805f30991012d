"""`taskscope check` against every independent server, over each of its transports, with the tool
the catalogue names for it: the outcome and the verdict per check are the golden table's
(tests/interop/golden/check_verdicts.json), whose every verdict but pass says why, as the frames
showed it. A change in what check says about a real server is then a deliberate one.

Only outcomes and verdicts are compared, never reason text (it names task ids and timings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.check.catalog import BY_ID
from app.engine.check.model import VERDICTS
from tests.interop.catalog import SERVERS, Server, Transport, case_id, check_call
from tests.interop.test_cli import call_args, reach
from tests.support.cli_helpers import run_cli

pytestmark = pytest.mark.timeout(300)

GOLDEN = Path(__file__).resolve().parent / "golden" / "check_verdicts.json"
CHECK_TIMEOUT_S = 240
EXIT_CODES = {"passed": 0, "failed": 1, "incomplete": 3}
ALL = [(server, transport) for server in SERVERS for transport in server.transports]


def golden_servers() -> dict[str, dict[str, Any]]:
    servers: dict[str, dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))["servers"]
    return servers


def expected(name: str, transport: Transport) -> tuple[str, dict[str, str]]:
    """The golden outcome and verdicts of one server over one transport (its transport's entry
    overriding the HTTP ones)."""
    entry = golden_servers()[name]
    over = entry.get(transport, {})
    return over.get("outcome", entry["outcome"]), {**entry["verdicts"], **over.get("verdicts", {})}


def test_the_golden_table_covers_every_server_and_explains_every_non_pass() -> None:
    servers = golden_servers()
    assert set(servers) == {server.name for server in SERVERS}
    for name, entry in servers.items():
        for part in (entry, *(entry.get(t, {}) for t in ("http", "stdio"))):
            verdicts = part.get("verdicts", {})
            assert set(verdicts) <= set(BY_ID), (name, set(verdicts) - set(BY_ID))
            assert set(verdicts.values()) <= set(VERDICTS), name
            explained = set(part.get("why", {}))
            unexplained = {cid for cid, v in verdicts.items() if v != "pass"} - explained
            assert not unexplained, (name, unexplained)


@pytest.mark.parametrize("case", ALL, ids=case_id)
def test_check_says_what_the_golden_table_says(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, transport = case
    call = check_call(server)
    assert call is not None
    outcome, verdicts = expected(server.name, transport)
    run = run_cli(
        "check",
        *reach(case, server_url),
        *call_args(call, tmp_path),
        "--format",
        "json",
        timeout=CHECK_TIMEOUT_S,
    )
    assert "Traceback" not in run.stderr, run.stderr
    document = run.document
    found = {check["id"]: check["verdict"] for check in document["checks"]}
    differing = {
        cid: {"golden": verdicts.get(cid), "now": found.get(cid)}
        for cid in set(found) | set(verdicts)
        if found.get(cid) != verdicts.get(cid)
    }
    reasons = {c["id"]: c["reason"] for c in document["checks"] if c["id"] in differing}
    assert not differing, (
        "check's verdicts differ from tests/interop/golden/check_verdicts.json (a new check "
        "needs its verdict, and a why for a non-pass, there)",
        differing,
        reasons,
    )
    assert document["outcome"] == outcome, document.get("incompleteReason")
    assert run.code == EXIT_CODES[outcome], run.stderr
