"""Elicitation `requestedSchema` turned into typed form fields, and answers checked against it.

The elicitation schema is a flat subset of JSON Schema (protocol reference §2.8). `parse_schema`
turns it into frozen `FieldSpec`s that the headless prompts and the TUI form share; `coerce_field`
turns what a user typed or picked into the JSON value to send; `validate_answer` checks a whole
content dict. A schema outside the subset raises `UnsupportedSchema`, and callers fall back to a raw
JSON editor checked by `validate_json_answer`.

Titles, descriptions and choice titles are raw server text: render them through
`app.engine.sanitize`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Literal, TypeGuard

FieldKind = Literal[
    "text", "email", "uri", "date", "datetime", "number", "integer", "boolean", "choice", "multi"
]

MAX_FIELDS = 200
"""More fields than this is not a form a person fills in; such schemas go to the JSON editor."""
MAX_CHOICES = 1000
"""More options than this does not fit a picker; such schemas go to the JSON editor."""
MAX_PATTERN_LENGTH = 1000
MAX_PATTERN_INPUT = 2000
"""Longest text matched against a server's `pattern` (Python `re` has no time limit)."""
MAX_NUMBER_TEXT = 400

_TEXT_KINDS: dict[str, FieldKind] = {
    "email": "email",
    "uri": "uri",
    "date": "date",
    "date-time": "datetime",
}
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+")
_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_LOOSE_DATETIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]([0-9]{2}:[0-9]{2})(:[0-9]{2}(?:\.[0-9]+)?)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_TRUE_WORDS = frozenset({"true", "yes", "y", "1"})
_FALSE_WORDS = frozenset({"false", "no", "n", "0"})
_REQUIRED = "this field is required"


class UnsupportedSchema(ValueError):
    """The schema is outside the elicitation subset; the message says why (fall back to JSON)."""


class FieldError(ValueError):
    """One field's answer is not acceptable; `reason` is short, such as "must be at most 5"."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class Choice:
    """One option of a single- or multi-select field: the value sent and the title shown."""

    value: str
    title: str


@dataclass(frozen=True)
class FieldSpec:
    """One typed form field. Constraints that do not apply to the kind stay None.

    `default` is already a valid value of the field (a tuple for multi-selects) or None.
    `pattern_error` is set when the server's `pattern` cannot be compiled (or is too long); such a
    pattern is not enforced, and the UI can show the reason.
    """

    name: str
    kind: FieldKind
    title: str
    description: str | None = None
    required: bool = False
    default: Any = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    pattern_error: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[Choice, ...] = ()
    min_items: int | None = None
    max_items: int | None = None


@dataclass(frozen=True)
class FormSpec:
    """The fields of one elicitation form, in the server's property order."""

    fields: tuple[FieldSpec, ...]


# --- parsing --------------------------------------------------------------------------------------


def parse_schema(schema: Any) -> FormSpec:
    """Turn a `requestedSchema` into a FormSpec, or raise UnsupportedSchema (and nothing else).

    Malformed annotations (titles, bounds, enumNames, defaults) are ignored rather than rejected.
    """
    if not isinstance(schema, Mapping):
        raise UnsupportedSchema(f"the schema must be an object, not {_describe(schema)}")
    if schema.get("type", "object") != "object":
        raise UnsupportedSchema(
            f'the schema\'s type must be "object", not {_describe(schema["type"])}'
        )
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise UnsupportedSchema(f"properties must be an object, not {_describe(properties)}")
    if len(properties) > MAX_FIELDS:
        raise UnsupportedSchema(f"too many fields ({len(properties)}; at most {MAX_FIELDS})")
    required = _required_names(schema.get("required"))
    fields: list[FieldSpec] = []
    for name, prop in properties.items():
        if not isinstance(name, str):
            raise UnsupportedSchema(f"a property name is {_describe(name)}, not a string")
        fields.append(_parse_field(name, prop, name in required))
    return FormSpec(tuple(fields))


def _required_names(required: Any) -> frozenset[str]:
    if required is None:
        return frozenset()
    if not _is_array(required) or not all(isinstance(name, str) for name in required):
        raise UnsupportedSchema("required must be a list of property names")
    return frozenset(required)


