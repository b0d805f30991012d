"""The hostile server's misbehaviour modes: each one a function that perturbs one thing.

A mode sees every frame the core is about to send (`Exchange`) and may change its content, add
frames around it, pick an HTTP status, or turn it into silence, a dropped connection or a killed
process. Modes are switched on per run with `--mode NAME` (several may be combined).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.demo.hostile_bodies import TERMINAL, question
from app.demo.hostile_core import HostileServer
from app.demo.hostile_frames import Exchange, Outgoing
from app.demo.hostile_transport_modes import (
    drop,
    float_id,
    garbage,
    killed,
    long_line,
    orphan,
    rate_limit,
    retry_after_inf,
    silent,
    surrogate_id,
    surrogate_id_setup,
    unavailable,
)

ESCAPES = (
    "\x1b[31mred\x1b[0m \x1b]0;pwned title\x07 \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\"
    " \x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[H"
)
MARKUP = "[bold red]loud[/bold red] [link=https://evil.example]click[/link]"
CONTROLS = "bell\x07 back\x08 nul\x00 cr\r del\x7f csi\x9b31m"
BIDI = "\u202egnirts desrever\u202c \u2066isolate\u2069 zero\u200bwidth"
SMUGGLED = "tags\U000e0001\U000e0074\U000e0061\U000e0067\U000e007f vs\U000e0100 soft\u00adhyphen"
"""Invisible text ("ASCII smuggling"): a language tag, the tag letters "tag", the cancel tag, a
supplementary variation selector and a soft hyphen."""
HOSTILE_TEXT = f" {ESCAPES} {MARKUP} {CONTROLS} {BIDI} {SMUGGLED}"
"""Appended to every human-readable string the server sends in the `escapes` mode."""
HOSTILE_ID = "\x1b[7m[b]\u202e"
"""Appended to every task id in the `escapes` mode."""

HUGE_MESSAGE_CHARS = 1_000_000
DEEP_LEVELS = 1000
INVALID_UTF8 = b'"bad \xff\xfe bytes \xc3\x28 caf\xc3\xa9 \xed\xa0\x80 lone \\ud800 end"'
"""A JSON string literal with invalid UTF-8 bytes and a JSON-escaped lone surrogate."""
JS_MAX_SAFE_INTEGER = 9_007_199_254_740_991
HUGE_TTL_FLOAT = 1e20
HUGE_POLL_INTERVAL = 10**400
"""A 401-digit integer: Python parses it, but it is too large to become a float."""
HUGE_INTEGER_DIGITS = 5001
"""Longer than Python's int-string limit (4,300 digits), so `json.loads` refuses it."""
_TEXT_KEYS = frozenset(
    {"name", "title", "description", "statusMessage", "message", "text", "summary", "instructions"}
)
_SPLICE_MARK = "\u2063hostile-splice\u2063"


