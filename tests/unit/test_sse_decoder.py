"""The incremental SSE decoder: the event-stream rules, whatever the read boundaries."""

from __future__ import annotations

import pytest

from app.engine.rpc.transports.sse_decoder import SseDecoder, SseEvent


def decode(*chunks: bytes) -> list[SseEvent]:
    decoder = SseDecoder()
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return events + decoder.close()


def test_multi_line_data_comments_and_event_names() -> None:
    stream = b': keep-alive\nevent: message\ndata: {"a":\ndata:1}\nid: 7\n\ndata:  two spaces\n\n'
    assert decode(stream) == [
        SseEvent("message", '{"a":\n1}', "7", None),
        SseEvent("", " two spaces", "7", None),  # one space dropped; the id carries over
    ]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending_and_every_split_point(newline: bytes) -> None:
    stream = (
        b"event: x" + newline + b"data: h\xc3\xa9" + newline + newline + b"data: 2" + newline * 2
    )
    expected = [SseEvent("x", "hé", "", None), SseEvent("", "2", "", None)]
    for cut in range(len(stream) + 1):
        assert decode(stream[:cut], stream[cut:]) == expected, cut
    assert decode(*(stream[i : i + 1] for i in range(len(stream)))) == expected


def test_an_event_without_its_blank_line_is_not_dispatched() -> None:
    assert decode(b"data: done\n\ndata: cut off") == [SseEvent("", "done", "", None)]
    assert decode(b"data: held\r\n\r") == [SseEvent("", "held", "", None)]


def test_retry_and_ignored_fields() -> None:
    assert decode(b"retry: 1500\nfoo: bar\nretry: soon\n\n") == [SseEvent("", "", "", 1500)]
    assert decode(b"id: a\x00b\n\n") == []


def test_a_long_line_in_many_pieces() -> None:
    pieces = [b"data: "] + [b"x" * 1000] * 500 + [b"\n\n"]
    (event,) = decode(*pieces)
    assert event.data == "x" * 500_000
