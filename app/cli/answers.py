"""Scripted answers (`--answers FILE`), and the schema check every headless answer passes.

The file is a JSON list of rules tried in order, first match wins:
`[{"match": {"key": "…", "message": "regex", "method": "…"}, "response": {…}}]`. Every `match` key
given must hold (`message` is searched in the request's message); `response` is sent exactly as
written (an ElicitResult, a CreateMessageResult or a ListRootsResult).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.cli.output import usage_error
from app.engine.forms.checks import CompiledPattern, compile_pattern
from app.engine.forms.defaults import with_defaults
from app.engine.tasks.models import InputKind, InputRequest

MATCH_KEYS = frozenset({"key", "message", "method"})
ELICIT_ACTIONS = frozenset({"accept", "decline", "cancel"})


@dataclass(frozen=True)
class AnswerRule:
    """One scripted answer and the requests it applies to."""

    response: dict[str, Any]
    key: str | None = None
    message: CompiledPattern | None = None
    """Searched with RE2 (linear time): the message it is matched against is the server's."""
    method: str | None = None

    def matches(self, request: InputRequest) -> bool:
        """Whether every condition of this rule holds for `request`."""
        if self.key is not None and request.key != self.key:
            return False
        if self.method is not None and request.method != self.method:
            return False
        return self.message is None or self.message.search(request_message(request)) is not None


@dataclass(frozen=True)
class AnswerBook:
    """The rules of one answers file, in order."""

    rules: tuple[AnswerRule, ...] = ()

    def find(self, request: InputRequest) -> dict[str, Any] | None:
        """The response of the first rule matching `request`, or None."""
        for rule in self.rules:
            if rule.matches(request):
                return rule.response
        return None


def request_message(request: InputRequest) -> str:
    """The text a `message` rule is searched in: the request's message, else its params' message."""
    if request.message:
        return request.message
    message = request.params.get("message")
    return message if isinstance(message, str) else ""


def load_answers(path: str) -> AnswerBook:
    """Read and check an answers file; a usage error says exactly which rule is wrong."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise usage_error(f"--answers: cannot read {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise usage_error(f"--answers: {path} is not valid JSON: {exc}") from exc
    return parse_answers(document, path)


def parse_answers(document: Any, where: str = "answers") -> AnswerBook:
    """Check the structure of an answers document and compile its rules."""
    if not isinstance(document, list):
        raise usage_error(f"--answers: {where} must be a JSON list of rules")
    return AnswerBook(
        tuple(_parse_rule(rule, f"{where} rule {n}") for n, rule in enumerate(document))
    )


def _parse_rule(rule: Any, where: str) -> AnswerRule:
    if not isinstance(rule, dict) or set(rule) - {"match", "response"}:
        raise usage_error(f"--answers: {where} must be an object with 'match' and 'response'")
    match, response = rule.get("match", {}), rule.get("response")
    if not isinstance(match, dict) or not isinstance(response, dict):
        raise usage_error(f"--answers: {where}: 'match' and 'response' must be objects")
    unknown = set(match) - MATCH_KEYS
    if unknown:
        raise usage_error(
            f"--answers: {where}: unknown match key(s) {sorted(unknown)}",
            {"allowed": sorted(MATCH_KEYS)},
        )
    for name in match:
        if not isinstance(match[name], str):
            raise usage_error(f"--answers: {where}: match.{name} must be a string")
    pattern = None
    if "message" in match:
        compiled = compile_pattern(match["message"])
        if isinstance(compiled, str):
            raise usage_error(f"--answers: {where}: bad message regex: {compiled}")
        pattern = compiled
    return AnswerRule(response, match.get("key"), pattern, match.get("method"))


def response_problems(request: InputRequest, response: Any) -> list[str]:
    """What is wrong with `response` as an answer to `request` ([] = fine to send).

    A form ElicitResult with action accept is checked against the request's schema, with the
    schema's defaults in the fields it leaves out (they are sent that way, SEP-1034).
    """
    if not isinstance(response, dict):
        return ["the response must be a JSON object"]
    if request.kind in (InputKind.FORM, InputKind.URL):
        return _elicit_problems(request, with_defaults(request, response))
    if request.kind is InputKind.SAMPLING:
        return _sampling_problems(response)
    if request.kind is InputKind.ROOTS:
        return _roots_problems(response)
    return []


def _elicit_problems(request: InputRequest, response: dict[str, Any]) -> list[str]:
    action = response.get("action")
    if action not in ELICIT_ACTIONS:
        return [f"'action' must be one of accept, decline, cancel (got {action!r})"]
    if action != "accept" or request.kind is InputKind.URL:
        return []
    content = response.get("content", {})
    if not isinstance(content, dict):
        return ["'content' must be an object"]
    schema = request.requested_schema
    if schema is None:
        return []
    from app.engine.forms.answers import validate_answer
    from app.engine.forms.json_answer import validate_json_answer
    from app.engine.forms.schema_form import UnsupportedSchema, parse_schema

    try:
        spec = parse_schema(schema)
    except UnsupportedSchema:
        return validate_json_answer(schema, content)
    return [f"{name}: {reason}" for name, reason in validate_answer(spec, content).items()]


def _sampling_problems(response: dict[str, Any]) -> list[str]:
    problems = []
    if response.get("role") != "assistant":
        problems.append("'role' must be 'assistant'")
    if not isinstance(response.get("content"), dict | list):
        problems.append("'content' must be a content block (or a list of them)")
    if not isinstance(response.get("model"), str):
        problems.append("'model' must be a string")
    return problems


def _roots_problems(response: dict[str, Any]) -> list[str]:
    roots = response.get("roots")
    if not isinstance(roots, list):
        return ["'roots' must be a list"]
    bad = [
        n
        for n, root in enumerate(roots)
        if not isinstance(root, dict) or not isinstance(root.get("uri"), str)
    ]
    return [f"roots[{n}] needs a string 'uri'" for n in bad]