def _parse_field(name: str, prop: Any, required: bool) -> FieldSpec:
    if not isinstance(prop, Mapping):
        raise UnsupportedSchema(
            f"field {_describe(name)}: its schema is {_describe(prop)}, not an object"
        )
    title = _annotation(prop.get("title")) or name
    base = FieldSpec(name, "text", title, _annotation(prop.get("description")), required)
    kind = prop.get("type")
    if kind == "array":
        spec = _parse_multi(base, prop)
    elif (kind is None or kind == "string") and ("oneOf" in prop or "enum" in prop):
        spec = _parse_choice(base, prop)
    elif kind == "string":
        spec = _parse_string(base, prop)
    elif kind == "number" or kind == "integer":
        spec = replace(
            base,
            kind="integer" if kind == "integer" else "number",
            minimum=_finite_number(prop.get("minimum")),
            maximum=_finite_number(prop.get("maximum")),
        )
    elif kind == "boolean":
        spec = replace(base, kind="boolean")
    elif kind == "object":
        raise UnsupportedSchema(f"field {_describe(name)}: nested objects are not supported")
    else:
        raise UnsupportedSchema(f"field {_describe(name)}: unsupported type {_describe(kind)}")
    return _with_default(spec, prop.get("default"))


def _parse_string(base: FieldSpec, prop: Mapping[str, Any]) -> FieldSpec:
    fmt = prop.get("format")
    kind = _TEXT_KINDS.get(fmt, "text") if isinstance(fmt, str) else "text"
    pattern = prop.get("pattern") if isinstance(prop.get("pattern"), str) else None
    compiled = _compile_pattern(pattern) if pattern is not None else None
    return replace(
        base,
        kind=kind,
        min_length=_count(prop.get("minLength")),
        max_length=_count(prop.get("maxLength")),
        pattern=pattern,
        pattern_error=compiled if isinstance(compiled, str) else None,
    )


def _parse_choice(base: FieldSpec, prop: Mapping[str, Any]) -> FieldSpec:
    if "oneOf" in prop:
        choices = _titled_options(base.name, prop["oneOf"], "oneOf")
    else:
        choices = _enum_options(base.name, prop["enum"], prop.get("enumNames"))
    return replace(base, kind="choice", choices=choices)


def _parse_multi(base: FieldSpec, prop: Mapping[str, Any]) -> FieldSpec:
    items = prop.get("items")
    if not isinstance(items, Mapping):
        raise UnsupportedSchema(
            f"field {_describe(base.name)}: a multi-select needs an items object"
        )
    if "anyOf" in items or "oneOf" in items:
        key = "anyOf" if "anyOf" in items else "oneOf"
        choices = _titled_options(base.name, items[key], f"items.{key}")
    elif "enum" in items and items.get("type", "string") == "string":
        choices = _enum_options(base.name, items["enum"], items.get("enumNames"))
    else:
        raise UnsupportedSchema(
            f"field {_describe(base.name)}: arrays are supported only as multi-selects "
            "(items with a string enum or anyOf of const/title)"
        )
    return replace(
        base,
        kind="multi",
        choices=choices,
        min_items=_count(prop.get("minItems")),
        max_items=_count(prop.get("maxItems")),
    )


def _titled_options(name: str, options: Any, where: str) -> tuple[Choice, ...]:
    if not _is_array(options) or not options:
        raise UnsupportedSchema(f"field {_describe(name)}: {where} must be a non-empty list")
    _check_choice_count(name, len(options))
    choices: list[Choice] = []
    for option in options:
        if not isinstance(option, Mapping) or not isinstance(option.get("const"), str):
            raise UnsupportedSchema(
                f"field {_describe(name)}: each {where} entry needs a string const"
            )
        value: str = option["const"]
        choices.append(Choice(value, _annotation(option.get("title")) or value))
    return tuple(choices)


def _enum_options(name: str, values: Any, names: Any) -> tuple[Choice, ...]:
    if not _is_array(values) or not values or not all(isinstance(v, str) for v in values):
        raise UnsupportedSchema(
            f"field {_describe(name)}: enum must be a non-empty list of strings"
        )
    _check_choice_count(name, len(values))
    titles = (
        names
        if _is_array(names) and len(names) == len(values) and all(isinstance(t, str) for t in names)
        else values
    )
    return tuple(Choice(value, title or value) for value, title in zip(values, titles, strict=True))


