"""What a person typed or picked for a form field, turned into the JSON value to send and
checked: `coerce_field` for one field, `validate_answer` for a whole content dict.

Lenient on input (yes/no words, choice titles in any case, a space for "T" in date-times), strict on
what is sent: every value passes `form_checks.value_problem`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from app.engine.forms.checks import PatternBudget, list_values, value_problem
from app.engine.forms.model import Choice, FieldSpec, FormSpec

MAX_NUMBER_TEXT = 400

_LOOSE_DATETIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]([0-9]{2}:[0-9]{2})(:[0-9]{2}(?:\.[0-9]+)?)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_TRUE_WORDS = frozenset({"true", "yes", "y", "1"})
_FALSE_WORDS = frozenset({"false", "no", "n", "0"})
_REQUIRED = "this field is required"


class FieldError(ValueError):
    """One field's answer is not acceptable; `reason` is short, such as "must be at most 5"."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def coerce_field(field: FieldSpec, text: str | list[str] | bool | None) -> Any:
    """Turn what a user typed or picked into the JSON value to send; raises FieldError.

    Returns None when an optional field was left empty: omit it from the content.
    """
    value = _parse_input(field, text)
    if value is None:
        if field.required:
            raise FieldError(field.name, _REQUIRED)
        return None
    problem = value_problem(field, value)
    if problem is not None:
        raise FieldError(field.name, problem)
    return value


def validate_answer(spec: FormSpec, content: Mapping[str, Any]) -> dict[str, str]:
    """Check a whole content dict against the form: field name -> reason; {} means valid.

    The fields' patterns share one PatternBudget: content may carry a server's defaults.
    """
    errors: dict[str, str] = {}
    names: set[str] = set()
    budget = PatternBudget()
    for field in spec.fields:
        names.add(field.name)
        if field.name not in content:
            if field.required:
                errors[field.name] = _REQUIRED
            continue
        problem = value_problem(field, content[field.name], budget)
        if problem is not None:
            errors[field.name] = problem
    for key in content:
        if key not in names:
            errors[key] = "not a field of this form"
    return errors


def default_content(spec: FormSpec) -> dict[str, Any]:
    """The content a form starts with: every field that has a (valid) server default."""
    return {
        field.name: list(field.default) if field.kind == "multi" else field.default
        for field in spec.fields
        if field.default is not None
    }


def _parse_input(field: FieldSpec, raw: str | list[str] | bool | None) -> Any:
    """Parse raw input into a JSON value of the field's type; None means "left empty"."""
    if raw is None:
        return None
    if field.kind == "multi":
        return _parse_multi_input(field, raw)
    if field.kind == "boolean":
        return _parse_bool(field, raw)
    if not isinstance(raw, str):
        raise FieldError(field.name, "expected a single text value")
    if field.kind in ("number", "integer"):
        return _parse_number(field, raw.strip())
    if field.kind == "choice":
        return _match_choice(field, raw) if raw.strip() else None
    if field.kind == "text":
        return raw or None
    stripped = raw.strip()
    if not stripped:
        return None
    return _normalise_datetime(stripped) if field.kind == "datetime" else stripped


def _parse_bool(field: FieldSpec, raw: str | list[str] | bool) -> bool | None:
    if isinstance(raw, bool):
        return raw
    if not isinstance(raw, str):
        raise FieldError(field.name, "expected yes or no")
    word = raw.strip().lower()
    if not word:
        return None
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    raise FieldError(field.name, "answer yes or no (true/false, y/n, 1/0)")


def _parse_number(field: FieldSpec, text: str) -> int | float | None:
    if not text:
        return None
    if len(text) > MAX_NUMBER_TEXT:
        raise FieldError(field.name, "the number is too long")
    if _INTEGER_TEXT.fullmatch(text):
        return int(text)
    if field.kind == "integer":
        raise FieldError(field.name, "must be a whole number")
    if not _NUMBER_TEXT.fullmatch(text):
        raise FieldError(field.name, "not a number")
    value = float(text)
    if not math.isfinite(value):
        raise FieldError(field.name, "the number is too large")
    return value


def _parse_multi_input(field: FieldSpec, raw: str | list[str] | bool) -> list[str] | None:
    if isinstance(raw, str):
        picked = [part.strip() for part in raw.split(",")]
    elif isinstance(raw, list) and all(isinstance(part, str) for part in raw):
        picked = raw
    else:
        raise FieldError(field.name, "expected a list of options")
    values: list[str] = []
    for part in picked:
        if part.strip():
            value = _match_choice(field, part)
            if value not in values:
                values.append(value)
    if not values:
        return [] if field.required else None
    return values


def _match_choice(field: FieldSpec, text: str) -> str:
    """The choice value a typed text names: exact value or title, then either case-insensitively."""
    for candidate in (text, text.strip()):
        for choice in field.choices:
            if choice.value == candidate:
                return choice.value
    wanted = text.strip()
    folded = wanted.casefold()
    levels: tuple[Callable[[Choice], bool], ...] = (
        lambda choice: choice.title == wanted,
        lambda choice: choice.value.casefold() == folded,
        lambda choice: choice.title.casefold() == folded,
    )
    for matches in levels:
        found = {choice.value for choice in field.choices if matches(choice)}
        if len(found) == 1:
            return found.pop()
        if found:
            raise FieldError(field.name, f"ambiguous: matches {list_values(sorted(found))}")
    raise FieldError(field.name, f"must be one of: {list_values(c.title for c in field.choices)}")


def _normalise_datetime(text: str) -> str:
    """Accept a space for "T" and missing seconds, sending the RFC 3339 form; else pass through."""
    match = _LOOSE_DATETIME.fullmatch(text)
    if match is None:
        return text
    day, hours_minutes, seconds, zone = match.groups()
    return f"{day}T{hours_minutes}{seconds or ':00'}{'Z' if zone in ('z', 'Z') else zone}"
