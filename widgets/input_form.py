"""The elicitation form: a field widget per property of `requestedSchema`, checked before sending.

Parsing (`app.engine.forms.schema_form`), coercion and validation (`app.engine.forms.answers`)
come from the engine; this module only maps each `FieldSpec` to a widget, reads what was typed
back out, and shows each field's reason beside it.
Accept sends `{"action": "accept", "content": {...}}` only once every field is valid.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, SelectionList, Static

from app.engine.forms.answers import FieldError, coerce_field, default_content, validate_answer
from app.engine.forms.model import FieldSpec, FormSpec
from app.engine.safety.sanitize import clean_text, safe_text
from app.engine.tasks.models import InputRequest
from widgets.input_modal import AnswerModal, Submit
from widgets.toggles import MarkedCheckbox, MarkedSelectionList

RawValue = str | list[str] | bool | None
"""What a field widget holds: text, picked option values, a checkbox state, or nothing picked."""

PLACEHOLDERS: dict[str, str] = {
    "email": "name@example.com",
    "uri": "https://…",
    "date": "YYYY-MM-DD",
    "datetime": "YYYY-MM-DDTHH:MM:SSZ",
}

FORM_BUTTONS = [
    ("Accept", "input-accept", "primary"),
    ("Decline", "input-decline", "default"),
    ("Cancel", "input-cancel", "default"),
    ("Later", "input-later", "default"),
]
FORMAT_HINTS: dict[str, str] = {
    "email": "an e-mail address",
    "uri": "a URI with a scheme",
    "date": "a date, YYYY-MM-DD",
    "datetime": "a date and time, YYYY-MM-DDTHH:MM:SS with Z or +HH:MM",
}
FORM_KEYS = "tab next · enter/ctrl+s accept · space picks · esc later"


def field_hint(field: FieldSpec) -> str:
    """The field's constraints in words, e.g. "3 to 30 characters · pattern ^[a-z]+$"."""
    parts: list[str] = []
    if field.min_length is not None or field.max_length is not None:
        parts.append(_range_text(field.min_length, field.max_length, "characters"))
    if field.pattern is not None:
        parts.append(f"pattern {field.pattern}")
    if field.pattern_error is not None:
        parts.append(field.pattern_error)
    if field.kind in ("number", "integer"):
        word = "whole number" if field.kind == "integer" else "number"
        bounds = _range_text(field.minimum, field.maximum, "")
        parts.append(f"{word} {bounds}".strip())
    if field.kind in FORMAT_HINTS:
        parts.append(FORMAT_HINTS[field.kind])
    if field.kind == "multi":
        picks = _range_text(field.min_items, field.max_items, "options")
        parts.append(f"pick {picks}" if picks else "pick any")
    return " · ".join(parts)


def _range_text(low: float | None, high: float | None, unit: str) -> str:
    suffix = f" {unit}" if unit else ""
    if low is not None and high is not None:
        return f"{_number(low)} to {_number(high)}{suffix}"
    if low is not None:
        return f"at least {_number(low)}{suffix}"
    if high is not None:
        return f"at most {_number(high)}{suffix}"
    return ""