def _check_choice_count(name: str, count: int) -> None:
    if count > MAX_CHOICES:
        raise UnsupportedSchema(
            f"field {_describe(name)}: too many options ({count}; at most {MAX_CHOICES})"
        )


def _with_default(spec: FieldSpec, default: Any) -> FieldSpec:
    """Attach the server's default if it is a valid value of the field; a bad default is dropped."""
    if default is None:
        return spec
    if spec.kind == "integer" and isinstance(default, float) and default.is_integer():
        default = int(default)
    if spec.kind == "multi":
        if not _is_array(default):
            return spec
        default = tuple(default)
    if _value_problem(spec, default) is not None:
        return spec
    return replace(spec, default=default)


def _annotation(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _count(value: Any) -> int | None:
    """A non-negative integer keyword (minLength, maxItems, …), or None when absent or malformed."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _finite_number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _is_array(value: Any) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _describe(value: Any) -> str:
    """A short description of a JSON value for messages (never the repr of a big structure)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:40]) + "…"
    if value is None or isinstance(value, bool | int | float):
        text = repr(value)
        return text if len(text) <= 40 else text[:40] + "…"
    if isinstance(value, Mapping):
        return "an object"
    if _is_array(value):
        return "a list"
    return f"a {type(value).__name__}"


# --- coercion and validation of form answers ------------------------------------------------------


def coerce_field(field: FieldSpec, text: str | list[str] | bool | None) -> Any:
    """Turn what a user typed or picked into the JSON value to send; raises FieldError.

    Returns None when an optional field was left empty: omit it from the content.
    """
    value = _parse_input(field, text)
    if value is None:
        if field.required:
            raise FieldError(field.name, _REQUIRED)
        return None
    problem = _value_problem(field, value)
    if problem is not None:
        raise FieldError(field.name, problem)
    return value


def validate_answer(spec: FormSpec, content: Mapping[str, Any]) -> dict[str, str]:
    """Check a whole content dict against the form: field name -> reason; {} means valid."""
    errors: dict[str, str] = {}
    names: set[str] = set()
    for field in spec.fields:
        names.add(field.name)
        if field.name not in content:
            if field.required:
                errors[field.name] = _REQUIRED
            continue
        problem = _value_problem(field, content[field.name])
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
            raise FieldError(field.name, f"ambiguous: matches {_list_values(sorted(found))}")
    raise FieldError(field.name, f"must be one of: {_list_values(c.title for c in field.choices)}")


def _normalise_datetime(text: str) -> str:
    """Accept a space for "T" and missing seconds, sending the RFC 3339 form; else pass through."""
    match = _LOOSE_DATETIME.fullmatch(text)
    if match is None:
        return text
    day, hours_minutes, seconds, zone = match.groups()
    return f"{day}T{hours_minutes}{seconds or ':00'}{'Z' if zone in ('z', 'Z') else zone}"


def _value_problem(field: FieldSpec, value: Any) -> str | None:
    """Why a JSON value is not acceptable for the field, or None if it is."""
    kind = field.kind
    if kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        if kind == "integer" and isinstance(value, float) and not value.is_integer():
            return "must be a whole number"
        return _bounds_problem(field.minimum, field.maximum, value)
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind == "choice":
        if isinstance(value, str) and any(value == choice.value for choice in field.choices):
            return None
        return f"must be one of: {_list_values(c.value for c in field.choices)}"
    if kind == "multi":
        return _multi_problem(field, value)
    if not isinstance(value, str):
        return "must be text"
    return _text_problem(field, value)


def _text_problem(field: FieldSpec, value: str) -> str | None:
    if field.min_length is not None and len(value) < field.min_length:
        return f"must be at least {_plural(field.min_length, 'character')}"
    if field.max_length is not None and len(value) > field.max_length:
        return f"must be at most {_plural(field.max_length, 'character')}"
    if field.pattern is not None and field.pattern_error is None:
        problem = _pattern_problem(field.pattern, value)
        if problem is not None:
            return problem
    return _format_problem(field.kind, value)


def _multi_problem(field: FieldSpec, value: Any) -> str | None:
    if not _is_array(value) or not all(isinstance(item, str) for item in value):
        return "must be a list of options"
    allowed = {choice.value for choice in field.choices}
    unknown = [item for item in value if item not in allowed]
    if unknown:
        return f"not an option: {_list_values(unknown)}"
    if field.min_items is not None and len(value) < field.min_items:
        return f"select at least {_plural(field.min_items, 'option')}"
    if field.max_items is not None and len(value) > field.max_items:
        return f"select at most {_plural(field.max_items, 'option')}"
    return None


