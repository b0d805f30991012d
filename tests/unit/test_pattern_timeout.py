"""Server `pattern`s cannot stall a form: RE2 matches in linear time, what it cannot take is shown
as not checked (and never blocks the answer), and a whole form's pattern work has a time budget.

Every test runs under a pytest-timeout mark: a regression to backtracking would fail it, not hang.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli.answers import response_problems
from app.engine.forms import checks as form_checks
from app.engine.forms.answers import FieldError, coerce_field, validate_answer
from app.engine.forms.checks import UNCHECKED, compile_pattern, pattern_problem
from app.engine.forms.json_answer import validate_json_answer
from app.engine.forms.model import FieldSpec
from app.engine.forms.schema_form import parse_schema
from app.engine.tasks.models import InputKind, InputRequest

pytestmark = pytest.mark.timeout(30)

CATASTROPHIC = "^(a+)+$"
"""Python's `re` needs about 2**n steps to refuse n a's and a "!": minutes at n = 30."""
NEAR_MISS = "a" * 30 + "!"
HEAVY = "(?:a|b){{0,999}}a(?:a|b){{0,999}}!{}"
"""A pattern whose RE2 program is large (about 4,000 steps); distinct per number, so none cached."""


def schema(**props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def spec_prop(pattern: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "pattern": pattern, **more}


def field(prop: dict[str, Any]) -> FieldSpec:
    return parse_schema(schema(f=prop)).fields[0]


def refusal(spec: FieldSpec, text: str) -> str:
    with pytest.raises(FieldError) as caught:
        coerce_field(spec, text)
    return caught.value.reason


def alternating(length: int) -> str:
    return ("ab" * length)[:length]


# --- the catastrophic pattern is decided at once --------------------------------------------------


def test_catastrophic_pattern_is_checked_not_backtracked() -> None:
    spec = field({"type": "string", "pattern": CATASTROPHIC})
    assert spec.pattern_error is None
    assert refusal(spec, NEAR_MISS).startswith("does not match the required pattern ^(a+)+$")
    assert coerce_field(spec, "a" * 30) == "a" * 30
    assert validate_answer(parse_schema(schema(f=spec_prop(CATASTROPHIC))), {"f": NEAR_MISS}) == {
        "f": "does not match the required pattern ^(a+)+$"
    }


def test_a_catastrophic_default_is_judged_at_once_and_dropped() -> None:
    dropped = field(spec_prop(CATASTROPHIC, default=NEAR_MISS))
    assert dropped.default is None
    assert dropped.pattern_error is None
    assert field(spec_prop(CATASTROPHIC, default="aaa")).default == "aaa"


def test_the_json_editor_and_the_cli_answer_check_decide_it_too() -> None:
    assert validate_json_answer(schema(f=spec_prop(CATASTROPHIC)), {"f": NEAR_MISS}) == [
        "f: does not match the required pattern ^(a+)+$"
    ]
    request = InputRequest(
        key="k",
        kind=InputKind.FORM,
        method="elicitation/create",
        params={"requestedSchema": schema(f=spec_prop(CATASTROPHIC, default=NEAR_MISS))},
        wire="extension",
    )
    # The omitted field is sent with the server's default, which is checked and refused.
    assert response_problems(request, {"action": "accept", "content": {}}) == [
        "f: does not match the required pattern ^(a+)+$"
    ]


# --- what RE2 cannot take is said on the field and never blocks the answer ------------------------


@pytest.mark.parametrize(
    ("pattern", "detail"),
    [
        (r"^(?=.*\d)(?=.*[A-Z]).{8,}$", "invalid perl operator: (?="),
        (r"^(a+)+\1$", r"invalid escape sequence: \1"),
        ("([a-z", "missing ]"),
    ],
)
def test_a_pattern_re2_cannot_take_is_unchecked_and_said_on_the_field(
    pattern: str, detail: str
) -> None:
    spec = field(spec_prop(pattern, default="whatever"))
    assert spec.pattern_error is not None
    assert spec.pattern_error.startswith(UNCHECKED + "not a valid regular expression for RE2")
    assert detail in spec.pattern_error
    assert spec.default == "whatever"
    assert coerce_field(spec, NEAR_MISS) == NEAR_MISS
    assert validate_answer(parse_schema(schema(f=spec_prop(pattern))), {"f": "x"}) == {}
    assert validate_json_answer(schema(f=spec_prop(pattern)), {"f": "x"}) == []


def test_a_too_long_pattern_is_unchecked_with_its_length() -> None:
    spec = field(spec_prop("a" * 1001))
    assert spec.pattern_error == UNCHECKED + "it is 1001 characters long (at most 1000)"
    assert coerce_field(spec, "b") == "b"


def test_a_pattern_too_big_for_re2s_memory_is_unchecked() -> None:
    spec = field(spec_prop(r"^[\p{L}\p{N}]{1,1000}$"))
    assert spec.pattern_error is not None
    assert "pattern too large" in spec.pattern_error


def test_re2_writes_nothing_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    # RE2 logs rejected patterns to file descriptor 2 unless told not to: over the TUI's screen.
    assert field(spec_prop("(?<=x)unique-to-this-test")).pattern_error is not None
    assert capfd.readouterr().err == ""


def test_lone_surrogates_are_said_not_raised() -> None:
    assert pattern_problem("^a", "a\ud800") == (
        "cannot be checked against the required pattern: it has a lone surrogate"
    )
    spec = field(spec_prop("^\ud800$"))
    assert spec.pattern_error == UNCHECKED + "it has a lone surrogate, which is not text"


REGEX_PIECES = st.sampled_from([*r"ab()[]{}|*+?^$\.-,019uxdwsSpLN=<!:", "\ud800", "é", "{1000}"])


@settings(max_examples=500, deadline=None)
@given(
    st.lists(REGEX_PIECES, max_size=20).map("".join),
    st.text(max_size=60) | st.text(alphabet=st.sampled_from(["a", "b", "!", "\ud800"])),
)
def test_any_pattern_and_text_give_an_answer_or_a_reason_and_never_raise(
    pattern: str, text: str
) -> None:
    compiled = compile_pattern(pattern)
    assert not isinstance(compiled, str) or compiled.startswith(UNCHECKED)
    problem = pattern_problem(pattern, text)
    assert problem is None or isinstance(problem, str)


# --- ordinary patterns still validate -------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("^[a-z][a-z0-9-]*$", "web-01", "Web_01"),
        (r"^\d{4}-\d{2}-\d{2}$", "2026-01-31", "2026-1-31"),
        ("b", "abc", "xyz"),  # unanchored, as JSON Schema says
        ("^[a-z]+$", "abc", "abc\n"),  # ECMA-262 `$` is the end of the text, not before a newline
        (r"^[\u0041-\u005A]+$", "ABC", "abc"),  # ECMA-262 \uXXXX, which RE2 spells \x{XXXX}
        (r"^\\u0041$", r"\u0041", "A"),  # an escaped backslash is not a \u escape
        (r"^\p{Lu}\p{Ll}+$", "Émile", "émile"),
    ],
)
def test_ordinary_patterns_accept_good_values_and_refuse_bad_ones(
    pattern: str, good: str, bad: str
) -> None:
    spec = field(spec_prop(pattern))
    assert spec.pattern_error is None
    assert coerce_field(spec, good) == good
    assert refusal(spec, bad).startswith("does not match the required pattern")
    assert validate_json_answer(schema(f=spec_prop(pattern)), {"f": bad}) != []


# --- a whole form's pattern work is bounded -------------------------------------------------------


def test_a_form_of_many_heavy_patterns_and_long_defaults_is_built_and_checked_in_bounded_time() -> (
    None
):
    props = {
        f"f{n}": spec_prop(HEAVY.format(f"form-{n}"), default=alternating(2000)) for n in range(200)
    }
    spec = parse_schema(schema(**props))
    unchecked = [f for f in spec.fields if f.pattern_error is not None]
    # Each field alone costs milliseconds, so 200 of them are far over the 0.25 s budget.
    assert unchecked
    assert unchecked[-1] is spec.fields[-1]
    assert unchecked[-1].pattern_error == (
        UNCHECKED + "the form's patterns took over 0.25 s to check"
    )
    assert unchecked[-1].default == alternating(2000)
    content = {f"f{n}": alternating(2000) for n in range(200)}
    problems = validate_answer(spec, content)
    assert problems
    assert set(problems) < set(content)
    assert set(problems).isdisjoint(f.name for f in unchecked)


def test_past_the_budget_patterns_are_unchecked_and_do_not_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(form_checks, "RUN_PATTERN_SECONDS", 0.0)
    spec = parse_schema(schema(f=spec_prop("^[a-z]+$", default="NOT LOWER"), g=spec_prop("^x$")))
    assert [f.pattern_error is not None for f in spec.fields] == [True, True]
    assert spec.fields[0].default == "NOT LOWER"
    assert validate_answer(spec, {"f": "1", "g": "2"}) == {}
    assert validate_json_answer(schema(f=spec_prop("^[a-z]+$")), {"f": "1"}) == []
    # One field on its own is always checked: typing into it has no budget to spend.
    typed = FieldSpec("f", "text", "f", pattern="^[a-z]+$")
    assert refusal(typed, "1").startswith("does not match")


@pytest.mark.timeout(10)
def test_the_json_editor_bounds_a_schema_of_thousands_of_heavy_patterns() -> None:
    # Unbounded, 5,000 distinct heavy patterns cost 5-25 ms each to compile: far past the timeout.
    props = {f"p{n}": spec_prop(HEAVY.format(f"json-{n}")) for n in range(5000)}
    problems = validate_json_answer(schema(**props), {f"p{n}": "ab" for n in range(5000)})
    assert problems
    assert all("does not match the required pattern" in problem for problem in problems)
