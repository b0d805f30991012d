"""Every bound on how much of a server's output (live, or in a recording) taskscope buffers, in
one place.

The defaults fit real servers with room to spare; each can be set for a run with an environment
variable (sizes take a K, M or G suffix, powers of 1,024: `TASKSCOPE_MAX_BODY=256M`), and a value
that is not a positive size is a usage error before anything connects.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache

MAX_HEAD_BYTES = 64 * 1024
"""Bytes of a response head (status line, header fields and any 1xx heads before it) accepted:
real servers send 1-2 KB, cookies and CSP included; nginx's default cap is 8 KB per line."""
MAX_HEADER_FIELDS = 200
"""Header fields of one response head accepted (interim 1xx heads count towards it): servers
send 5-30; 200 leaves room for proxies and CDNs while keeping a flood of repeats cheap."""
MAX_BODY_BYTES = 64 * 1024 * 1024
"""Bytes of one body read whole (a JSON answer), after decompression: MCP results that embed
files or images in Base64 reach a few MB; 64 MiB keeps the parsed answer's memory in the low
hundreds of MB. SSE streams are not bounded as a whole, each event is."""
MAX_EVENT_CHARS = 16 * 1024 * 1024
"""Characters one SSE event may hold (its lines, data and the line still arriving): one event
carries one JSON-RPC message, and decoding it keeps a few copies alive (pieces, joined text,
data lines, the event), so 16 MiB here costs about what a 64 MiB JSON body does."""
MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest stdout (and stderr) line read from a stdio server, in bytes."""
MAX_LISTING_CHARS = 64 * 1024 * 1024
"""Characters of all the pages of one list (`tools/list`, `resources/list`, `tasks/list`, …)
together, as received: a listing is kept whole until it is shown, and as Python objects it
weighs about two and a half times its text (60 MB of pages printed peaked at 217 MiB RSS)."""
MAX_LISTING_PAGES = 1000
"""Pages of one list: a real server's catalogue or task list takes a few dozen; a server that
pages forever in small pages stops here."""
MAX_RECORDING_BYTES = 512 * 1024 * 1024
"""Bytes of a recording read by `replay` and `tasks export`: it is read whole, and its entries take
about 4.4 times the file's size in memory (measured on a 50 MiB file), so 512 MiB costs some
2.2 GiB."""

ENVIRONMENT = {
    "head_bytes": "TASKSCOPE_MAX_HEAD",
    "header_fields": "TASKSCOPE_MAX_HEADERS",
    "body_bytes": "TASKSCOPE_MAX_BODY",
    "event_chars": "TASKSCOPE_MAX_SSE_EVENT",
    "line_bytes": "TASKSCOPE_MAX_LINE",
    "listing_chars": "TASKSCOPE_MAX_LISTING",
    "listing_pages": "TASKSCOPE_MAX_LISTING_PAGES",
    "recording_bytes": "TASKSCOPE_MAX_RECORDING",
}
"""The environment variable that sets each bound."""
_SIZE = re.compile(r"^\s*([0-9]{1,15})\s*([KMG]?)i?B?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a server's output the client buffers before it gives up on the server, and
    of a recording before it is refused."""

    head_bytes: int = MAX_HEAD_BYTES
    header_fields: int = MAX_HEADER_FIELDS
    body_bytes: int = MAX_BODY_BYTES
    event_chars: int = MAX_EVENT_CHARS
    line_bytes: int = MAX_LINE_BYTES
    listing_chars: int = MAX_LISTING_CHARS
    listing_pages: int = MAX_LISTING_PAGES
    recording_bytes: int = MAX_RECORDING_BYTES


class LimitsError(ValueError):
    """An environment variable names a bound that is not a positive size."""


def from_environment(environ: Mapping[str, str]) -> Limits:
    """The default bounds with those `environ` sets; raises LimitsError naming a bad one."""
    chosen: dict[str, int] = {}
    for field in fields(Limits):
        name = ENVIRONMENT[field.name]
        text = environ.get(name)
        if text is None or not text.strip():
            continue
        match = _SIZE.match(text)
        value = int(match[1]) * _UNITS[match[2].upper()] if match else 0
        if value <= 0:
            raise LimitsError(
                f"{name}={text[:40]!r} is not a positive size (a number, with K, M or G)"
            )
        chosen[field.name] = value
    return replace(Limits(), **chosen)


@cache
def configured() -> Limits:
    """The bounds of this process (the defaults, with this process's environment applied)."""
    return from_environment(os.environ)
