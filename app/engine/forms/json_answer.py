"""The JSON editor's check: free-form JSON content against any schema, with a small, careful
JSON Schema subset and bounded work (a hostile schema cannot make it spin).

The fallback for schemas outside the elicitation form subset (`schema_form.UnsupportedSchema`) and
for scripted answers; keyword checks are shared with the form through `form_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.engine.forms.checks import (
    TEXT_KINDS,
    PatternBudget,
    bounds_problem,
    count_keyword,
    finite_number,
    format_problem,
    is_array,
    list_values,
    number_text,
    pattern_problem,
    plural,
)

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

    def __init__(self, budget: PatternBudget | None = None) -> None:
        self.errors: list[str] = []
        self.steps = 0
        self.budget = PatternBudget() if budget is None else budget

    def fail(self, path: str, reason: str) -> None:
        if len(self.errors) < MAX_JSON_ERRORS:
            self.errors.append(f"{path or 'answer'}: {reason}")

    def passes(self, schema: Any, value: Any, path: str, depth: int) -> bool:
        """Whether `value` matches `schema`, without recording errors (for anyOf/oneOf branches)."""
        branch = _JsonChecker(self.budget)
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
        elif is_array(value):
            self._check_array(schema, value, path, depth)
        elif isinstance(value, Mapping):
            self._check_object(schema, value, path, depth)
        self._check_combinators(schema, value, path, depth)

    @staticmethod
    def _type_matches(expected: Any, value: Any) -> bool:
        names = [expected] if isinstance(expected, str) else expected if is_array(expected) else []
        known = [name for name in names if name in _JSON_TYPES]
        return not known or any(_is_json_type(name, value) for name in known)

    def _check_values(self, schema: Mapping[str, Any], value: Any, path: str) -> None:
        enum = schema.get("enum")
        if is_array(enum) and not any(_json_equal(value, option) for option in enum):
            allowed = [option for option in enum if isinstance(option, str)]
            self.fail(
                path,
                f"must be one of: {list_values(allowed)}" if allowed else "not an allowed value",
            )
        if "const" in schema and not _json_equal(value, schema["const"]):
            self.fail(path, "not the allowed value")

    def _check_string(self, schema: Mapping[str, Any], value: str, path: str) -> None:
        min_length, max_length = (
            count_keyword(schema.get("minLength")),
            count_keyword(schema.get("maxLength")),
        )
        if min_length is not None and len(value) < min_length:
            self.fail(path, f"must be at least {plural(min_length, 'character')}")
        if max_length is not None and len(value) > max_length:
            self.fail(path, f"must be at most {plural(max_length, 'character')}")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            problem = pattern_problem(pattern, value, self.budget)
            if problem is not None:
                self.fail(path, problem)
        fmt = schema.get("format")
        if isinstance(fmt, str):
            problem = format_problem(TEXT_KINDS.get(fmt, "text"), value)
            if problem is not None:
                self.fail(path, problem)

    def _check_number(self, schema: Mapping[str, Any], value: int | float, path: str) -> None:
        problem = bounds_problem(
            finite_number(schema.get("minimum")), finite_number(schema.get("maximum")), value
        )
        if problem is not None:
            self.fail(path, problem)
        low = finite_number(schema.get("exclusiveMinimum"))
        if low is not None and value <= low:
            self.fail(path, f"must be greater than {number_text(low)}")
        high = finite_number(schema.get("exclusiveMaximum"))
        if high is not None and value >= high:
            self.fail(path, f"must be less than {number_text(high)}")

    def _check_array(
        self, schema: Mapping[str, Any], value: Sequence[Any], path: str, depth: int
    ) -> None:
        min_items, max_items = (
            count_keyword(schema.get("minItems")),
            count_keyword(schema.get("maxItems")),
        )
        if min_items is not None and len(value) < min_items:
            self.fail(path, f"needs at least {plural(min_items, 'item')}")
        if max_items is not None and len(value) > max_items:
            self.fail(path, f"allows at most {plural(max_items, 'item')}")
        items = schema.get("items")
        if isinstance(items, Mapping | bool):
            for index, item in enumerate(value):
                self.check(items, item, f"{path or 'answer'}[{index}]", depth + 1)

    def _check_object(
        self, schema: Mapping[str, Any], value: Mapping[Any, Any], path: str, depth: int
    ) -> None:
        required = schema.get("required")
        if is_array(required):
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
        if is_array(all_of):
            for branch in all_of:
                self.check(branch, value, path, depth + 1)
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if not is_array(branches) or not branches:
                continue
            matched = sum(1 for branch in branches if self.passes(branch, value, path, depth + 1))
            if matched == 0:
                self.fail(path, _no_branch_reason(branches))
            elif keyword == "oneOf" and matched > 1:
                self.fail(path, "matches more than one of the allowed options")


def _no_branch_reason(branches: Sequence[Any]) -> str:
    consts = [b.get("const") for b in branches if isinstance(b, Mapping)]
    if consts and len(consts) == len(branches) and all(isinstance(c, str) for c in consts):
        return f"must be one of: {list_values(consts)}"
    return "does not match any of the allowed options"


def _is_json_type(name: str, value: Any) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "array":
        return is_array(value)
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
    if is_array(left) and is_array(right):
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
