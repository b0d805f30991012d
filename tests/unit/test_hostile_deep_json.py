"""`app.engine.safety.deep_json`: the same text as the standard `json` module, at any depth."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.safety import deep_json

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


def deep_text(levels: int) -> str:
    return '{"nested":' * levels + '"bottom"' + "}" * levels


@settings(max_examples=300)
@given(
    value=json_values,
    indent=st.sampled_from([None, 0, 2]),
    separators=st.sampled_from([None, (",", ":")]),
    ensure_ascii=st.booleans(),
)
def test_the_fallbacks_write_and_read_what_json_does(
    value: Any, indent: int | None, separators: tuple[str, str] | None, ensure_ascii: bool
) -> None:
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ensure_ascii)
    assert deep_json._encode(value, indent, separators, ensure_ascii, None) == text
    assert deep_json._parse(text) == json.loads(text)


def test_deeper_than_the_recursion_limit_round_trips() -> None:
    text = deep_text(5000)
    with pytest.raises(RecursionError):
        json.loads(text)
    value = deep_json.loads(text)
    assert deep_json.depth(value) == 5000
    assert deep_json.dumps(value, separators=(",", ":")) == text
    pretty = deep_json.dumps(value, indent=1)
    assert pretty.count("\n") == 2 * deep_json.MAX_INDENTED_LEVELS + 1 and pretty.endswith("\n}")
    compact = deep_json.dumps(deep_json.loads(pretty), separators=(",", ":"))
    assert compact == text  # past the indented levels, written compact


@pytest.mark.parametrize("bad", ['{"a":1', "[1,]", '{"a" 1}', "", "[1] x", "{,}", "[1 2]", "nul"])
def test_malformed_text_is_a_value_error_even_when_deep(bad: str) -> None:
    with pytest.raises(ValueError):
        deep_json._parse(bad)
    if bad:  # wrapped in brackets, the empty text would be valid
        with pytest.raises(ValueError):
            deep_json.loads("[" * 2000 + bad + "]" * 2000)


def test_depth_counts_containers() -> None:
    assert [deep_json.depth(v) for v in (1, [], {"a": [1]}, [[[]]])] == [0, 1, 2, 3]


def test_redacting_a_value_deeper_than_the_recursion_limit() -> None:
    """With a secret learned (any OAuth sign-in in the process), the App's redaction walks a
    deep result without comparing it recursively: the value itself when it holds no secret,
    a copy with the secret replaced when it does."""
    from app.engine.safety.redact import REDACTED, Redactor
    from app.tui.live import Shown

    shown = Shown(Redactor.build(["X-Key"], ["s3cret-token-value"], None))
    clean = deep_json.loads(deep_text(5000))
    assert shown.value(clean) is clean
    leaking = deep_json.loads(deep_text(5000).replace("bottom", "s3cret-token-value"))
    hidden = shown.value(leaking)
    assert hidden is not leaking
    assert deep_json.dumps(hidden, separators=(",", ":")) == deep_text(5000).replace(
        "bottom", REDACTED
    )
