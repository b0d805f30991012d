"""Why a JSON value does not fit a form field: kind, length, pattern, format, bounds, options.

Shared by the schema parser (a server default must fit its field), the form answers and the JSON
editor's validator, so a value is judged the same way everywhere. Never raises on odd input.

A server's `pattern` runs on RE2 (google-re2), whose matching is linear in the text: a pattern such
as `^(a+)+$` cannot backtrack for ever as it would with Python's `re`. A pattern RE2 cannot take
(look-around, backreferences, too long, too big) is not enforced, and the field says why.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Protocol, TypeGuard

import re2

from app.engine.forms.model import FieldKind, FieldSpec

MAX_PATTERN_LENGTH = 1000
"""Longest server `pattern` compiled; a longer one is not checked (and the field says so)."""
MAX_PATTERN_INPUT = 2000
"""Longest text matched against a pattern: RE2 is linear in it, so a match takes ~50 ms at worst."""
PATTERN_MEMORY = 256 * 1024
"""RE2's memory for one compiled pattern; one needing more is not checked (a compile is ~25 ms)."""
RUN_PATTERN_SECONDS = 0.25
"""Time one whole-form check may spend on patterns; each compile or match alone is bounded."""
UNCHECKED = "pattern could not be checked: "
"""How a `pattern_error` begins: the pattern is not enforced, and the value is sent as typed."""

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
_ECMA_ESCAPE = re.compile(r"\\\\|\\u([0-9A-Fa-f]{4})")
"""An escaped backslash (kept) or an ECMA-262 `\\uXXXX` code point (RE2 writes `\\x{XXXX}`)."""


def _re2_options() -> Any:
    """Bounded memory, no captures (only match or not), and nothing logged to stderr: RE2 would
    write its errors there, over the TUI."""
    options = re2.Options()
    options.max_mem = PATTERN_MEMORY
    options.never_capture = True
    options.log_errors = False
    return options


_RE2_OPTIONS = _re2_options()


class CompiledPattern(Protocol):
    """The part of a compiled RE2 pattern used here."""

    def search(self, text: str) -> object: ...


class PatternBudget:
    """The time one whole-form check may still spend on patterns (RUN_PATTERN_SECONDS).

    Each compile or match is bounded, but a schema of many patterns with long defaults could add
    them up to a freeze; once the time is spent, the remaining patterns are not checked.
    """

    def __init__(self) -> None:
        self._deadline = time.monotonic() + RUN_PATTERN_SECONDS

    def spent(self) -> bool:
        """Whether the time is up (the check under way may overrun it by one bounded step)."""
        return time.monotonic() >= self._deadline


def value_problem(field: FieldSpec, value: Any, budget: PatternBudget | None = None) -> str | None:
    """Why a JSON value is not acceptable for the field, or None if it is.

    `budget` is shared by the checks of one whole form (see PatternBudget); None for one field.
    """
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
    return _text_problem(field, value, budget)


def _text_problem(field: FieldSpec, value: str, budget: PatternBudget | None) -> str | None:
    if field.min_length is not None and len(value) < field.min_length:
        return f"must be at least {plural(field.min_length, 'character')}"
    if field.max_length is not None and len(value) > field.max_length:
        return f"must be at most {plural(field.max_length, 'character')}"
    if field.pattern is not None and field.pattern_error is None:
        problem = pattern_problem(field.pattern, value, budget)
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


def pattern_problem(pattern: str, value: str, budget: PatternBudget | None = None) -> str | None:
    """Why text does not match the server's pattern, or None.

    None also when the pattern cannot be checked (the field's `pattern_error` says why) or the
    budget is spent: an unverifiable pattern never stops an answer the server may accept.
    """
    if budget is not None and budget.spent():
        return None
    if isinstance(compile_pattern(pattern), str):
        return None
    if len(value) > MAX_PATTERN_INPUT:
        return (
            f"too long to check against the required pattern (over {MAX_PATTERN_INPUT} characters)"
        )
    try:
        found = _pattern_found(pattern, value)
    except UnicodeEncodeError:
        return "cannot be checked against the required pattern: it has a lone surrogate"
    if not found:
        shown = pattern if len(pattern) <= 60 else pattern[:60] + "…"
        return f"does not match the required pattern {shown}"
    return None


@lru_cache(maxsize=1024)
def _pattern_found(pattern: str, value: str) -> bool:
    """Whether the compiled pattern occurs in `value`; cached, as forms re-check unchanged text."""
    compiled = compile_pattern(pattern)
    return not isinstance(compiled, str) and compiled.search(value) is not None


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> CompiledPattern | str:
    """The pattern compiled with RE2, or why it cannot be checked (a `pattern_error`); no raise."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"{UNCHECKED}it is {len(pattern)} characters long (at most {MAX_PATTERN_LENGTH})"
    try:
        compiled: CompiledPattern = re2.compile(_re2_syntax(pattern), _RE2_OPTIONS)
    except UnicodeEncodeError:
        return f"{UNCHECKED}it has a lone surrogate, which is not text"
    except re2.error as error:
        return (
            f"{UNCHECKED}not a valid regular expression for RE2, which has no look-around or "
            f"backreferences ({_re2_message(error)})"
        )
    return compiled


def _re2_syntax(pattern: str) -> str:
    """JSON Schema patterns are ECMA-262, which spells a code point `\\uXXXX`; RE2 `\\x{XXXX}`."""
    return _ECMA_ESCAPE.sub(lambda m: m[0] if m[1] is None else f"\\x{{{m[1]}}}", pattern)


def _re2_message(error: Exception) -> str:
    """RE2's reason, which pybind11 hands over as bytes."""
    detail = error.args[0] if error.args else ""
    return detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)


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