def _bounds_problem(minimum: Any, maximum: Any, value: int | float) -> str | None:
    if minimum is not None and value < minimum:
        return f"must be at least {_number_text(minimum)}"
    if maximum is not None and value > maximum:
        return f"must be at most {_number_text(maximum)}"
    return None


def _pattern_problem(pattern: str, value: str) -> str | None:
    compiled = _compile_pattern(pattern)
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
def _compile_pattern(pattern: str) -> re.Pattern[str] | str:
    """The compiled pattern, or a reason it cannot be used; never raises."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the server's pattern is too long ({len(pattern)} characters)"
    try:
        return re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as error:
        return f"the server's pattern is not a valid regular expression ({error})"


def _format_problem(kind: str, value: str) -> str | None:
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


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _number_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _list_values(values: Any, limit: int = 10) -> str:
    shown = list(values)
    text = ", ".join(shown[:limit])
    return f"{text} (and {len(shown) - limit} more)" if len(shown) > limit else text


# --- the JSON-editor fallback ---------------------------------------------------------------------

MAX_JSON_DEPTH = 32
MAX_JSON_STEPS = 100_000
MAX_JSON_ERRORS = 50
_JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")


def validate_json_answer(schema: Any, content: Any) -> list[str]:
    """Check free-form JSON content against any schema with a small, careful JSON Schema subset.

    Understands type, enum, const, required, properties, additionalProperties, items,
    min/maxItems, min/maxLength, pattern, format, minimum/maximum (and exclusive), anyOf, oneOf and
    allOf; anything else or malformed is ignored. Returns "path: reason" messages; [] means valid.
    Never raises on odd input.
    """
    checker = _JsonChecker()
    checker.check(schema, content, "", 0)
    return checker.errors


class _JsonChecker:
    """One validation run: collects errors and bounds the work a hostile schema can cause."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.steps = 0

    def fail(self, path: str, reason: str) -> None:
        if len(self.errors) < MAX_JSON_ERRORS:
            self.errors.append(f"{path or 'answer'}: {reason}")

    def passes(self, schema: Any, value: Any, path: str, depth: int) -> bool:
        """Whether `value` matches `schema`, without recording errors (for anyOf/oneOf branches)."""
        branch = _JsonChecker()
        branch.steps = self.steps
        branch.check(schema, value, path, depth)
        self.steps = branch.steps
        return not branch.errors

    def check(self, schema: Any, value: Any, path: str, depth: int) -> None:
        if schema is False:
            self.fail(path, "no value is allowed here")
            return
        if not isinstance(schema, Mapping):
            return
        self.steps += 1
        if self.steps > MAX_JSON_STEPS or depth > MAX_JSON_DEPTH:
            self.fail(path, "the schema is too complex to check")
            return
        if not self._type_matches(schema.get("type"), value):
            self.fail(path, f"must be {_type_text(schema['type'])}")
            return
        self._check_values(schema, value, path)
        if isinstance(value, str):
            self._check_string(schema, value, path)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            self._check_number(schema, value, path)
        elif _is_array(value):
            self._check_array(schema, value, path, depth)
        elif isinstance(value, Mapping):
            self._check_object(schema, value, path, depth)
        self._check_combinators(schema, value, path, depth)

    @staticmethod
    def _type_matches(expected: Any, value: Any) -> bool:
        names = [expected] if isinstance(expected, str) else expected if _is_array(expected) else []
        known = [name for name in names if name in _JSON_TYPES]
        return not known or any(_is_json_type(name, value) for name in known)

    def _check_values(self, schema: Mapping[str, Any], value: Any, path: str) -> None:
        enum = schema.get("enum")
        if _is_array(enum) and not any(_json_equal(value, option) for option in enum):
            allowed = [option for option in enum if isinstance(option, str)]
            self.fail(
                path,
                f"must be one of: {_list_values(allowed)}" if allowed else "not an allowed value",
            )
        if "const" in schema and not _json_equal(value, schema["const"]):
            self.fail(path, "not the allowed value")

    def _check_string(self, schema: Mapping[str, Any], value: str, path: str) -> None:
        min_length, max_length = _count(schema.get("minLength")), _count(schema.get("maxLength"))
        if min_length is not None and len(value) < min_length:
            self.fail(path, f"must be at least {_plural(min_length, 'character')}")
        if max_length is not None and len(value) > max_length:
            self.fail(path, f"must be at most {_plural(max_length, 'character')}")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            problem = _pattern_problem(pattern, value)
            if problem is not None:
                self.fail(path, problem)
        fmt = schema.get("format")
        if isinstance(fmt, str):
            problem = _format_problem(_TEXT_KINDS.get(fmt, "text"), value)
            if problem is not None:
                self.fail(path, problem)

    def _check_number(self, schema: Mapping[str, Any], value: int | float, path: str) -> None:
        problem = _bounds_problem(
            _finite_number(schema.get("minimum")), _finite_number(schema.get("maximum")), value
        )
        if problem is not None:
            self.fail(path, problem)
        low = _finite_number(schema.get("exclusiveMinimum"))
        if low is not None and value <= low:
            self.fail(path, f"must be greater than {_number_text(low)}")
        high = _finite_number(schema.get("exclusiveMaximum"))
        if high is not None and value >= high:
            self.fail(path, f"must be less than {_number_text(high)}")

    def _check_array(
        self, schema: Mapping[str, Any], value: Sequence[Any], path: str, depth: int
    ) -> None:
        min_items, max_items = _count(schema.get("minItems")), _count(schema.get("maxItems"))
        if min_items is not None and len(value) < min_items:
            self.fail(path, f"needs at least {_plural(min_items, 'item')}")
        if max_items is not None and len(value) > max_items:
            self.fail(path, f"allows at most {_plural(max_items, 'item')}")
        items = schema.get("items")
        if isinstance(items, Mapping | bool):
            for index, item in enumerate(value):
                self.check(items, item, f"{path or 'answer'}[{index}]", depth + 1)

    def _check_object(
        self, schema: Mapping[str, Any], value: Mapping[Any, Any], path: str, depth: int
    ) -> None:
        required = schema.get("required")
        if _is_array(required):
            for name in required:
                if isinstance(name, str) and name not in value:
                    self.fail(_join(path, name), "this field is required")
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            where = _join(path, str(key))
            if key in properties:
                self.check(properties[key], item, where, depth + 1)
            elif extra is False:
                self.fail(where, "not a field of this form")
            elif isinstance(extra, Mapping):
                self.check(extra, item, where, depth + 1)

    def _check_combinators(
        self, schema: Mapping[str, Any], value: Any, path: str, depth: int
    ) -> None:
        all_of = schema.get("allOf")
        if _is_array(all_of):
            for branch in all_of:
                self.check(branch, value, path, depth + 1)
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if not _is_array(branches) or not branches:
                continue
            matched = sum(1 for branch in branches if self.passes(branch, value, path, depth + 1))
            if matched == 0:
                self.fail(path, _no_branch_reason(branches))
            elif keyword == "oneOf" and matched > 1:
                self.fail(path, "matches more than one of the allowed options")


