"""Hostile files a user may be handed: recordings and MCP client config files that break naive
JSON readers (nesting past the recursion limit, numbers past a float or the int-string limit, NaN),
written next to the fixed legacy recording so the rest of the file is known."""

from __future__ import annotations

import json
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"
RECORDING = GOLDEN / "deploy-release-legacy.ndjson"
TASK_ID = "384676b9-5fea-492c-9a39-00cac5acf081"
"""The task the fixed legacy recording created."""
DEEP_LEVELS = 100_000
LONG_DIGITS = "9" * 5_000
"""An integer literal past Python's int-string limit (4,300 digits)."""
HUGE_INTEGER = "1" + "0" * 400
"""10^400: an integer `float()` cannot hold."""


def with_raw(line: dict[str, object], raw: str) -> str:
    """`line` as JSON text with its `"RAW"` value written as the literal `raw` (no encoder writes
    NaN, 10^400 or 5,000 digits on purpose)."""
    return json.dumps(line).replace('"RAW"', raw)


def _event(at: str) -> str:
    event = {"kind": "transition", "taskId": TASK_ID, "source": "poll"}
    return with_raw({"type": "event", "at": "RAW", "event": event}, at)


def _frame(latency: str) -> str:
    frame = {"direction": "in", "latencyMs": "RAW"}
    return with_raw({"type": "frame", "at": 1796004846.5, "frame": frame}, latency)


BAD_RECORDING_LINES: dict[str, tuple[str, str]] = {
    "a line nested 100,000 deep": ("[" * DEEP_LEVELS + "]" * DEEP_LEVELS, "not a JSON object"),
    "an event nested 100,000 deep": (
        '{"type": "event", "at": 1796004846.5, "event": '
        + "[" * DEEP_LEVELS
        + "]" * DEEP_LEVELS
        + "}",
        "`event` is not an object",
    ),
    "a type nested 100,000 deep": (
        '{"type": ' + "[" * DEEP_LEVELS + "]" * DEEP_LEVELS + ', "at": 1796004846.5}',
        "unknown line type a list",
    ),
    "`at` of 10^400": (_event(HUGE_INTEGER), "`at`"),
    "`at` of 1e999": (_event("1e999"), "`at`"),
    "`at` of NaN": (_event("NaN"), "`at`"),
    "`at` of 5,000 digits": (_event(LONG_DIGITS), "`at`"),
    "`at` past the year 9999": (_event("1e300"), "`at`"),
    "`latencyMs` of 10^400": (_frame(HUGE_INTEGER), "`latencyMs`"),
    "`latencyMs` of 1e999": (_frame("1e999"), "`latencyMs`"),
    "`latencyMs` of NaN": (_frame("NaN"), "`latencyMs`"),
    "a next poll past the year 9999": (
        '{"type": "event", "at": 1796004846.5, "event": {"kind": "polled", "taskId": "'
        + TASK_ID
        + '", "source": "poll", "nextPoll": {"delay": 1e300, "term": "server"}}}',
        "`nextPoll.delay`",
    ),
}
"""Each bad line: what it is, then (its text, a word of the reason the reader gives)."""
FIRST_BAD_LINE = 6
"""The line number of the first bad line in `hostile_recording` (after the golden's first five)."""


def hostile_recording(folder: Path) -> Path:
    """The fixed legacy recording with every `BAD_RECORDING_LINES` line after its fifth, one per
    line from `FIRST_BAD_LINE` on, in that order."""
    lines = RECORDING.read_text(encoding="utf-8").splitlines()
    bad = [text for text, _ in BAD_RECORDING_LINES.values()]
    path = folder / "hostile.ndjson"
    path.write_text("\n".join([*lines[:5], *bad, *lines[5:]]) + "\n", encoding="utf-8")
    return path


HOSTILE_CONFIGS: dict[str, str | bytes] = {
    "nested 100,000 deep": '{"mcpServers": {"deep": {"command": "x", "args": '
    + "[" * DEEP_LEVELS
    + "]" * DEEP_LEVELS
    + "}}}",
    "a document nested 100,000 deep": "[" * DEEP_LEVELS + "]" * DEEP_LEVELS,
    "a 5,000-digit integer": '{"mcpServers": {"deep": {"command": "x", "args": ['
    + LONG_DIGITS
    + "]}}}",
    "not UTF-8": b'{"mcpServers": {"deep": {"command": "\xff\xfe"}}}',
    "larger than any config": '{"mcpServers": {"deep": {"command": "x"}}, "pad": "'
    + "x" * (4 * 1024 * 1024)
    + '"}',
}
"""MCP client config files no client would write, each naming one server `deep`."""


def hostile_config(folder: Path, name: str) -> Path:
    """The `HOSTILE_CONFIGS` file `name`, written in `folder`."""
    path = folder / "mcp.json"
    text = HOSTILE_CONFIGS[name]
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path
