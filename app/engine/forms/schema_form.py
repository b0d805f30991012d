"""Elicitation `requestedSchema` turned into typed form fields (`form_model.FormSpec`).

The elicitation schema is a flat subset of JSON Schema (protocol reference §2.8). `parse_schema`
turns it into frozen `FieldSpec`s that the headless prompts and the TUI form share. A schema outside
the subset raises `UnsupportedSchema`, and callers fall back to a raw JSON editor checked by
`json_answer.validate_json_answer`; typed answers are checked by `form_answers`.

Titles, descriptions and choice titles are raw server text: render them through
`app.engine.safety.sanitize`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.engine.forms.checks import (
    RUN_PATTERN_SECONDS,
    TEXT_KINDS,
    UNCHECKED,
    PatternBudget,
    compile_pattern,
    count_keyword,
    finite_number,
    is_array,
    value_problem,
)
from app.engine.forms.model import Choice, FieldSpec, FormSpec

MAX_FIELDS = 200
"""More fields than this is not a form a person fills in; such schemas go to the JSON editor."""
MAX_CHOICES = 1000
"""More options than this does not fit a picker; such schemas go to the JSON editor."""


_OVER_BUDGET = f"{UNCHECKED}the form's patterns took over {RUN_PATTERN_SECONDS} s to check"


class UnsupportedSchema(ValueError):
    """The schema is outside the elicitation subset; the message says why (fall back to JSON)."""


def parse_schema(schema: Any) -> FormSpec:
    """Turn a `requestedSchema` into a FormSpec, or raise UnsupportedSchema (and nothing else).

    Malformed annotations (titles, bounds, enumNames, defaults) are ignored rather than rejected.
    Patterns and defaults share one PatternBudget, so a hostile schema cannot stall the parse.
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
    budget = PatternBudget()
    for name, prop in properties.items():
        if not isinstance(name, str):
            raise UnsupportedSchema(f"a property name is {_describe(name)}, not a string")
        fields.append(_parse_field(name, prop, name in required, budget))
    return FormSpec(tuple(fields))


def _required_names(required: Any) -> frozenset[str]:
    if required is None:
        return frozenset()
    if not is_array(required) or not all(isinstance(name, str) for name in required):
        raise UnsupportedSchema("required must be a list of property names")
    return frozenset(required)


def _parse_field(name: str, prop: Any, required: bool, budget: PatternBudget) -> FieldSpec:
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
        spec = _parse_string(base, prop, budget)
    elif kind == "number" or kind == "integer":
        spec = replace(
            base,
            kind="integer" if kind == "integer" else "number",
            minimum=finite_number(prop.get("minimum")),
            maximum=finite_number(prop.get("maximum")),
        )
    elif kind == "boolean":
        spec = replace(base, kind="boolean")
    elif kind == "object":
        raise UnsupportedSchema(f"field {_describe(name)}: nested objects are not supported")
    else:
        raise UnsupportedSchema(f"field {_describe(name)}: unsupported type {_describe(kind)}")
    return _with_default(spec, prop.get("default"), budget)


def _parse_string(base: FieldSpec, prop: Mapping[str, Any], budget: PatternBudget) -> FieldSpec:
    fmt = prop.get("format")
    kind = TEXT_KINDS.get(fmt, "text") if isinstance(fmt, str) else "text"
    pattern = prop.get("pattern") if isinstance(prop.get("pattern"), str) else None
    return replace(
        base,
        kind=kind,
        min_length=count_keyword(prop.get("minLength")),
        max_length=count_keyword(prop.get("maxLength")),
        pattern=pattern,
        pattern_error=_pattern_error(pattern, budget),
    )


def _pattern_error(pattern: str | None, budget: PatternBudget) -> str | None:
    """Why the field's pattern will not be checked, or None when it will (or there is none)."""
    if pattern is None:
        return None
    if budget.spent():
        return _OVER_BUDGET
    compiled = compile_pattern(pattern)
    return compiled if isinstance(compiled, str) else None


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
        min_items=count_keyword(prop.get("minItems")),
        max_items=count_keyword(prop.get("maxItems")),
    )


def _titled_options(name: str, options: Any, where: str) -> tuple[Choice, ...]:
    if not is_array(options) or not options:
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
    if not is_array(values) or not values or not all(isinstance(v, str) for v in values):
        raise UnsupportedSchema(
            f"field {_describe(name)}: enum must be a non-empty list of strings"
        )
    _check_choice_count(name, len(values))
    titles = (
        names
        if is_array(names) and len(names) == len(values) and all(isinstance(t, str) for t in names)
        else values
    )
    return tuple(Choice(value, title or value) for value, title in zip(values, titles, strict=True))


def _check_choice_count(name: str, count: int) -> None:
    if count > MAX_CHOICES:
        raise UnsupportedSchema(
            f"field {_describe(name)}: too many options ({count}; at most {MAX_CHOICES})"
        )


def _with_default(spec: FieldSpec, default: Any, budget: PatternBudget) -> FieldSpec:
    """Attach the server's default if it is a valid value of the field; a bad default is dropped.

    A default past the form's pattern budget leaves the field's pattern unchecked, said on it.
    """
    if default is None:
        return spec
    if (
        spec.pattern is not None
        and spec.pattern_error is None
        and isinstance(default, str)
        and budget.spent()
    ):
        spec = replace(spec, pattern_error=_OVER_BUDGET)
    if spec.kind == "integer" and isinstance(default, float) and default.is_integer():
        default = int(default)
    if spec.kind == "multi":
        if not is_array(default):
            return spec
        default = tuple(default)
    if value_problem(spec, default) is not None:
        return spec
    return replace(spec, default=default)


def _annotation(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _describe(value: Any) -> str:
    """A short description of a JSON value for messages (never the repr of a big structure)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:40]) + "…"
    if value is None or isinstance(value, bool | int | float):
        text = repr(value)
        return text if len(text) <= 40 else text[:40] + "…"
    if isinstance(value, Mapping):
        return "an object"
    if is_array(value):
        return "a list"
    return f"a {type(value).__name__}"