def _no_branch_reason(branches: Sequence[Any]) -> str:
    consts = [b.get("const") for b in branches if isinstance(b, Mapping)]
    if consts and len(consts) == len(branches) and all(isinstance(c, str) for c in consts):
        return f"must be one of: {_list_values(consts)}"
    return "does not match any of the allowed options"


def _is_json_type(name: str, value: Any) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "array":
        return _is_array(value)
    if name == "object":
        return isinstance(value, Mapping)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return name == "number" or isinstance(value, int) or value.is_integer()


def _type_text(expected: Any) -> str:
    names = [expected] if isinstance(expected, str) else list(expected)
    known = [name for name in names if name in _JSON_TYPES]
    return " or ".join(f"{'an' if name[0] in 'aeiou' else 'a'} {name}" for name in known)


def _json_equal(left: Any, right: Any, depth: int = 0) -> bool:
    """JSON equality: true is not 1, 1 equals 1.0; too deep to compare counts as different."""
    if depth > MAX_JSON_DEPTH:
        return False
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if left is None or right is None:
        return left is None and right is None
    if _is_array(left) and _is_array(right):
        return len(left) == len(right) and all(
            _json_equal(a, b, depth + 1) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(
            _json_equal(left[key], right[key], depth + 1) for key in left
        )
    return False


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