def huge_text() -> str:
    """About 1 MB of text in lines of 100 characters, from BEGIN to END."""
    line = "0123456789" * 9 + "abcdefghi\n"
    body = line * (HUGE_MESSAGE_CHARS // len(line))
    return "BEGIN " + body + " END"


def deep_json(levels: int = DEEP_LEVELS) -> bytes:
    """A JSON object nested `levels` deep, built as text (json.dumps would hit recursion)."""
    return b'{"nested":' * levels + b'"bottom"' + b"}" * levels


# -- text ------------------------------------------------------------------------------------------


def _decorate(value: Any, key: str | None = None) -> Any:
    if isinstance(value, str):
        return value + HOSTILE_TEXT if key in _TEXT_KEYS else value
    if isinstance(value, dict):
        return {k: _decorate(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_decorate(item, key) for item in value]
    return value


def escapes(exchange: Exchange) -> None:
    """ANSI and OSC escapes, Rich markup, control and bidi characters in every readable string:
    server info, tool names and descriptions, status messages, results, questions, schema titles,
    error messages, and (see `escapes_setup`) task ids."""
    for part in ("result", "params", "error"):
        if part in exchange.message:
            exchange.message[part] = _decorate(exchange.message[part])


def escapes_setup(server: HostileServer) -> None:
    server.id_decoration = HOSTILE_ID


def huge_message(exchange: Exchange) -> None:
    """A 1 MB status message on every answer about an unfinished task."""
    body = exchange.task_fields()
    if body is not None and body.get("status") not in TERMINAL and "statusMessage" in body:
        body["statusMessage"] = huge_text()


def _structured_holder(exchange: Exchange) -> dict[str, Any] | None:
    """The tool result of a `tasks/get` (inline) or `tasks/result` answer, if it has one."""
    result = exchange.result
    if result is None or exchange.method not in ("tasks/get", "tasks/result"):
        return None
    inline = result.get("result")
    holder: dict[str, Any] = inline if isinstance(inline, dict) else result
    return holder if "structuredContent" in holder else None


def deep_result(exchange: Exchange) -> None:
    """The tool result's structured content nested 1,000 levels deep (inline or tasks/result)."""
    holder = _structured_holder(exchange)
    if holder is not None:
        holder["structuredContent"] = _SPLICE_MARK
        exchange.splices[_SPLICE_MARK] = deep_json()


def huge_integer(exchange: Exchange) -> None:
    """The tool result's structured content holds an integer of 5,001 digits (inline or
    tasks/result), and the rest of the result is ordinary."""
    holder = _structured_holder(exchange)
    if holder is not None:
        holder["structuredContent"] = {"summary": "a big count", "count": _SPLICE_MARK}
        exchange.splices[_SPLICE_MARK] = b"9" * HUGE_INTEGER_DIGITS


def invalid_utf8(exchange: Exchange) -> None:
    """Invalid UTF-8 bytes and a lone surrogate in the status message of unfinished tasks."""
    body = exchange.task_fields()
    if body is not None and body.get("status") not in TERMINAL and "statusMessage" in body:
        body["statusMessage"] = _SPLICE_MARK
        exchange.splices[_SPLICE_MARK] = INVALID_UTF8


# -- task fields -----------------------------------------------------------------------------------

WRONG_TYPES: tuple[tuple[str, Any], ...] = (
    ("taskId", 42),
    ("status", 3),
    ("statusMessage", {"text": "not a string"}),
    ("createdAt", 1_700_000_000),
    ("lastUpdatedAt", ["yesterday"]),
    ("ttl", "forever"),
    ("pollInterval", "soon"),
    ("result", "done, as a string"),
    ("error", 7),
    ("inputRequests", ["not", "a", "map"]),
    ("(result)", "the whole result is a string"),
)
"""What `wrong-types` sends on polls 1, 2, …: one task field (legacy key names; the extension
uses `ttlMs` and `pollIntervalMs`) with a wrong type; `(result)` replaces the whole result."""


def wrong_types(exchange: Exchange) -> None:
    """Poll N carries the Nth wrong-typed field of `WRONG_TYPES`; later polls are good."""
    if not exchange.is_task_get or exchange.poll > len(WRONG_TYPES):
        return
    field_name, value = WRONG_TYPES[exchange.poll - 1]
    if field_name == "(result)":
        exchange.message["result"] = value
        return
    if exchange.server.wire == "extension":
        field_name = {"ttl": "ttlMs", "pollInterval": "pollIntervalMs"}.get(field_name, field_name)
    body = exchange.result
    assert body is not None
    body[field_name] = value


def wrong_types_setup(server: HostileServer) -> None:
    server.work_polls = len(WRONG_TYPES) + 2


def _set_task_number(exchange: Exchange, keys: tuple[str, str], value: Any) -> None:
    """Set whichever of `keys` (legacy name, extension name) the task object in the frame has."""
    body = exchange.task_fields()
    if body is None:
        return
    for key in keys:
        if key in body:
            body[key] = value


def ttl_overflow(exchange: Exchange) -> None:
    """The TTL is JavaScript's `Number.MAX_SAFE_INTEGER` ms when the task is created, and 1e20
    (a float) on every poll: both far past any date a clock can show."""
    value = JS_MAX_SAFE_INTEGER if exchange.method == "tools/call" else HUGE_TTL_FLOAT
    _set_task_number(exchange, ("ttl", "ttlMs"), value)


def poll_interval_overflow(exchange: Exchange) -> None:
    """Every task object suggests polling every 10**400 ms (a 401-digit integer)."""
    _set_task_number(exchange, ("pollInterval", "pollIntervalMs"), HUGE_POLL_INTERVAL)


def unknown_status(exchange: Exchange) -> None:
    """The first poll answers status "paused", which no wire defines."""
    if exchange.is_task_get and exchange.poll == 1 and exchange.result is not None:
        exchange.result["status"] = "paused"


def illegal_transition(exchange: Exchange) -> None:
    """Once completed, the task claims to be working again (completed → working): on later
    polls, and (legacy) in a status notification sent before the `tasks/result` answer."""
    task = exchange.task
    if task is None or task.status != "completed" or exchange.kind != "reply":
        return
    server = exchange.server
    regressed = {**server.detailed(task), "status": "working", "statusMessage": "back to work"}
    for key in ("result", "resultType"):
        regressed.pop(key, None)
    if exchange.method == "tasks/get" and task.polls > server.work_polls and exchange.result:
        answer = dict(regressed)
        if server.wire == "extension":
            answer["resultType"] = "complete"
        exchange.message["result"] = answer
    if exchange.method == "tasks/result" and server.wire == "legacy":
        notification = {
            "jsonrpc": "2.0",
            "method": "notifications/tasks/status",
            "params": regressed,
        }
        exchange.before.append(Outgoing(message=notification, route=exchange.route))


def task_id_mismatch(exchange: Exchange) -> None:
    """The first poll answers about another task id than the one asked for."""
    if exchange.is_task_get and exchange.poll == 1 and exchange.result is not None:
        exchange.result["taskId"] = "task-999"


# -- input keys ------------------------------------------------------------------------------------


def input_keys(exchange: Exchange) -> None:
    """Input keys that change on every poll and repeat: each extension poll lists every key issued
    so far plus a new one, and the newest twice in the raw JSON; legacy questions reuse one
    JSON-RPC id for two different requests, and every `tasks/result` asks under a new id."""
    server, task = exchange.server, exchange.task
    if task is None or task.tool != "ask":
        return
    if server.wire == "extension":
        if not exchange.is_task_get or exchange.result is None:
            return
        if task.status != "input_required":
            return
        task.question_keys.append(f"q-{len(task.question_keys) + 1}")
        asked = question()
        duplicate = {**asked, "params": {**asked["params"], "message": "Duplicate key?"}}
        entries = [(key, asked) for key in task.question_keys[:-1]]
        entries += [(task.question_keys[-1], duplicate), (task.question_keys[-1], asked)]
        text = ", ".join(f"{json.dumps(key)}: {json.dumps(value)}" for key, value in entries)
        exchange.result["inputRequests"] = _SPLICE_MARK
        exchange.splices[_SPLICE_MARK] = ("{" + text + "}").encode()
        return
    if exchange.kind == "push" and exchange.method == "elicitation/create":
        twin = json.loads(json.dumps(exchange.message))
        twin["params"]["message"] = "A different question under the same id"
        exchange.after.append(Outgoing(message=twin, route=exchange.route))


# -- noise -----------------------------------------------------------------------------------------

_stray_ids = itertools.count(900_000)


def unknown_ids(exchange: Exchange) -> None:
    """Before every answer, responses to request ids the client never sent."""
    if exchange.kind != "reply":
        return
    stray_result = {"jsonrpc": "2.0", "id": next(_stray_ids), "result": {"stray": True}}
    stray_error = {"jsonrpc": "2.0", "id": "never-sent", "error": {"code": -1, "message": "?"}}
    exchange.before.extend(
        Outgoing(message=message, route=exchange.route) for message in (stray_result, stray_error)
    )


@dataclass(frozen=True)
class Mode:
    """A misbehaviour: its perturbation, an optional set-up, and the transports it applies to."""

    perturb: Callable[[Exchange], None]
    setup: Callable[[HostileServer], None] | None = None
    http_only: bool = False
    stdio_only: bool = False


MODES: dict[str, Mode] = {
    "escapes": Mode(escapes, escapes_setup),
    "huge-message": Mode(huge_message),
    "deep-result": Mode(deep_result),
    "invalid-utf8": Mode(invalid_utf8),
    "wrong-types": Mode(wrong_types, wrong_types_setup),
    "unknown-status": Mode(unknown_status),
    "illegal-transition": Mode(illegal_transition),
    "task-id-mismatch": Mode(task_id_mismatch),
    "input-keys": Mode(input_keys),
    "unknown-ids": Mode(unknown_ids),
    "garbage": Mode(garbage),
    "drop": Mode(drop),
    "killed": Mode(killed),
    "rate-limit": Mode(rate_limit, http_only=True),
    "unavailable": Mode(unavailable, http_only=True),
    "silent": Mode(silent),
    "huge-integer": Mode(huge_integer),
    "ttl-overflow": Mode(ttl_overflow),
    "poll-interval-overflow": Mode(poll_interval_overflow),
    "retry-after-inf": Mode(retry_after_inf, http_only=True),
    "float-id": Mode(float_id),
    "surrogate-id": Mode(surrogate_id, surrogate_id_setup),
    "long-line": Mode(long_line, stdio_only=True),
    "orphan": Mode(orphan, stdio_only=True),
}
