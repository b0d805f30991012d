"""The typed form an elicitation `requestedSchema` becomes: fields, their kinds and choices.

`schema_form.parse_schema` builds it; `form_answers` turns typed input into values for it; both
faces render it. Titles, descriptions and choice titles are raw server text: render them through
`app.engine.safety.sanitize`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

FieldKind = Literal[
    "text", "email", "uri", "date", "datetime", "number", "integer", "boolean", "choice", "multi"
]


@dataclass(frozen=True)
class Choice:
    """One option of a single- or multi-select field: the value sent and the title shown."""

    value: str
    title: str


@dataclass(frozen=True)
class FieldSpec:
    """One typed form field. Constraints that do not apply to the kind stay None.

    `default` is already a valid value of the field (a tuple for multi-selects) or None.
    `pattern_error` ("pattern could not be checked: …") is set when RE2 cannot take the server's
    `pattern` (syntax, length, size) or the form's pattern budget is spent; such a pattern is not
    enforced, so the answer can still be sent, and the UI shows the reason beside the field.
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
