"""Interactive answers on a terminal: an elicitation form field by field, URL consent, sampling
(answered, or declined with an empty reply).

The prompts are plain blocking line I/O on the two streams given (the terminal's stdin and stderr,
so stdout keeps only the result document). Every server string is shown sanitized, and every line
passes through `redact` (the command's `Output.redact`) so a secret the server echoes in a question
is never shown. A URL is shown, never opened.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from app.engine.forms.answers import FieldError, coerce_field, validate_answer
from app.engine.forms.input_text import describe_host, message_text, sampling_result
from app.engine.forms.json_answer import validate_json_answer
from app.engine.forms.model import FieldSpec, FormSpec
from app.engine.forms.schema_form import UnsupportedSchema, parse_schema
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.models import InputKind, InputRequest

DECLINE_WORDS = {"d": "decline", "decline": "decline", "c": "cancel", "cancel": "cancel"}


class PromptClosed(Exception):
    """The terminal's input ended (EOF) before the question was answered."""


@dataclass(frozen=True)
class Rejection:
    """The person declined a request that has no "no" result (sampling): answer it with a
    JSON-RPC error where the wire allows one."""


class TerminalLines:
    """Reads lines straight from a file descriptor, bypassing `sys.stdin`'s buffer.

    A prompt blocked in a daemon thread must not hold the buffered reader's lock when Ctrl-C ends
    the program, or the interpreter aborts at shutdown instead of exiting with 130.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._pending = b""

    def readline(self) -> str:
        """One line including its newline; "" at end of input."""
        while b"\n" not in self._pending:
            chunk = os.read(self.fd, 1024)
            if not chunk:
                line, self._pending = self._pending, b""
                return line.decode(errors="replace")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode(errors="replace") + "\n"


class LineSource(Protocol):
    """Where typed lines come from: a terminal (`TerminalLines`) or any text stream."""

    def readline(self) -> str: ...


def _as_is(text: str) -> str:
    return text


@dataclass
class Prompter:
    """Asks one person, on one terminal, to answer input requests; `redact` hides the session's
    secrets in everything it writes."""

    stdin: LineSource
    out: TextIO
    redact: Callable[[str], str] = _as_is

    def answer(self, request: InputRequest) -> dict[str, Any] | Rejection | None:
        """A response for `request`, a `Rejection` when the person declined a sampling request,
        or None when it is of a kind a person cannot answer here."""
        self._say("")
        origin = f" (task {clean_text(request.task_id)})" if request.task_id else ""
        self._say(f"── input requested{origin}: {clean_text(request.method)}")
        if request.kind is InputKind.FORM:
            return self._form(request)
        if request.kind is InputKind.URL:
            return self._url_consent(request)
        if request.kind is InputKind.SAMPLING:
            return self._sampling(request)
        return None

    # -- elicitation forms ----------------------------------------------------------------------

    def _form(self, request: InputRequest) -> dict[str, Any]:
        self._say(clean_text(request.params.get("message", ""), allow_newlines=True))
        action = self._action()
        if action != "accept":
            return {"action": action}
        schema = request.requested_schema or {"type": "object", "properties": {}}
        try:
            spec = parse_schema(schema)
        except UnsupportedSchema as exc:
            self._say(f"(this form cannot be shown field by field: {clean_text(exc)})")
            return {"action": "accept", "content": self._json_content(schema)}
        return {"action": "accept", "content": self._fields(spec)}

    def _action(self) -> str:
        while True:
            text = self._ask("[a]ccept, [d]ecline or [c]ancel? [a]: ").strip().lower()
            if text in ("", "a", "accept"):
                return "accept"
            if text in DECLINE_WORDS:
                return DECLINE_WORDS[text]
            self._say("  please type a, d or c")

    def _fields(self, spec: FormSpec) -> dict[str, Any]:
        content: dict[str, Any] = {}
        todo = list(spec.fields)
        while True:
            for field in todo:
                value = self._field(field)
                if value is _OMIT:
                    content.pop(field.name, None)
                else:
                    content[field.name] = value
            problems = validate_answer(spec, content)
            if not problems:
                return content
            for name, reason in problems.items():
                self._say(f"  {clean_text(name)}: {clean_text(reason)}")
            todo = [field for field in spec.fields if field.name in problems]

    def _field(self, field: FieldSpec) -> Any:
        self._say(self._field_header(field))
        for number, choice in enumerate(field.choices, start=1):
            self._say(f"   {number}) {clean_text(choice.title)} [{clean_text(choice.value)}]")
        while True:
            text = self._ask(self._field_prompt(field)).strip()
            if not text and field.default is not None:
                return list(field.default) if field.kind == "multi" else field.default
            try:
                value = coerce_field(field, self._typed(field, text) if text else None)
            except FieldError as exc:
                self._say(f"  {clean_text(exc.reason)}")
                continue
            return _OMIT if value is None else value

    def _typed(self, field: FieldSpec, text: str) -> str | list[str]:
        """What the user typed, with choice numbers turned into their values."""
        if field.kind == "multi":
            return [
                self._choice_value(field, part.strip()) for part in text.split(",") if part.strip()
            ]
        if field.kind == "choice":
            return self._choice_value(field, text)
        return text

    @staticmethod
    def _choice_value(field: FieldSpec, text: str) -> str:
        if text.isdigit() and 1 <= int(text) <= len(field.choices):
            return str(field.choices[int(text) - 1].value)
        return text

    @staticmethod
    def _field_header(field: FieldSpec) -> str:
        marker = " (required)" if field.required else ""
        header = f"• {clean_text(field.title or field.name)}{marker}"
        if field.description:
            header += f" — {clean_text(field.description)}"
        if field.pattern_error is not None:
            header += f" ({clean_text(field.pattern_error)})"
        return header

    @staticmethod
    def _field_prompt(field: FieldSpec) -> str:
        hints = {
            "boolean": "y/n",
            "multi": "numbers or values, comma-separated",
            "choice": "number or value",
            "date": "YYYY-MM-DD",
            "datetime": "ISO 8601 with time zone",
        }
        hint = hints.get(field.kind, field.kind)
        default = ""
        if field.default is not None:
            shown = field.default if isinstance(field.default, str) else json.dumps(field.default)
            default = f" [{clean_text(shown)}]"
        return f"  {hint}{default}: "

    def _json_content(self, schema: Any) -> dict[str, Any]:
        self._say(clean_text(json.dumps(schema, indent=2), allow_newlines=True))
        while True:
            text = self._ask("  content as one line of JSON: ")
            try:
                content = json.loads(text)
            except json.JSONDecodeError as exc:
                self._say(f"  not JSON: {exc}")
                continue
            problems = (
                validate_json_answer(schema, content)
                if isinstance(content, dict)
                else ["must be a JSON object"]
            )
            if not problems:
                return dict(content)
            for problem in problems:
                self._say(f"  {clean_text(problem)}")

    # -- URL consent and sampling ---------------------------------------------------------------

    def _url_consent(self, request: InputRequest) -> dict[str, Any]:
        self._say(clean_text(request.params.get("message", ""), allow_newlines=True))
        url = request.url or ""
        self._say(f"  URL:  {clean_text(url)}")
        self._say(f"  host: {describe_host(url)}")
        self._say("  (taskscope never opens it; open it yourself if you consent)")
        consent = self._confirm("Consent to open this URL? [y/N]: ")
        return {"action": "accept" if consent else "decline"}

    def _sampling(self, request: InputRequest) -> dict[str, Any] | Rejection:
        params = request.params
        if params.get("systemPrompt"):
            self._say(f"  system prompt: {clean_text(params['systemPrompt'], allow_newlines=True)}")
        for message in params.get("messages") or []:
            if isinstance(message, dict):
                self._say(f"  {clean_text(message.get('role'))}: {message_text(message)}")
        self._say(f"  maxTokens: {clean_text(params.get('maxTokens'))}")
        self._say("  (an empty reply offers to decline)")
        while True:
            reply = self._ask("Assistant reply: ").strip()
            if reply:
                break
            if self._confirm("Decline this request? [y/N]: "):
                return Rejection()
        model = self._ask("Model name [human]: ").strip() or "human"
        return sampling_result(reply, model)

    # -- line I/O -------------------------------------------------------------------------------

    def _say(self, text: str) -> None:
        self.out.write(self.redact(text) + "\n")
        self.out.flush()

    def _confirm(self, prompt: str) -> bool:
        """A yes/no question; only "y" or "yes" is yes."""
        return self._ask(prompt).strip().lower() in ("y", "yes")

    def _ask(self, prompt: str) -> str:
        self.out.write(self.redact(prompt))
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            raise PromptClosed("input ended")
        return line.rstrip("\r\n")


_OMIT = object()
