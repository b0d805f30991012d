"""Elicitation schemas to typed fields, coercion of typed answers, and the JSON-editor validator."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.forms.answers import FieldError, coerce_field, default_content, validate_answer
from app.engine.forms.checks import MAX_PATTERN_INPUT
from app.engine.forms.json_answer import validate_json_answer
from app.engine.forms.model import Choice, FieldSpec, FormSpec
from app.engine.forms.schema_form import MAX_FIELDS, UnsupportedSchema, parse_schema


def one_field(prop: dict[str, Any], *, required: bool = True) -> FieldSpec:
    schema: dict[str, Any] = {"type": "object", "properties": {"f": prop}}
    if required:
        schema["required"] = ["f"]
    return parse_schema(schema).fields[0]


def reason(field: FieldSpec, raw: str | list[str] | bool | None) -> str:
    with pytest.raises(FieldError) as caught:
        coerce_field(field, raw)
    assert caught.value.field == field.name
    return caught.value.reason


# --- parsing --------------------------------------------------------------------------------------

FULL_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Your name",
            "description": "As on your passport",
            "minLength": 2,
            "maxLength": 20,
            "pattern": "^[A-Za-z ]+$",
            "default": "Ada",
        },
        "mail": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "when": {"type": "string", "format": "date-time"},
        "score": {"type": "number", "minimum": 0, "maximum": 1.5, "default": 0.5},
        "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3.0},
        "ok": {"type": "boolean", "default": True},
        "colour": {"type": "string", "enum": ["red", "green"], "default": "green"},
        "size": {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
        },
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["x", "y", "z"]},
            "minItems": 1,
            "maxItems": 2,
            "default": ["x"],
        },
        "pets": {
            "type": "array",
            "items": {
                "anyOf": [{"const": "cat", "title": "Cat"}, {"const": "dog", "title": "Dog"}]
            },
        },
    },
    "required": ["name", "count", "tags"],
}


def test_every_primitive_parses_to_its_kind() -> None:
    fields = {field.name: field for field in parse_schema(FULL_SCHEMA).fields}
    assert [f.name for f in parse_schema(FULL_SCHEMA).fields] == list(FULL_SCHEMA["properties"])
    assert {name: field.kind for name, field in fields.items()} == {
        "name": "text",
        "mail": "email",
        "site": "uri",
        "born": "date",
        "when": "datetime",
        "score": "number",
        "count": "integer",
        "ok": "boolean",
        "colour": "choice",
        "size": "choice",
        "legacy": "choice",
        "tags": "multi",
        "pets": "multi",
    }
    assert fields["name"] == FieldSpec(
        name="name",
        kind="text",
        title="Your name",
        description="As on your passport",
        required=True,
        default="Ada",
        min_length=2,
        max_length=20,
        pattern="^[A-Za-z ]+$",
    )
    assert fields["mail"].title == "mail"
    assert not fields["mail"].required
    assert (fields["score"].minimum, fields["score"].maximum) == (0, 1.5)
    assert fields["count"].default == 3
    assert fields["size"].choices == (Choice("s", "Small"), Choice("l", "Large"))
    assert fields["legacy"].choices == (Choice("a", "Alpha"), Choice("b", "Beta"))
    assert fields["colour"].choices == (Choice("red", "red"), Choice("green", "green"))
    assert (fields["tags"].min_items, fields["tags"].max_items) == (1, 2)
    assert fields["pets"].choices == (Choice("cat", "Cat"), Choice("dog", "Dog"))


def test_default_content_holds_valid_defaults_only() -> None:
    spec = parse_schema(FULL_SCHEMA)
    content = default_content(spec)
    assert content == {
        "name": "Ada",
        "score": 0.5,
        "count": 3,
        "ok": True,
        "colour": "green",
        "tags": ["x"],
    }
    assert validate_answer(spec, content | {"tags": ["x", "y"]}) == {}


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "default": 5},
        {"type": "string", "minLength": 3, "default": "ab"},
        {"type": "integer", "default": 2.5},
        {"type": "integer", "maximum": 3, "default": 4},
        {"type": "number", "default": True},
        {"type": "boolean", "default": "yes"},
        {"type": "string", "enum": ["a"], "default": "b"},
        {"type": "array", "items": {"enum": ["a"]}, "default": ["a", "b"]},
        {"type": "array", "items": {"enum": ["a"]}, "default": "a"},
        {"type": "string", "format": "email", "default": "not-mail"},
    ],
)
def test_bad_defaults_are_dropped(prop: dict[str, Any]) -> None:
    assert one_field(prop).default is None


def test_malformed_annotations_are_ignored() -> None:
    field = one_field(
        {
            "type": "string",
            "title": 7,
            "description": ["x"],
            "minLength": -1,
            "maxLength": "9",
            "pattern": 3,
        }
    )
    assert (field.title, field.description, field.min_length, field.max_length) == (
        "f",
        None,
        None,
        None,
    )
    assert field.pattern is None
    names = one_field({"type": "string", "enum": ["a", "b"], "enumNames": ["only one"]})
    assert names.choices == (Choice("a", "a"), Choice("b", "b"))
    numbers = one_field({"type": "number", "minimum": "0", "maximum": float("inf")})
    assert (numbers.minimum, numbers.maximum) == (None, None)


def test_required_names_of_missing_fields_are_ignored() -> None:
    spec = parse_schema(
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"]}
    )
    assert [(f.name, f.required) for f in spec.fields] == [("a", True)]


def test_empty_and_property_less_schemas_make_empty_forms() -> None:
    assert parse_schema({"type": "object", "properties": {}}) == FormSpec(())
    assert parse_schema({"type": "object"}) == FormSpec(())


def test_titles_with_escape_sequences_are_kept_raw_for_the_renderer() -> None:
    field = one_field({"type": "string", "title": "\x1b]52;c;aGk=\x07Name\u202e"})
    assert field.title == "\x1b]52;c;aGk=\x07Name\u202e"


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        (None, "must be an object"),
        ([], "must be an object"),
        ({"type": "array"}, "type must be"),
        ({"type": ["object", "null"]}, "type must be"),
        ({"type": "object", "properties": []}, "properties must be"),
        ({"type": "object", "properties": {"a": "string"}}, "not an object"),
        ({"type": "object", "properties": {"a": {"type": "object"}}}, "nested objects"),
        ({"type": "object", "properties": {"a": {"type": "null"}}}, "unsupported type"),
        ({"type": "object", "properties": {"a": {}}}, "unsupported type"),
        ({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, "unsupported"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": []}}}, "enum"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}}, "enum"),
        ({"type": "object", "properties": {"a": {"type": "string", "oneOf": [{"t": 1}]}}}, "const"),
        ({"type": "object", "properties": {"a": {"type": "array"}}}, "items"),
        ({"type": "object", "properties": {"a": {"type": "array", "items": {}}}}, "multi-select"),
        (
            {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "number"}}}},
            "multi-select",
        ),
        ({"type": "object", "properties": {}, "required": "a"}, "required"),
        ({"type": "object", "properties": {}, "required": [1]}, "required"),
        ({"type": "object", "properties": {1: {"type": "string"}}}, "property name"),
    ],
)
def test_schemas_outside_the_subset_are_unsupported(schema: Any, why: str) -> None:
    with pytest.raises(UnsupportedSchema, match=why):
        parse_schema(schema)


def test_huge_forms_and_option_lists_are_unsupported() -> None:
    many = {f"f{i}": {"type": "string"} for i in range(MAX_FIELDS + 1)}
    with pytest.raises(UnsupportedSchema, match="too many fields"):
        parse_schema({"type": "object", "properties": many})
    assert (
        len(
            parse_schema(
                {"type": "object", "properties": dict(list(many.items())[:MAX_FIELDS])}
            ).fields
        )
        == MAX_FIELDS
    )
    options = [str(i) for i in range(5000)]
    with pytest.raises(UnsupportedSchema, match="too many options"):
        one_field({"type": "string", "enum": options})


# --- coercion -------------------------------------------------------------------------------------


def test_text_lengths_and_pattern() -> None:
    field = one_field({"type": "string", "minLength": 3, "maxLength": 5, "pattern": "^[a-z]+$"})
    assert coerce_field(field, "abcd") == "abcd"
    assert reason(field, "ab") == "must be at least 3 characters"
    assert reason(field, "abcdef") == "must be at most 5 characters"
    assert reason(field, "ABC").startswith("does not match the required pattern")
    assert reason(field, "") == "this field is required"
    assert reason(field, None) == "this field is required"
    assert reason(field, ["abc"]) == "expected a single text value"


def test_bad_patterns_are_reported_on_the_field_and_not_enforced() -> None:
    field = one_field({"type": "string", "pattern": "([a-z"})
    assert field.pattern_error is not None
    assert "not a valid regular expression" in field.pattern_error
    assert coerce_field(field, "anything") == "anything"
    too_long = one_field({"type": "string", "pattern": "a" * 5000})
    assert too_long.pattern_error is not None
    assert coerce_field(too_long, "b") == "b"


def test_pattern_checks_refuse_very_long_input() -> None:
    field = one_field({"type": "string", "pattern": "^(a+)+$"})
    assert coerce_field(field, "a" * 100) == "a" * 100
    assert reason(field, "a" * (MAX_PATTERN_INPUT + 1)).startswith("too long to check")


@pytest.mark.parametrize("good", ["ada@example.com", "a.b+c@sub.example.org", " x@y.io "])
def test_email_accepts(good: str) -> None:
    assert coerce_field(one_field({"type": "string", "format": "email"}), good) == good.strip()


@pytest.mark.parametrize(
    "bad", ["ada", "ada@", "@example.com", "a@b", "a b@c.de", "a@b..c", "a@@b.c"]
)
def test_email_rejects(bad: str) -> None:
    assert reason(one_field({"type": "string", "format": "email"}), bad) == (
        "not a valid e-mail address"
    )


@pytest.mark.parametrize(
    "good", ["https://example.com/x?y=1", "mailto:a@b.c", "urn:isbn:0451450523", "file:///tmp/x"]
)
def test_uri_accepts(good: str) -> None:
    assert coerce_field(one_field({"type": "string", "format": "uri"}), good) == good


@pytest.mark.parametrize(
    "bad", ["example.com", "/relative/path", "https://", "http://a b", "1http:x"]
)
def test_uri_rejects(bad: str) -> None:
    assert reason(one_field({"type": "string", "format": "uri"}), bad).startswith("not a valid URI")


def test_dates_must_be_real_iso_dates() -> None:
    field = one_field({"type": "string", "format": "date"})
    assert coerce_field(field, "2024-02-29") == "2024-02-29"
    for bad in [
        "2023-02-29",
        "2024-13-01",
        "20240229",
        "2024-2-9",
        "29/02/2024",
        "\uff12\uff10\uff12\uff14-01-01",
    ]:
        assert reason(field, bad) == "not a real date (use YYYY-MM-DD)"


def test_date_times_need_a_zone_and_are_normalised() -> None:
    field = one_field({"type": "string", "format": "date-time"})
    assert coerce_field(field, "2025-11-25T10:30:00Z") == "2025-11-25T10:30:00Z"
    assert coerce_field(field, "2025-11-25T10:30:00.123+02:00") == "2025-11-25T10:30:00.123+02:00"
    assert coerce_field(field, "2025-11-25 10:30z") == "2025-11-25T10:30:00Z"
    for bad in ["2025-11-25T10:30:00", "2025-11-25", "2025-11-25T25:00:00Z", "yesterday"]:
        assert reason(field, bad).startswith("not a valid date-time")


def test_integers() -> None:
    field = one_field({"type": "integer", "minimum": -5, "maximum": 10})
    assert coerce_field(field, " 7 ") == 7
    assert coerce_field(field, "-5") == -5
    assert reason(field, "2.5") == "must be a whole number"
    assert reason(field, "1e3") == "must be a whole number"
    assert reason(field, "11") == "must be at most 10"
    assert reason(field, "-6") == "must be at least -5"
    assert reason(field, "9" * 5000) == "the number is too long"
    assert reason(field, "") == "this field is required"


def test_numbers() -> None:
    field = one_field({"type": "number", "maximum": 2000})
    assert coerce_field(field, "2.5") == 2.5
    assert coerce_field(field, "1e3") == 1000.0
    assert coerce_field(field, ".5") == 0.5
    assert coerce_field(field, "3") == 3
    for bad in ["inf", "nan", "1_000", "0x10", "two", "1e3.5"]:
        assert reason(field, bad) == "not a number"
    assert reason(field, "1e999") == "the number is too large"
    assert reason(field, "2001") == "must be at most 2000"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        *[("true", True), ("Yes", True), ("y", True), ("1", True), (True, True)],
        *[("false", False), ("NO", False), ("n", False), ("0", False), (False, False)],
    ],
)
def test_booleans(typed: str | bool, expected: bool) -> None:
    assert coerce_field(one_field({"type": "boolean"}), typed) is expected


def test_boolean_rejects_other_words() -> None:
    assert reason(one_field({"type": "boolean"}), "maybe").startswith("answer yes or no")


def test_choices_accept_values_and_titles_case_insensitively() -> None:
    field = one_field(
        {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
        }
    )
    assert coerce_field(field, "s") == "s"
    assert coerce_field(field, "Large") == "l"
    assert coerce_field(field, " small ") == "s"
    assert coerce_field(field, "L") == "l"
    assert reason(field, "medium") == "must be one of: Small, Large"


def test_exact_matches_win_and_ambiguity_is_reported() -> None:
    exact = one_field(
        {"type": "string", "oneOf": [{"const": "a", "title": "B"}, {"const": "b", "title": "A"}]}
    )
    assert coerce_field(exact, "a") == "a"
    assert coerce_field(exact, "A") == "b"
    ambiguous = one_field(
        {
            "type": "string",
            "oneOf": [{"const": "x", "title": "Same"}, {"const": "y", "title": "same"}],
        }
    )
    assert reason(ambiguous, "SAME") == "ambiguous: matches x, y"


def test_multi_select() -> None:
    field = one_field(
        {
            "type": "array",
            "items": {"anyOf": [{"const": c, "title": c.upper()} for c in "abcd"]},
            "minItems": 2,
            "maxItems": 3,
        }
    )
    assert coerce_field(field, ["a", "C"]) == ["a", "c"]
    assert coerce_field(field, "a, b, a") == ["a", "b"]
    assert reason(field, ["a"]) == "select at least 2 options"
    assert reason(field, "a,b,c,d") == "select at most 3 options"
    assert reason(field, ["a", "e"]) == "must be one of: A, B, C, D"
    assert reason(field, []) == "select at least 2 options"
    assert reason(field, True) == "expected a list of options"


def test_optional_fields_left_empty_are_omitted() -> None:
    prop_list: list[dict[str, Any]] = [
        {"type": "string", "minLength": 3},
        {"type": "string", "format": "email"},
        {"type": "integer", "minimum": 5},
        {"type": "boolean"},
        {"type": "string", "enum": ["a"]},
        {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1},
    ]
    for prop in prop_list:
        field = one_field(prop, required=False)
        for empty in ("", "   ", None, []):
            if empty == "   " and field.kind == "text":
                continue  # spaces are a real answer to a free-text field
            if isinstance(empty, list) and field.kind != "multi":
                continue
            assert coerce_field(field, empty) is None, (prop, empty)


def test_required_multi_without_min_items_accepts_an_empty_selection() -> None:
    field = one_field({"type": "array", "items": {"enum": ["a", "b"]}})
    assert coerce_field(field, []) == []


# --- whole answers --------------------------------------------------------------------------------


def test_a_form_of_only_optional_fields_accepts_nothing() -> None:
    spec = parse_schema(
        {
            "type": "object",
            "properties": {
                "note": {"type": "string"},
                "tags": {"type": "array", "items": {"enum": ["a"]}, "minItems": 1},
            },
        }
    )
    assert validate_answer(spec, {}) == {}


def test_validate_answer_reports_each_field() -> None:
    spec = parse_schema(FULL_SCHEMA)
    errors = validate_answer(
        spec,
        {
            "count": True,
            "score": 2,
            "ok": "yes",
            "colour": "blue",
            "tags": ["x", "q"],
            "when": "2025-01-01",
            "extra": 1,
        },
    )
    assert errors == {
        "name": "this field is required",
        "count": "must be a number",
        "score": "must be at most 1.5",
        "ok": "must be true or false",
        "colour": "must be one of: red, green",
        "tags": "not an option: q",
        "when": "not a valid date-time (use YYYY-MM-DDTHH:MM:SS with Z or ±HH:MM)",
        "extra": "not a field of this form",
    }
    assert validate_answer(spec, {"name": "Bob", "count": 4.0, "tags": ["y"]}) == {}


# --- the JSON fallback ----------------------------------------------------------------------------


def test_json_answer_against_the_subset() -> None:
    assert validate_json_answer(FULL_SCHEMA, {"name": "Ada", "count": 2, "tags": ["x"]}) == []
    errors = validate_json_answer(
        FULL_SCHEMA, {"name": "A", "count": "2", "tags": [], "pets": ["cow"], "mail": "nope"}
    )
    assert errors == [
        "name: must be at least 2 characters",
        "count: must be an integer",
        "tags: needs at least 1 item",
        "pets[0]: must be one of: cat, dog",
        "mail: not a valid e-mail address",
    ]
    assert validate_json_answer(FULL_SCHEMA, ["not", "an", "object"]) == [
        "answer: must be an object"
    ]


def test_json_answer_against_general_json_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "server": {
                "type": "object",
                "properties": {"port": {"type": "integer", "exclusiveMinimum": 0}},
                "required": ["port"],
                "additionalProperties": False,
            },
            "mode": {"enum": ["fast", 1, None]},
            "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "number"}]},
        },
    }
    assert validate_json_answer(schema, {"server": {"port": 80}, "mode": None}) == []
    assert validate_json_answer(schema, {"server": {"port": 0, "x": 1}, "mode": True}) == [
        "server.port: must be greater than 0",
        "server.x: not a field of this form",
        "mode: must be one of: fast",
    ]
    assert validate_json_answer(schema, {"server": {}, "pick": 3}) == [
        "server.port: this field is required",
        "pick: matches more than one of the allowed options",
    ]


@pytest.mark.parametrize(
    "schema",
    [None, True, {}, [], 3, "string", {"type": "nonsense"}, {"type": 5, "enum": "x", "items": 3}],
)
def test_json_answer_ignores_weird_schemas(schema: Any) -> None:
    assert validate_json_answer(schema, {"anything": [1, {"x": None}]}) == []


def test_json_answer_rejects_under_a_false_schema() -> None:
    assert validate_json_answer({"properties": {"a": False}}, {"a": 1}) == [
        "a: no value is allowed here"
    ]


def test_json_answer_bounds_deep_and_explosive_schemas() -> None:
    deep: Any = {"type": "string"}
    nested: Any = "x"
    for _ in range(200):
        deep = {"type": "array", "items": deep}
        nested = [nested]
    assert validate_json_answer(deep, nested) == [
        "answer" + "[0]" * 33 + ": the schema is too complex to check"
    ]
    explosive: Any = {"type": "integer"}
    for _ in range(30):
        explosive = {"anyOf": [explosive, explosive, {"type": "string"}]}
    assert validate_json_answer(explosive, 1.5) != []


def test_json_equality_keeps_true_and_one_apart() -> None:
    assert validate_json_answer({"enum": [1]}, True) == ["answer: not an allowed value"]
    assert validate_json_answer({"const": True}, 1) == ["answer: not the allowed value"]
    assert validate_json_answer({"enum": [1]}, 1.0) == []


# --- properties -----------------------------------------------------------------------------------

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
KEYWORDS = st.sampled_from(
    [
        "type", "title", "description", "default", "enum", "enumNames", "oneOf", "anyOf", "const",
        "items", "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "minItems",
        "maxItems", "required", "properties",
    ]
)  # fmt: skip
SCHEMA_VALUES = (
    st.sampled_from(
        [
            *["string", "number", "integer", "boolean", "array", "object"],
            *["email", "uri", "date", "date-time", "(", "^a+$", "x"],
        ]
    )
    | JSON_VALUES
)
PROPERTY_SCHEMAS = st.dictionaries(KEYWORDS, SCHEMA_VALUES, max_size=6) | JSON_VALUES
SCHEMAS = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(st.text(max_size=5), PROPERTY_SCHEMAS),
    },
    optional={"required": st.lists(st.text(max_size=5)) | JSON_VALUES},
)


def assert_defaults_are_valid(spec: FormSpec) -> None:
    """default_content passes validation except for required fields that have no default."""
    missing = {
        f.name: "this field is required" for f in spec.fields if f.required and f.default is None
    }
    assert validate_answer(spec, default_content(spec)) == missing


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES | SCHEMAS)
def test_parse_schema_only_ever_raises_unsupported_schema(schema: Any) -> None:
    try:
        spec = parse_schema(schema)
    except UnsupportedSchema:
        return
    assert_defaults_are_valid(spec)


COUNTS = st.none() | st.integers(min_value=0, max_value=4)
BOUNDS = st.none() | st.integers(min_value=-50, max_value=50) | st.floats(-50, 50)
OPTION_VALUES = st.lists(st.sampled_from(["a", "b", "B", "c d", "1", ""]), min_size=1, unique=True)


def without_none(**keywords: Any) -> dict[str, Any]:
    return {key: value for key, value in keywords.items() if value is not None}


@st.composite
def subset_properties(draw: st.DrawFn) -> dict[str, Any]:
    """A property inside the elicitation subset, with random constraints and a random default."""
    kind = draw(st.sampled_from(["text", "number", "boolean", "choice", "multi"]))
    default = draw(st.none() | JSON_LEAVES | st.lists(st.sampled_from(["a", "b", "x"])))
    if kind == "text":
        prop = without_none(
            type="string",
            minLength=draw(COUNTS),
            maxLength=draw(COUNTS),
            format=draw(st.none() | st.sampled_from(["email", "uri", "date", "date-time", "x"])),
            pattern=draw(st.none() | st.sampled_from(["^[a-z]*$", "b", "(", "\\d{4}"])),
        )
    elif kind == "number":
        prop = without_none(
            type=draw(st.sampled_from(["number", "integer"])),
            minimum=draw(BOUNDS),
            maximum=draw(BOUNDS),
        )
    elif kind == "boolean":
        prop = {"type": "boolean"}
    else:
        values = draw(OPTION_VALUES)
        titled = [{"const": v, "title": draw(st.sampled_from(["A", "b", v, "T"]))} for v in values]
        if kind == "choice":
            prop = draw(
                st.sampled_from(
                    [
                        {"type": "string", "enum": values},
                        {"type": "string", "oneOf": titled},
                        {
                            "type": "string",
                            "enum": values,
                            "enumNames": [t["title"] for t in titled],
                        },
                    ]
                )
            )
        else:
            items = draw(st.sampled_from([{"type": "string", "enum": values}, {"anyOf": titled}]))
            prop = without_none(
                type="array", items=items, minItems=draw(COUNTS), maxItems=draw(COUNTS)
            )
    return prop if default is None else prop | {"default": default}


SUBSET_SCHEMAS = st.dictionaries(
    st.sampled_from("pqrstu"), subset_properties(), max_size=4
).flatmap(
    lambda properties: st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.just(properties),
            "required": st.lists(st.sampled_from([*properties, "ghost"]), unique=True),
        }
    )
)
TYPED_TEXT = st.sampled_from(
    [
        *["", " ", "a", "b", "B", "c d", "T", "1", "0", "-3", "2.5", "1e3", "yes", "n", "a, b"],
        *["x@example.com", "https://e.org", "2024-02-29", "2025-01-01 10:00Z", "12345", "abcd"],
    ]
) | st.text(max_size=12)
RAW_INPUTS = st.none() | st.booleans() | TYPED_TEXT | st.lists(TYPED_TEXT, max_size=4)


def raw_inputs_for(field: FieldSpec) -> st.SearchStrategy[Any]:
    """Mostly plausible answers for the field's kind, sometimes anything at all."""
    if field.kind in ("choice", "multi"):
        names = st.sampled_from([c.value for c in field.choices] + [c.title for c in field.choices])
        plausible: st.SearchStrategy[Any] = names | st.lists(names, max_size=4)
    elif field.kind in ("number", "integer"):
        plausible = st.integers(-60, 60).map(str) | st.floats(-60, 60).map(repr)
    elif field.kind == "boolean":
        plausible = st.booleans() | st.sampled_from(["yes", "N", "0"])
    else:
        plausible = st.sampled_from(["x@example.com", "https://e.org", "2024-02-29", "abcd"])
        plausible |= st.sampled_from(["2025-01-01 10:00Z", "b", "1234"]) | st.text(max_size=5)
    return plausible | RAW_INPUTS


@settings(max_examples=200, deadline=None)
@given(SUBSET_SCHEMAS, st.data())
def test_coerced_answers_validate_under_both_validators(
    schema: dict[str, Any], data: st.DataObject
) -> None:
    spec = parse_schema(schema)
    assert_defaults_are_valid(spec)
    content: dict[str, Any] = {}
    for field in spec.fields:
        try:
            value = coerce_field(field, data.draw(raw_inputs_for(field)))
        except FieldError as error:
            assert error.field == field.name
            assert error.reason
            continue
        if value is not None:
            content[field.name] = value
    complete = all(field.name in content for field in spec.fields if field.required)
    assert (validate_answer(spec, content) == {}) is complete
    known_required = [name for name in schema["required"] if name != "ghost"]
    assert (validate_json_answer(schema | {"required": known_required}, content) == []) is complete


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES | SCHEMAS | PROPERTY_SCHEMAS, JSON_VALUES)
def test_validate_json_answer_never_raises(schema: Any, content: Any) -> None:
    errors = validate_json_answer(schema, content)
    assert all(isinstance(error, str) for error in errors)
