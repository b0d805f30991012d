"""The JSON fallback editor: for schemas outside the form subset and for requests of unknown kind.

Nothing a server asks is dropped: when `parse_schema` refuses a schema, the user types the answer's
content as JSON, checked with `validate_json_answer` against the server's schema before it is sent.
A request of a kind taskscope does not know gets its whole response typed as a JSON object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from app.engine.forms.json_answer import validate_json_answer
from app.engine.safety.sanitize import clean_text, safe_text
from app.engine.tasks.models import InputRequest
from widgets.input_modal import AnswerModal, Submit

SCHEMA_MAX_CHARS = 4000
JSON_KEYS = "tab next · ctrl+s accept · esc later"

CONTENT_BUTTONS = [
    ("Accept", "input-accept", "primary"),
    ("Decline", "input-decline", "default"),
    ("Cancel", "input-cancel", "default"),
    ("Later", "input-later", "default"),
]
RESPONSE_BUTTONS = [
    ("Send", "input-accept", "primary"),
    ("Later", "input-later", "default"),
]


def json_problems(text: str, schema: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """Parse `text` as a JSON object and check it against `schema`: (object, []) or (None, why)."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        return None, [f"not valid JSON: {error}"]
    if not isinstance(value, dict):
        return None, ["the answer must be a JSON object ({…})"]
    problems = validate_json_answer(schema, value) if schema is not None else []
    return (None, problems) if problems else (value, [])


class InputJson(AnswerModal):
    """A JSON editor answering one request: elicitation content (schema-checked) or a raw response.

    With `raw_response` the typed object is sent as the whole response (for unknown request kinds),
    and escape closes without sending, since decline and cancel mean nothing there.
    """

    def __init__(
        self,
        request: InputRequest,
        submit: Submit,
        *,
        server: str = "",
        schema: Any = None,
        reason: str = "",
        raw_response: bool = False,
        draft: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(request, submit, server=server)
        self.schema = schema
        self.reason = reason
        self.raw_response = raw_response
        self.initial_text = json.dumps(dict(draft) if draft else {}, indent=2, ensure_ascii=False)
        self._blank_text = json.dumps({})
        """The editor with nothing typed: a draft filled in again differs from it, so putting it
        off once more keeps it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="input-body", classes="input-json"):
            yield from self.compose_header()
            if self.reason:
                yield Static(safe_text(self.reason, allow_newlines=True), id="json-reason")
            if self.schema is not None:
                shown = json.dumps(self.schema, indent=2, ensure_ascii=False, default=str)
                yield Static(
                    safe_text(shown, allow_newlines=True, max_len=SCHEMA_MAX_CHARS),
                    id="json-schema",
                )
            yield TextArea(
                self.initial_text,
                id="json-editor",
                soft_wrap=True,
                tab_behavior="focus",
                show_line_numbers=False,
            )
            buttons = RESPONSE_BUTTONS if self.raw_response else CONTENT_BUTTONS
            yield from self.compose_footer(buttons, JSON_KEYS)

    def on_mount(self) -> None:
        self.query_one("#json-editor", TextArea).focus()

    @property
    def text(self) -> str:
        return self.query_one("#json-editor", TextArea).text

    def accept_response(self) -> dict[str, Any] | None:
        value, problems = json_problems(self.text, self.schema)
        if value is None:
            shown = problems[:5] + (
                [f"(and {len(problems) - 5} more)"] if len(problems) > 5 else []
            )
            self.show_status(clean_text("; ".join(shown), max_len=600), error=True)
            self.query_one("#json-editor", TextArea).focus()
            return None
        if self.raw_response:
            return value
        return {"action": "accept", "content": value}

    def is_dirty(self) -> bool:
        """Whether the editor holds more than an empty object (a restored draft counts)."""
        return self.text.strip() != self._blank_text

    def draft_response(self) -> dict[str, Any] | None:
        """The typed JSON as a response when it parses to an object (a draft fills objects)."""
        if not self.is_dirty():
            return None
        try:
            value = json.loads(self.text)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        return value if self.raw_response else {"action": "accept", "content": value}


def unsupported_reason(problem: str) -> str:
    """The explanation shown above the editor when a schema is outside the form subset."""
    return f"This form cannot be shown as fields ({problem}). Type the answer as JSON."