def _number(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def initial_raw(field: FieldSpec, value: Any) -> RawValue:
    """A JSON value (a default or a kept answer) as the raw value its widget starts with."""
    if value is None:
        empty: dict[str, RawValue] = {"boolean": False, "multi": [], "choice": None}
        return empty.get(field.kind, "")
    if field.kind == "boolean":
        return bool(value)
    if field.kind == "multi":
        return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
    if field.kind in ("number", "integer") and not isinstance(value, str):
        return json.dumps(value)
    return value if isinstance(value, str) else None


@dataclass
class FormField:
    """One rendered field: its spec, the widget holding its value, and its error line."""

    spec: FieldSpec
    widget: Widget
    error: Static

    def raw(self) -> RawValue:
        """What the user typed or picked, in the form `coerce_field` takes."""
        widget = self.widget
        if isinstance(widget, Input):
            return widget.value
        if isinstance(widget, Checkbox):
            return widget.value
        if isinstance(widget, SelectionList):
            return [str(value) for value in widget.selected]
        if isinstance(widget, Select):
            value = widget.value
            return value if isinstance(value, str) else None
        raise TypeError(f"no value reader for {type(widget).__name__}")

    def check(self) -> tuple[bool, Any]:
        """(True, value) when valid (None: leave the field out), else (False, None) with the
        reason shown beside the field."""
        try:
            value = coerce_field(self.spec, self.raw())
        except FieldError as problem:
            self.show_error(problem.reason)
            return False, None
        self.show_error(None)
        return True, value

    def show_error(self, reason: str | None) -> None:
        self.error.update(Text(f"✗ {clean_text(reason)}") if reason else "")
        self.error.display = reason is not None
        row = self.error.parent
        if row is not None:
            row.set_class(reason is not None, "-invalid")


def recheck_edited(fields: Iterable[FormField], control: object) -> None:
    """A field showing an error is re-checked as it is edited, so the mark clears once fixed."""
    for field in fields:
        if field.widget is control and field.error.display:
            field.check()


def checked_content(fields: Iterable[FormField]) -> dict[str, Any] | None:
    """Every field's checked value by name (empty ones left out), or None when a field is
    invalid: each shows its reason and the first one gets the focus."""
    content: dict[str, Any] = {}
    first_invalid: FormField | None = None
    for field in fields:
        valid, value = field.check()
        if not valid:
            first_invalid = first_invalid or field
        elif value is not None:
            content[field.spec.name] = value
    if first_invalid is not None:
        first_invalid.widget.focus()
        return None
    return content


def field_widget(field: FieldSpec, start: RawValue, widget_id: str) -> Widget:
    """The widget for one field kind, holding `start` (a default or a kept answer)."""
    if field.kind == "boolean":
        return MarkedCheckbox(safe_text(field.title), value=start is True, id=widget_id)
    if field.kind == "choice":
        options = [(safe_text(choice.title), choice.value) for choice in field.choices]
        picked = start if isinstance(start, str) else Select.NULL
        return Select(
            options,
            value=picked,
            allow_blank=not (field.required and isinstance(start, str)),
            prompt="(pick one)",
            id=widget_id,
        )
    if field.kind == "multi":
        chosen = set(start) if isinstance(start, list) else set()
        return MarkedSelectionList(
            *[
                (safe_text(choice.title), choice.value, choice.value in chosen)
                for choice in field.choices
            ],
            id=widget_id,
        )
    text = start if isinstance(start, str) else ""
    input_type = field.kind if field.kind in ("number", "integer") else "text"
    return Input(
        text,
        placeholder=PLACEHOLDERS.get(field.kind, ""),
        type=input_type,
        valid_empty=True,
        id=widget_id,
    )


class InputForm(AnswerModal):
    """The elicitation form modal for a schema in the subset (`app.engine.forms.schema_form`)."""

    def __init__(
        self,
        request: InputRequest,
        spec: FormSpec,
        submit: Submit,
        *,
        server: str = "",
        draft: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(request, submit, server=server)
        self.spec = spec
        defaults = default_content(spec)
        start = defaults
        if draft is not None:
            start = {name: value for name, value in draft.items() if isinstance(name, str)}
        self._start = {
            field.name: initial_raw(field, start.get(field.name)) for field in spec.fields
        }
        self._defaults = {
            field.name: initial_raw(field, defaults.get(field.name)) for field in spec.fields
        }
        """The fields as the schema fills them: a draft filled in again still differs from these,
        so putting it off once more keeps it."""
        self.fields: list[FormField] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="input-body", classes="input-form"):
            yield from self.compose_header()
            with VerticalScroll(id="form-fields", can_focus=False):
                for index, spec in enumerate(self.spec.fields):
                    yield from self._compose_field(index, spec)
            yield from self.compose_footer(FORM_BUTTONS, FORM_KEYS)

    def _compose_field(self, index: int, spec: FieldSpec) -> ComposeResult:
        with Vertical(classes="form-field"):
            mark = (" *", "bold $text-error") if spec.required else ""
            title = Content.assemble((clean_text(spec.title), "bold"), mark)
            yield Static(title, classes="field-title")
            if spec.description:
                yield Static(safe_text(spec.description), classes="field-description")
            hint = field_hint(spec)
            if hint:
                yield Static(safe_text(hint, style="dim"), classes="field-hint")
            widget = field_widget(spec, self._start[spec.name], f"field-{index}")
            error = Static("", classes="field-error")
            error.display = False
            self.fields.append(FormField(spec, widget, error))
            yield widget
            yield error

    def on_mount(self) -> None:
        if self.fields:
            self.fields[0].widget.focus()

    def accept_response(self) -> dict[str, Any] | None:
        content = checked_content(self.fields)
        if content is None:
            self.show_status("Some answers need fixing (see the marked fields).", error=True)
            return None
        problems = validate_answer(self.spec, content)
        if problems:
            reasons = "; ".join(f"{name}: {reason}" for name, reason in problems.items())
            self.show_status(clean_text(reasons, max_len=300), error=True)
            return None
        return {"action": "accept", "content": content}

    def is_dirty(self) -> bool:
        """Whether any field differs from the schema's defaults (a restored draft counts)."""
        return any(field.raw() != self._defaults[field.spec.name] for field in self.fields)

    def draft_response(self) -> dict[str, Any] | None:
        if not self.is_dirty():
            return None
        return {"action": "accept", "content": {f.spec.name: f.raw() for f in self.fields}}

    @on(Input.Submitted)
    def submit_on_enter(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    @on(SelectionList.SelectedChanged)
    def recheck_marked_field(self, event: Any) -> None:
        """Re-check an edited field that shows an error; once none does, the summary goes too."""
        marked = any(field.error.display for field in self.fields)
        recheck_edited(self.fields, event.control)
        if marked and not any(field.error.display for field in self.fields):
            self.show_status("")
