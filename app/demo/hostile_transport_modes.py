"""The hostile server's modes that break the framing, the connection or the process: garbage
frames, a dropped connection, a killed or orphaning process, HTTP refusals, a float id, lone
surrogates, a line too long, and silence."""

from __future__ import annotations

import json
import time
from email.utils import formatdate

from app.demo.hostile_core import HostileServer
from app.demo.hostile_frames import Exchange, Outgoing

RETRY_AFTER_S = 2
RETRY_AFTER_DATE_S = 3
MISBEHAVING_POLL = 2
"""Which `tasks/get` of a task the one-shot transport modes (drop, kill, 429, 503) hit."""
SURROGATE_ID = "\ud800"
"""Appended to every task id in the `surrogate-id` mode: a lone surrogate, never valid UTF-8."""
LONG_LINE_CHARS = 64 * 1024 * 1024 + 4096
"""Just over taskscope's stdio line limit (64 MiB)."""


GARBAGE_FRAMES: tuple[bytes, ...] = (
    b"this is not json",
    b"[1, 2, 3]",
    b'{"jsonrpc": "1.0", "id": 1, "result": {}}',
    b"{}",
    b'{"jsonrpc": "2.0"}',
    b"\x00\x01\x02\xff\xfe binary junk",
    b'{"jsonrpc": "2.0", "id": null, "result": {}}',
    b'{"jsonrpc": "2.0", "method": 42}',
    b'{"jsonrpc": "2.0", "id": [1], "method": "weird/id"}',
    b'{"jsonrpc": "2.0", "method": "notifications/unknown", "params": "not an object"}',
    b'{"jsonrpc": "2.0", "id": 0, "error": "not an object"}',
    b'{"truncated": ',
)


def garbage(exchange: Exchange) -> None:
    """Before every answer, frames that are not JSON, not JSON-RPC, or malformed JSON-RPC."""
    if exchange.kind == "reply":
        exchange.before.extend(Outgoing(raw=raw, route=exchange.route) for raw in GARBAGE_FRAMES)


def _misbehaving_poll(exchange: Exchange) -> bool:
    return exchange.is_task_get and exchange.poll == MISBEHAVING_POLL


def drop(exchange: Exchange) -> None:
    """The connection drops in the middle of the second poll (stdio: stdout is closed while the
    process lingers; HTTP: that one POST's socket is closed without an answer)."""
    if _misbehaving_poll(exchange):
        exchange.action = "drop"


def killed(exchange: Exchange) -> None:
    """The process kills itself (SIGKILL) instead of answering the second poll."""
    if _misbehaving_poll(exchange):
        exchange.action = "kill"


def rate_limit(exchange: Exchange) -> None:
    """HTTP 429 with `Retry-After: 2` (seconds) instead of the second poll's answer."""
    if _misbehaving_poll(exchange):
        _http_refusal(exchange, 429, str(RETRY_AFTER_S), b"Too Many Requests")


def unavailable(exchange: Exchange) -> None:
    """HTTP 503 with `Retry-After` as an HTTP date (3 s ahead) instead of the second answer."""
    if _misbehaving_poll(exchange):
        when = formatdate(time.time() + RETRY_AFTER_DATE_S, usegmt=True)
        _http_refusal(exchange, 503, when, b"Service Unavailable")


def _http_refusal(exchange: Exchange, status: int, retry_after: str, body: bytes) -> None:
    exchange.http_status = status
    exchange.headers.update({"Retry-After": retry_after, "Content-Type": "text/plain"})
    exchange.raw = body


def retry_after_inf(exchange: Exchange) -> None:
    """HTTP 429 with `Retry-After: inf` (not a number of seconds) instead of the second poll."""
    if _misbehaving_poll(exchange):
        _http_refusal(exchange, 429, "inf", b"Too Many Requests")


def float_id(exchange: Exchange) -> None:
    """The answer to the second poll gives its id as a float: 2.0 for request 2."""
    rpc_id = exchange.message.get("id")
    if _misbehaving_poll(exchange) and isinstance(rpc_id, int):
        exchange.message["id"] = float(rpc_id)


def surrogate_id(exchange: Exchange) -> None:
    """Every frame is written with JSON escapes (`\\ud800`), so the lone surrogate that
    `surrogate_id_setup` appends to task ids reaches the client as the code point itself."""
    exchange.raw = json.dumps(exchange.message).encode()


def surrogate_id_setup(server: HostileServer) -> None:
    server.id_decoration = SURROGATE_ID


def long_line(exchange: Exchange) -> None:
    """The answer to the second poll is one line longer than taskscope's stdio limit."""
    body = exchange.task_fields()
    if _misbehaving_poll(exchange) and body is not None:
        body["statusMessage"] = "x" * LONG_LINE_CHARS


def orphan(exchange: Exchange) -> None:
    """Instead of answering the second poll the server exits (code 3), leaving a forked child
    that keeps its stdin, stdout and stderr open."""
    if _misbehaving_poll(exchange):
        exchange.action = "orphan"


def silent(exchange: Exchange) -> None:
    """From the second poll on, `tasks/get` is never answered."""
    if exchange.is_task_get and exchange.poll >= MISBEHAVING_POLL:
        exchange.action = "silence"
