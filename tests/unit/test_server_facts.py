"""The server pane's facts (`app.view.server_facts`): what each row says, and that server text
arrives as one plain, bounded line."""

from __future__ import annotations

from app.engine.oauth.store import StoredStatus
from app.engine.record.recording import SessionInfo
from app.engine.tasks.contract import TasksCapabilities
from app.view.server_facts import VALUE_MAX_CHARS, server_facts

NOW = 1_000_000.0


def info(name: str = "demo", **kwargs: object) -> SessionInfo:
    values: dict[str, object] = {
        "server_name": name,
        "server_version": "1.2",
        "transport": "streamable-http",
        "protocol_version": "2026-07-28",
        "capabilities": TasksCapabilities("extension", tool_calls=True, cancel=True, update=True),
        "label": "http://127.0.0.1:9/mcp",
        "server_key": "http://127.0.0.1:9/mcp",
        "era": {"era": "modern", "reason": "the server answered server/discover"},
    }
    values.update(kwargs)
    return SessionInfo(**values)  # type: ignore[arg-type]


def rows_of(**kwargs: object) -> dict[str, str]:
    defaults: dict[str, object] = {
        "note": None,
        "problem": None,
        "sign_in": None,
        "signs_in": False,
        "now": NOW,
    }
    defaults.update(kwargs)
    session = defaults.pop("info", info())
    connection = defaults.pop("connection", "connected")
    facts = server_facts(session, connection, **defaults)  # type: ignore[arg-type]
    return dict(facts.rows)


def test_a_connected_server_names_its_wire_verbs_era_and_state() -> None:
    facts = server_facts(
        info(), "connected", note=None, problem=None, sign_in=None, signs_in=False, now=NOW
    )
    assert facts.title == "demo 1.2"
    rows = dict(facts.rows)
    assert rows["Reached at"] == "http://127.0.0.1:9/mcp (streamable-http)"
    assert rows["Protocol"].startswith("2026-07-28, ")
    assert rows["Protocol"].endswith("the server answered server/discover")
    assert rows["Tasks wire"].startswith("extension (")
    assert rows["Connection"] == "connected"
    assert "Sign-in" not in rows and "Last problem" not in rows


def test_not_connected_yet_shows_only_the_state() -> None:
    facts = server_facts(
        None, "connecting", note="attempt 2", problem=None, sign_in=None, signs_in=True, now=NOW
    )
    assert facts.title == "Server (not connected yet)"
    assert facts.rows == (("Connection", "connecting: attempt 2"),)


def test_the_sign_in_row_names_issuer_client_scopes_and_expiry_never_a_token() -> None:
    status = StoredStatus(
        "http://127.0.0.1:9/mcp", "http://127.0.0.1:9", "client-7", "tasks", NOW + 90, True, True
    )
    rows = rows_of(sign_in=status, signs_in=True)
    assert rows["Sign-in"] == (
        "at http://127.0.0.1:9, client client-7, scopes tasks, token expires in 1m30s, refreshable"
    )
    expired = StoredStatus("u", None, None, None, NOW - 1, True, False)
    assert rows_of(sign_in=expired, signs_in=True)["Sign-in"] == (
        "at an unnamed issuer, token expired"
    )
    assert rows_of(signs_in=True)["Sign-in"].startswith("none stored")
    assert "Credentials" not in rows_of(sign_in=status, signs_in=True)


def test_credentials_not_used_say_why() -> None:
    problem = "the credential folder /d/oauth can be written by others (mode 0777); make it "
    problem += "private: chmod 700 /d/oauth; credentials are kept for this run only"
    status = StoredStatus("u", None, None, None, None, False, False, problem)
    rows = rows_of(sign_in=status, signs_in=True)
    assert rows["Sign-in"].startswith("none stored")
    assert rows["Credentials"] == problem


def test_hostile_server_text_is_one_bounded_plain_line() -> None:
    hostile = "[bold red]evil[/]\x1b[31m\u202eright\nnext"
    facts = server_facts(
        info(hostile, server_version="[link=x]1[/link]"),
        "connected",
        note=None,
        problem="boom\r\n[b]again" + "x" * 5000,
        sign_in=None,
        signs_in=False,
        now=NOW,
    )
    assert "\x1b" not in facts.title and "\n" not in facts.title
    assert "[bold red]evil[/]" in facts.title and "[link=x]1[/link]" in facts.title
    rows = dict(facts.rows)
    assert "\n" not in rows["Last problem"] and "[b]again" in rows["Last problem"]
    assert "\u202e" not in facts.title and "<U+202E>" in facts.title
    assert all(len(value) <= VALUE_MAX_CHARS for value in (facts.title, *rows.values()))
    assert rows["Last problem"].endswith("…")


def test_several_servers_are_a_row_each_their_names_plain_and_bounded() -> None:
    from app.view.server_facts import LABEL_MAX_CHARS, several_servers_facts

    hostile = "evil\x1b[31m\u202e" + "n" * 200
    facts = several_servers_facts(
        [("alpha", info(), "connected"), (hostile, None, "cannot be used: no 'url'")]
    )
    assert facts.title == "2 servers"
    (alpha, value), (name, reason) = facts.rows
    assert alpha == "alpha" and value.startswith("connected · demo 1.2 · streamable-http")
    assert "extension wire (" in value
    assert "\x1b" not in name and "\u202e" not in name and len(name) <= LABEL_MAX_CHARS
    assert reason == "cannot be used: no 'url'"


def test_copied_json_of_one_of_several_servers_speaks_the_servers_ids() -> None:
    """The row key and the questions' keys are the inspector's: the JSON says what the server
    said, and which server."""
    from dataclasses import replace

    from app.engine.tasks.events import TaskEvent
    from app.engine.tasks.models import InputKind, InputRequest, Task
    from app.view.export import watched_json
    from app.view.watched import apply_event

    question = InputRequest(
        key="alpha · q1",
        kind=InputKind.FORM,
        method="elicitation/create",
        params={},
        wire="extension",
        task_id="alpha · t-1",
    )
    task = Task(
        task_id="alpha · t-1",
        wire="extension",
        status="input_required",
        input_requests=(question,),
        raw={"taskId": "t-1"},
    )
    created = TaskEvent("created", "alpha · t-1", task, NOW, "create")
    watched = apply_event(None, replace(created, server="alpha"))
    document = watched_json(watched)
    assert document["taskId"] == "t-1" and document["server"] == "alpha"
    assert document["inputRequests"][0]["key"] == "q1"
    assert document["inputRequests"][0]["taskId"] == "t-1"
    assert document["raw"] == {"taskId": "t-1"}


def test_the_wire_row_names_a_declaration_assumed_by_wire_legacy() -> None:
    assumed = TasksCapabilities(
        "legacy", tool_calls=True, list=True, assumed=("tasks.requests.tools.call",)
    )
    rows = rows_of(info=info(capabilities=assumed, protocol_version="2025-11-25"))
    assert rows["Tasks wire"] == (
        "legacy (call list; undeclared tasks.requests.tools.call assumed by --wire)"
    )
