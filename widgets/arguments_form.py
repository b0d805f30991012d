"""The arguments of a tool call, as a form generated from its `inputSchema` or as raw JSON.

Flat object schemas become one field per property (`app.engine.forms.schema_form`, the widgets of
`widgets.input_form`); anything the form cannot express opens the JSON editor, validated against
the schema before the call is sent. On the legacy wire a TTL field and a "run as task" switch
follow the tool's `taskSupport`; on the extension wire the server decides, so neither is shown.
As in the answer modals, the title and the status, buttons and keys stay on screen while the
description, the fields (or the JSON) and the task options scroll between them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static, TextArea

from app.engine.forms.answers import default_content, validate_answer
from app.engine.forms.model import FieldSpec, FormSpec
from app.engine.forms.schema_form import UnsupportedSchema, parse_schema
from app.engine.rpc.tool_info import ToolInfo
from app.engine.safety.sanitize import clean_text, one_line, safe_text
from widgets.css_paths import MODALS_CSS
from widgets.input_form import (
    FormField,
    RawValue,
    checked_content,
    field_hint,
    field_widget,
    initial_raw,
    recheck_edited,
)
from widgets.input_json import json_problems
from widgets.toggles import MarkedCheckbox

FORM_KEYS = "tab next field · enter or ctrl+s run · ctrl+j edit as JSON · esc close"
JSON_KEYS = "ctrl+s run · ctrl+j back to the form · esc close"


@dataclass(frozen=True, slots=True)
class CreateRequest:
    """What the user asked to run: tool, arguments, legacy TTL, and whether as a task."""

    tool: str
    arguments: dict[str, Any]
    ttl_ms: int | None
    as_task: bool


def task_choice(tool: ToolInfo, can_create_tasks: bool) -> tuple[bool, bool, str]:
    """(run as task?, may the user change it?, why) from the tool's legacy `taskSupport`."""
    if not can_create_tasks:
        return False, False, "the server does not declare task-augmented tools/call"
    if tool.task_support == "required":
        return True, False, "taskSupport: required"
    if tool.task_support == "optional":
        return True, True, "taskSupport: optional"
    return False, False, "taskSupport: forbidden (or absent)"


def form_spec(schema: dict[str, Any]) -> tuple[FormSpec | None, str | None]:
    """The form for a flat object schema, or (None, why) when only JSON can express it."""
    try:
        return parse_schema(schema), None
    except UnsupportedSchema as problem:
        return None, str(problem)


