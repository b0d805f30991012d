"""Incremental Server-Sent Events parsing: body bytes in, complete events out, as they arrive.

Follows the WHATWG event-stream rules as `httpx_sse` applies them: lines end at CRLF, CR or LF
(also when split across reads), `:` starts a comment, `data` lines join with newlines, one space
after the colon is dropped, and an event is dispatched only at a blank line. A byte order mark
at the start of a line is dropped (the spec's one at the start of the stream included). What one
event may hold is bounded (`limits.MAX_EVENT_CHARS`, or `TASKSCOPE_MAX_SSE_EVENT`): a stream
never grows the client's memory past it.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from app.engine.safety.limits import configured


class EventTooLarge(ValueError):
    """An SSE event (or a line of it) went over the decoder's limit; `events` are those the same
    read completed before it, still to be handled."""

    def __init__(self, message: str, events: list[SseEvent]) -> None:
        super().__init__(message)
        self.events = events


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One dispatched event: its name ("" when unnamed), data, id and retry hint."""

    event: str
    data: str
    id: str
    retry: int | None


class SseDecoder:
    """Feed body bytes with `feed`, then call `close` at the end of the body; both return events
    and raise `EventTooLarge` once an event holds more than `max_event_chars`."""

    def __init__(self, max_event_chars: int | None = None) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._limit = configured().event_chars if max_event_chars is None else max_event_chars
        self._pending: list[str] = []
        self._pending_size = 0
        self._event = ""
        self._data: list[str] = []
        self._event_size = 0
        self._last_id = ""
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """The events completed by `chunk`."""
        decoded = self._text.decode(chunk)
        if "\n" not in decoded and "\r" not in decoded:
            if decoded:
                self._pending.append(decoded)  # a long line arriving in pieces: join once
                self._pending_size += len(decoded)
                if self._event_size + self._pending_size > self._limit:
                    raise self._over_limit([])
            return []
        text = "".join(self._pending) + decoded
        held_cr = text[-1] == "\r"  # may be the first half of a CRLF split across reads
        if held_cr:
            text = text[:-1]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        rest = lines.pop() + ("\r" if held_cr else "")
        self._pending = [rest] if rest else []
        self._pending_size = len(rest)
        events = self._lines(lines)
        if self._event_size + self._pending_size > self._limit:
            raise self._over_limit(events)
        return events

    def close(self) -> list[SseEvent]:
        """The events completed by the end of the body (an unterminated last line counts)."""
        text = "".join(self._pending) + self._text.decode(b"", final=True)
        self._pending = []
        self._pending_size = 0
        if not text:
            return []
        text = text.replace("\r\n", "\n").replace("\r", "\n")  # a held CR ends the last line
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        return self._lines(lines)

    def _lines(self, lines: list[str]) -> list[SseEvent]:
        events: list[SseEvent] = []
        for line in lines:
            if line and line[0] == "\ufeff":
                line = line[1:]
                if not line:
                    continue
            if not line:
                event = self._dispatch()
                if event is not None:
                    events.append(event)
            elif line[0] != ":":
                self._event_size += len(line) + 1
                if self._event_size > self._limit:
                    raise self._over_limit(events)
                self._field(line)
        return events

    def _field(self, line: str) -> None:
        name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)

    def _dispatch(self) -> SseEvent | None:
        self._event_size = 0
        if not self._event and not self._data and not self._last_id and self._retry is None:
            return None
        event = SseEvent(self._event, "\n".join(self._data), self._last_id, self._retry)
        self._event = ""
        self._data = []
        self._retry = None
        return event

    def _over_limit(self, events: list[SseEvent]) -> EventTooLarge:
        seen = self._event_size + self._pending_size
        return EventTooLarge(
            f"an SSE event is over the {self._limit:,}-character limit "
            f"({seen:,} characters received when it was stopped)",
            events,
        )


class StreamPosition:
    """Where an SSE stream got to: the last event id and the server's `retry:` hint (ms)."""

    __slots__ = ("last_event_id", "retry_ms")

    def __init__(self) -> None:
        self.last_event_id = ""
        self.retry_ms: int | None = None

    def saw(self, event: SseEvent) -> None:
        self.last_event_id = event.id
        if event.retry is not None:
            self.retry_ms = event.retry
