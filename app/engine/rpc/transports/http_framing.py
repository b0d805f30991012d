"""HTTP/1.1 message framing for the lean client: request bytes out, response head and body rules in.

Hand-written because `h11`'s event machinery and per-header validation dominated the client's CPU
per request, and a client that only sends its own requests and reads responses needs a small,
strict subset: status line, header fields, and which body framing applies (Content-Length,
chunked, none, or until the server closes) per RFC 9112 section 6.3. Everything a server sends is
bounded (`limits.Limits`) and a gzip or deflate body is decoded in bounded pieces.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator, Mapping
from typing import Literal

BodyKind = Literal["none", "length", "chunked", "close"]

MAX_CONTENT_LENGTH_DIGITS = 18
"""Digits of a Content-Length accepted: up to an exabyte; more is not a length but an attack
(Python refuses to parse integers of over 4,300 digits)."""
DECODED_PIECE = 64 * 1024
"""The most one step of gzip/deflate decoding produces, so a zip bomb never expands at once."""

_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+")
_BAD_VALUE = re.compile(rb"[\x00\r\n]")
_STATUS = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: ([^\r\n]*))?\r?\n")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
_GZIP_WBITS = 16 + zlib.MAX_WBITS


class FramingError(ValueError):
    """Bytes that are not a well-formed HTTP/1.1 message (or a request we refuse to write)."""


def encode_request(
    method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes | None
) -> bytes:
    """The request's bytes; header names must be tokens and values free of CR, LF and NUL."""
    lines = [method.encode("ascii"), b" ", target, b" HTTP/1.1\r\n"]
    for name, value in headers:
        if not _TOKEN.fullmatch(name):
            raise FramingError(f"illegal header name {name!r}")
        if _BAD_VALUE.search(value):
            raise FramingError(f"illegal value for header {name.decode('ascii')!r}")
        lines += (name, b": ", value, b"\r\n")
    lines.append(b"\r\n")
    if body:
        lines.append(body)
    return b"".join(lines)


def sendable_header_value(value: str) -> bool:
    """Whether `value` can be a header field's value as this client writes it: UTF-8 text
    without CR, LF or NUL (`encode_request` refuses those)."""
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return _BAD_VALUE.search(encoded) is None


def parse_status_line(line: bytes) -> tuple[int, int, str]:
    """(minor version, status code, reason) of `HTTP/1.x NNN reason`; NNN within 100-599."""
    match = _STATUS.fullmatch(line)
    if match is None:
        raise FramingError(f"bad status line {line[:80]!r}")
    minor, status, reason = match.groups()
    code = int(status)
    if not 100 <= code <= 599:
        raise FramingError(f"status {code} in {line[:80]!r} is not an HTTP status (100-599)")
    return int(minor), code, (reason or b"").decode("latin-1")


def parse_header_line(line: bytes) -> tuple[str, str]:
    """(lower-case name, value without surrounding whitespace) of one header field line."""
    name, colon, value = line.partition(b":")
    if not colon or not _TOKEN.fullmatch(name):
        raise FramingError(f"bad header line {line[:80]!r}")
    return name.decode("ascii").lower(), header_text(value.strip(b" \t\r\n"))


def header_text(value: bytes) -> str:
    """A header value as text: ASCII or UTF-8 when it is that, else Latin-1 (never fails)."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


def body_framing(
    minor: int, status: int, method: str, headers: Mapping[str, str]
) -> tuple[BodyKind, int, bool]:
    """(how the body is delimited, its length when known, whether the connection stays open)."""
    connection = headers.get("connection")
    keep_alive = minor == 1 and (connection is None or "close" not in _tokens(connection))
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return "none", 0, keep_alive
    encoding = headers.get("transfer-encoding")
    if encoding is not None:
        if _tokens(encoding)[-1:] == ["chunked"]:
            return "chunked", 0, keep_alive
        return "close", 0, False
    length = headers.get("content-length")
    if length is not None:
        size = content_length(length)
        return ("length" if size else "none"), size, keep_alive
    return "close", 0, False


def content_length(value: str) -> int:
    """A Content-Length: ASCII digits, not too many, repeats (joined by ", ") all identical."""
    values = {part.strip() for part in value.split(",")}
    if len(values) != 1:
        raise FramingError(f"conflicting Content-Length values {value[:80]!r}")
    digits = values.pop()
    if not (digits.isascii() and digits.isdigit()):
        raise FramingError(f"bad Content-Length {digits[:80]!r}: not a number of bytes")
    if len(digits) > MAX_CONTENT_LENGTH_DIGITS:
        raise FramingError(
            f"bad Content-Length {digits[:20]}… of {len(digits):,} digits "
            f"(at most {MAX_CONTENT_LENGTH_DIGITS} are accepted)"
        )
    return int(digits)


def chunk_size(line: bytes) -> int:
    """The size of a chunk from its `hex[;extensions]` line (at most 16 hex digits)."""
    size = line.partition(b";")[0].strip(b" \t\r\n")
    if not _HEX.fullmatch(size):
        raise FramingError(f"bad chunk size line {line[:80]!r}")
    return int(size, 16)


def content_decoder(encoding: str | None) -> ContentDecoder | None:
    """The decoder a body's Content-Encoding needs: None for none or identity, else gzip or
    deflate (what the client asks for); anything else cannot be read."""
    if encoding is None:
        return None
    codings = [coding for coding in _tokens(encoding) if coding != "identity"]
    if not codings:
        return None
    if len(codings) > 1 or codings[0] not in ("gzip", "x-gzip", "deflate"):
        raise FramingError(
            f"the body is encoded {encoding[:80]!r}; taskscope asks only for gzip or deflate"
        )
    return ContentDecoder(codings[0])


class ContentDecoder:
    """Undoes gzip or deflate in pieces of at most `DECODED_PIECE` bytes, so a small compressed
    body never expands in memory at once; deflate is taken with or without its zlib wrapper."""

    __slots__ = ("_coding", "_held", "_started", "_zlib")

    def __init__(self, coding: str) -> None:
        self._coding = "deflate" if coding == "deflate" else "gzip"
        self._zlib = zlib.decompressobj(_GZIP_WBITS) if self._coding == "gzip" else None
        self._held = b""
        self._started = False

    def decode(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes `data` completes, piece by piece."""
        decompressor = self._zlib
        if decompressor is None:  # deflate: the first two bytes tell zlib-wrapped from raw
            data = self._held + data
            if len(data) < 2:
                self._held = data
                return
            wrapped = data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            decompressor = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
            self._zlib, self._held = decompressor, b""
        self._started = self._started or bool(data)
        try:
            while True:
                piece = decompressor.decompress(data, DECODED_PIECE)
                if piece:
                    yield piece
                data = decompressor.unconsumed_tail
                if not data and len(piece) < DECODED_PIECE:
                    return
        except zlib.error as exc:
            raise FramingError(f"the {self._coding} body is corrupt ({exc})") from None

    def finish(self) -> None:
        """At the end of the body: a compressed stream that stopped short is an error."""
        if self._held or (self._started and self._zlib is not None and not self._zlib.eof):
            raise FramingError(f"the {self._coding} body ends before its compressed stream does")


def _tokens(value: str) -> list[str]:
    return [token.strip().lower() for token in value.split(",") if token.strip()]