class ArgumentsForm(ModalScreen[CreateRequest | None]):
    """Fill in a tool's arguments and run it; dismisses with a `CreateRequest` or None."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="arguments-close"),
        Binding("ctrl+s", "run", "Run", id="arguments-run"),
        Binding("ctrl+j", "toggle_json", "JSON", id="arguments-json"),
    ]

    AUTO_FOCUS = None
    """Focus is placed by `_show_mode`, without scrolling the fields away from the top."""

    def __init__(self, tool: ToolInfo, *, legacy: bool, can_create_tasks: bool) -> None:
        super().__init__(classes="arguments-modal")
        self.tool = tool
        self.legacy = legacy
        self.spec, self.unsupported = form_spec(tool.input_schema)
        self.as_task, self.task_editable, self.task_reason = task_choice(tool, can_create_tasks)
        self.fields: list[FormField] = []
        self.json_mode = self.spec is None
        self._left_out: dict[str, RawValue] = {}
        """What was typed in the fields that did not check when the form went to JSON."""

    def compose(self) -> ComposeResult:
        with Vertical(id="arguments-body"):
            title = Text("Run ", style="bold")
            title.append(one_line(self.tool.name, 60), "bold")
            yield Static(title, id="arguments-title")
            with VerticalScroll(id="arguments-main", can_focus=False):
                if self.tool.description:
                    about = safe_text(self.tool.description, max_len=400)
                    yield Static(about, id="arguments-about")
                with Vertical(id="arguments-fields"):
                    if self.spec is not None and not self.spec.fields:
                        yield Static(Text("This tool takes no arguments.", style="dim"))
                    for index, field in enumerate(self.spec.fields if self.spec else ()):
                        yield from self._compose_field(index, field)
                if self.unsupported:
                    note = f"The form cannot show this schema ({self.unsupported}); edit the JSON."
                    yield Static(safe_text(note), id="arguments-unsupported")
                yield TextArea(
                    json.dumps(self._start_content(), indent=2),
                    id="arguments-json",
                    soft_wrap=True,
                    tab_behavior="focus",
                    show_line_numbers=False,
                )
                yield from self._compose_task_options()
            with Vertical(id="arguments-foot"):
                yield Static("", id="arguments-status")
                with Horizontal(id="arguments-buttons"):
                    yield Button("Run", variant="primary", id="arguments-run")
                    yield Button("Close", id="arguments-close")
                yield Static(JSON_KEYS if self.json_mode else FORM_KEYS, id="arguments-keys")

    def _compose_field(self, index: int, field: FieldSpec) -> ComposeResult:
        with Vertical(classes="form-field"):
            if field.kind != "boolean":  # a checkbox carries its own title
                title = Text(clean_text(field.title), style="bold")
                if field.required:
                    title.append(" *", "bold red")
                yield Static(title, classes="field-title")
            if field.description:
                yield Static(safe_text(field.description), classes="field-description")
            hint = field_hint(field)
            if hint:
                yield Static(safe_text(hint, style="dim"), classes="field-hint")
            start = initial_raw(field, default_content(self.spec or FormSpec(())).get(field.name))
            widget = field_widget(field, start, f"argument-{index}")
            error = Static("", classes="field-error")
            error.display = False
            self.fields.append(FormField(field, widget, error))
            yield widget
            yield error

    def _compose_task_options(self) -> ComposeResult:
        if not self.legacy:
            yield Static(
                Text("The server decides whether this call becomes a task.", style="dim"),
                id="arguments-task-note",
            )
            return
        with Horizontal(id="arguments-task-row"):
            yield MarkedCheckbox(
                "Run as task", value=self.as_task, disabled=not self.task_editable, id="as-task"
            )
            yield Static(Text(f"({self.task_reason})", style="dim"), id="as-task-reason")
        if not (self.as_task or self.task_editable):
            return  # a tool that never runs as a task has no TTL to ask for
        with Horizontal(id="arguments-ttl-row"):
            yield Static("TTL (ms)", id="ttl-label")
            yield Input(
                placeholder="server default",
                type="integer",
                valid_empty=True,
                id="ttl",
                disabled=not self.as_task,
            )

    def on_mount(self) -> None:
        self.query_one("#arguments-status").display = False
        self._show_mode()

    def _start_content(self) -> dict[str, Any]:
        return default_content(self.spec) if self.spec is not None else {}

    def _show_mode(self) -> None:
        self.query_one("#arguments-fields").display = not self.json_mode
        self.query_one("#arguments-json").display = self.json_mode
        self.query_one("#arguments-keys", Static).update(JSON_KEYS if self.json_mode else FORM_KEYS)
        if self.json_mode:
            self.query_one("#arguments-json").focus()
        elif self.fields:
            self.fields[0].widget.focus(scroll_visible=False)
        else:
            self.query_one("#arguments-run").focus()

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    @on(SelectionList.SelectedChanged)
    def recheck_marked_field(self, event: Any) -> None:
        recheck_edited(self.fields, event.control)

    @on(Checkbox.Changed, "#as-task")
    def follow_task_switch(self, event: Checkbox.Changed) -> None:
        self.query_one("#ttl", Input).disabled = not event.value

    def action_toggle_json(self) -> None:
        """Switch between the form and the JSON editor, carrying the values across: the form
        goes to JSON even when some fields do not check (those are left out, and what was typed
        in them is kept for the way back); JSON goes back to the form unless it holds something
        the form cannot show (an empty required field is the form's to mark)."""
        note = ""
        if self.json_mode:
            if self.spec is None:
                self._status("This schema has no form; only JSON can express it.", error=True)
                return
            value, problems = json_problems(self._editor().text, None)
            if value is None:
                self._status("; ".join(problems[:3]), error=True)
                return
            if any(name in value for name in validate_answer(self.spec, value)):
                self._status("These values do not fit the form; keep editing the JSON.", True)
                return
            for field in self.fields:
                name = field.spec.name
                if name in value or name not in self._left_out:
                    self._set_widget(field, initial_raw(field.spec, value.get(name)))
                    field.show_error(None)
                else:  # typed before going to JSON, still not valid: marked again
                    self._set_widget(field, self._left_out[name])
                    field.check()
            self._left_out = {}
        else:
            content, self._left_out = self._valid_content()
            self._editor().load_text(json.dumps(content, indent=2, ensure_ascii=False))
            if self._left_out:
                left_out = [f.spec.title for f in self.fields if f.spec.name in self._left_out]
                note = f"Not valid yet, so left out of the JSON: {', '.join(left_out)}."
        self.json_mode = not self.json_mode
        self._status(note)
        self._show_mode()

    def _valid_content(self) -> tuple[dict[str, Any], dict[str, RawValue]]:
        """The value of every field that checks (empty ones left out), and what was typed in
        each one that does not, by name."""
        content: dict[str, Any] = {}
        left_out: dict[str, RawValue] = {}
        for field in self.fields:
            valid, value = field.check()
            if not valid:
                left_out[field.spec.name] = field.raw()
            elif value is not None:
                content[field.spec.name] = value
        return content, left_out

    @staticmethod
    def _set_widget(field: FormField, raw: Any) -> None:
        widget = field.widget
        if isinstance(widget, Input):
            widget.value = raw if isinstance(raw, str) else ""
        elif isinstance(widget, Checkbox):
            widget.value = raw is True
        elif isinstance(widget, SelectionList):
            widget.deselect_all()
            for value in raw if isinstance(raw, list) else []:
                widget.select(value)
        elif isinstance(widget, Select):
            widget.value = raw if isinstance(raw, str) else Select.NULL

    def _editor(self) -> TextArea:
        return self.query_one("#arguments-json", TextArea)

    def _form_content(self) -> dict[str, Any] | None:
        content = checked_content(self.fields)
        if content is None:
            self._status("Some arguments need fixing (see the marked fields).", error=True)
        return content

    def _arguments(self) -> dict[str, Any] | None:
        if not self.json_mode:
            return self._form_content()
        value, problems = json_problems(self._editor().text, self.tool.input_schema)
        if value is None:
            shown = problems[:5] + (
                [f"(and {len(problems) - 5} more)"] if len(problems) > 5 else []
            )
            self._status("; ".join(shown), error=True)
            self._editor().focus()
        return value

    def _ttl(self) -> tuple[bool, int | None]:
        found = self.query("#ttl").results(Input)
        ttl = next(found, None)
        if ttl is None or ttl.disabled or not ttl.value.strip():
            return True, None
        try:
            value = int(ttl.value)
        except ValueError:
            value = 0
        if value <= 0:
            self._status("The TTL must be a whole number of milliseconds above zero.", error=True)
            ttl.focus()
            return False, None
        return True, value

    def _as_task(self) -> bool:
        if not self.legacy:
            return True
        return self.query_one("#as-task", Checkbox).value

    @on(Button.Pressed, "#arguments-run")
    def action_run(self) -> None:
        arguments = self._arguments()
        if arguments is None:
            return
        ttl_ok, ttl = self._ttl()
        if not ttl_ok:
            return
        self.dismiss(CreateRequest(self.tool.name, arguments, ttl, self._as_task()))

    @on(Input.Submitted)
    def run_on_enter(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    @on(Button.Pressed, "#arguments-close")
    def action_close(self) -> None:
        self.dismiss(None)

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#arguments-status", Static)
        status.update(Text(clean_text(text, max_len=600), style="bold red" if error else ""))
        status.display = bool(text)
