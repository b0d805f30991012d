"""Why a JSON value does not fit a form field: kind, length, pattern, format, bounds, options.

Shared by the schema parser (a server default must fit its field), the form answers and the JSON
editor's validator, so a value is judged the same way everywhere. Never raises on odd input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import date, datetime
from functools import lru_cache
from typing import Any, TypeGuard

from app.engine.form_model import FieldKind, FieldSpec

MAX_PATTERN_LENGTH = 1000
MAX_PATTERN_INPUT = 2000
"""Longest text matched against a server's `pattern` (Python `re` has no time limit)."""

TEXT_KINDS: dict[str, FieldKind] = {
    "email": "email",
    "uri": "uri",
    "date": "date",
    "date-time": "datetime",
}
"""The elicitation string formats and the field kind each becomes."""

_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+")
_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def value_problem(field: FieldSpec, value: Any) -> str | None:
    """Why a JSON value is not acceptable for the field, or None if it is."""
    kind = field.kind
    if kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        if kind == "integer" and isinstance(value, float) and not value.is_integer():
            return "must be a whole number"
        return bounds_problem(field.minimum, field.maximum, value)
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind == "choice":
        if isinstance(value, str) and any(value == choice.value for choice in field.choices):
            return None
        return f"must be one of: {list_values(c.value for c in field.choices)}"
    if kind == "multi":
        return _multi_problem(field, value)
    if not isinstance(value, str):
        return "must be text"
    return _text_problem(field, value)


def _text_problem(field: FieldSpec, value: str) -> str | None:
    if field.min_length is not None and len(value) < field.min_length:
        return f"must be at least {plural(field.min_length, 'character')}"
    if field.max_length is not None and len(value) > field.max_length:
        return f"must be at most {plural(field.max_length, 'character')}"
    if field.pattern is not None and field.pattern_error is None:
        problem = pattern_problem(field.pattern, value)
        if problem is not None:
            return problem
    return format_problem(field.kind, value)


def _multi_problem(field: FieldSpec, value: Any) -> str | None:
    if not is_array(value) or not all(isinstance(item, str) for item in value):
        return "must be a list of options"
    allowed = {choice.value for choice in field.choices}
    unknown = [item for item in value if item not in allowed]
    if unknown:
        return f"not an option: {list_values(unknown)}"
    if field.min_items is not None and len(value) < field.min_items:
        return f"select at least {plural(field.min_items, 'option')}"
    if field.max_items is not None and len(value) > field.max_items:
        return f"select at most {plural(field.max_items, 'option')}"
    return None


def bounds_problem(minimum: Any, maximum: Any, value: int | float) -> str | None:
    """Why a number is outside [minimum, maximum] (either may be None), or None."""
    if minimum is not None and value < minimum:
        return f"must be at least {number_text(minimum)}"
    if maximum is not None and value > maximum:
        return f"must be at most {number_text(maximum)}"
    return None


def pattern_problem(pattern: str, value: str) -> str | None:
    """Why text does not match the server's pattern, or None (unusable patterns pass)."""
    compiled = compile_pattern(pattern)
    if isinstance(compiled, str):
        return None
    if len(value) > MAX_PATTERN_INPUT:
        return (
            f"too long to check against the required pattern (over {MAX_PATTERN_INPUT} characters)"
        )
    if compiled.search(value) is None:
        shown = pattern if len(pattern) <= 60 else pattern[:60] + "…"
        return f"does not match the required pattern {shown}"
    return None


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> re.Pattern[str] | str:
    """The compiled pattern, or a reason it cannot be used; never raises."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the server's pattern is too long ({len(pattern)} characters)"
    try:
        return re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as error:
        return f"the server's pattern is not a valid regular expression ({error})"


def format_problem(kind: str, value: str) -> str | None:
    """Check a string against an elicitation format (by field kind or JSON Schema format name)."""
    if kind == "email" and not _EMAIL.fullmatch(value):
        return "not a valid e-mail address"
    if kind == "uri" and not _is_uri(value):
        return "not a valid URI (it needs a scheme, such as https://…)"
    if kind == "date" and not _is_date(value):
        return "not a real date (use YYYY-MM-DD)"
    if kind in ("datetime", "date-time") and not _is_datetime(value):
        return "not a valid date-time (use YYYY-MM-DDTHH:MM:SS with Z or ±HH:MM)"
    return None


def _is_uri(value: str) -> bool:
    scheme = _URI_SCHEME.match(value)
    if scheme is None or any(char.isspace() or ord(char) < 0x20 for char in value):
        return False
    return bool(value[scheme.end() :].removeprefix("//"))


def _is_date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_datetime(value: str) -> bool:
    if not _DATETIME.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.upper())
    except ValueError:
        return False
    return True


def plural(count: int, noun: str) -> str:
    """ "1 option", "3 options"."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def number_text(value: Any) -> str:
    """A bound as a person writes it (5, not 5.0)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def list_values(values: Any, limit: int = 10) -> str:
    """Up to `limit` values, comma-separated, with how many more were left out."""
    shown = list(values)
    text = ", ".join(shown[:limit])
    return f"{text} (and {len(shown) - limit} more)" if len(shown) > limit else text


def count_keyword(value: Any) -> int | None:
    """A non-negative integer keyword (minLength, maxItems, …), or None when absent or malformed."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def finite_number(value: Any) -> int | float | None:
    """A finite JSON number keyword (minimum, maximum, …), or None when absent or malformed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def is_array(value: Any) -> TypeGuard[Sequence[Any]]:
    """Whether a JSON value is an array (a sequence that is not text)."""
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)
