"""How a value travels in an MCP HTTP header (SEP-2243): as is when it is plain printable ASCII
without surrounding whitespace, else as `=?base64?<UTF-8 bytes in Base64>?=`."""

from __future__ import annotations

import base64
import re

_HEADER_SAFE = re.compile(r"^[\x20-\x7E]*$")
_B64_SENTINEL = re.compile(r"^=\?base64\?.*\?=$")


def encode_header_value(value: str) -> str:
    """A header value as is when it is plain printable ASCII, else as `=?base64?…?=`; a lone
    surrogate (a server's task id `"\\ud800"`) has no UTF-8, so it travels as its WTF-8 bytes
    and the server, not an exception here, says whether it routes."""
    if _HEADER_SAFE.match(value) and value == value.strip() and not _B64_SENTINEL.match(value):
        return value
    encoded = base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii")
    return f"=?base64?{encoded}?="
