"""The MCP conformance suite's server fixtures, listed only with `--conformance`.

`@modelcontextprotocol/conformance` drives a server through tools of fixed names. The `tasks-*`
scenarios (SEP-2663) call `greet`, `slow_compute`, `confirm_delete`, `multi_input`, `failing_job`,
`protocol_error_job` and `test_tool_with_task` on the extension wire; the `tools-call-*`,
`elicitation-*` and `json-schema-2020-12` scenarios call the everything-server's `test_*` tools
(the content ones on both wires; progress, sampling and elicitation on the legacy wire, where they
ride the call's own stream). All are ordinary catalogue jobs, so the same `JobContext` runs them as
tasks, synchronously or through MRTR rounds.
"""

from __future__ import annotations

import json
from typing import Any

from app.demo.tool_contract import DemoTool, Job, JobContext, ToolFailure, elicit, text_result

INTERNAL_ERROR = -32603


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _seconds(args: dict[str, Any]) -> float:
    value = args.get("seconds", 1)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 1.0
    return max(0.0, min(float(value), 3600.0))


async def greet(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Answers at once: `Hello, <name>!`."""
    return text_result(f"Hello, {args.get('name') or 'World'}!")


async def slow_compute(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Sleeps `seconds` (cancellable), then answers."""
    seconds = _seconds(args)
    label = str(args.get("label") or "slow_compute")
    await ctx.status(f"Computing {label} for {seconds:g} s")
    await ctx.sleep(seconds)
    return text_result(f"Computed {label} in {seconds:g} s.")


async def confirm_delete(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks one confirmation (elicitation), then "deletes" the file."""
    filename = str(args.get("filename") or "file.txt")
    schema = _object({"confirm": {"type": "boolean", "title": "Delete it"}}, ["confirm"])
    answers = await ctx.ask({"confirm": elicit(f"Delete {filename}?", schema)})
    answer = answers.get("confirm") or {}
    confirmed = answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm")
    return text_result(f"Deleted {filename}." if confirmed else f"Kept {filename}.")


async def multi_input(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks two questions at once; they may be answered one at a time."""
    schema = _object({"name": {"type": "string"}, "confirm": {"type": "boolean"}})
    answers = await ctx.ask(
        {"first": elicit("First input?", schema), "second": elicit("Second input?", schema)}
    )
    actions = {key: (answers.get(key) or {}).get("action") for key in ("first", "second")}
    return text_result(f"multi_input answered: {json.dumps(actions, sort_keys=True)}")


async def failing_job(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Runs about a second, then finishes with a tool error (`isError`)."""
    await ctx.status("Working on a job that will fail")
    await ctx.sleep(1.0)
    return text_result("failing_job: the job reported an error.", is_error=True)


async def protocol_error_job(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Fails with a JSON-RPC error (a `failed` task)."""
    await ctx.sleep(0.2)
    raise ToolFailure(INTERNAL_ERROR, "protocol_error_job: internal failure")


async def tool_with_task(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks for a name (an MRTR round), then works as a task and greets that name."""
    schema = _object({"name": {"type": "string", "title": "Your name"}}, ["name"])
    answers = await ctx.ask({"user_name": elicit("What is your name?", schema)})
    answer = answers.get("user_name") or {}
    content = answer.get("content") if answer.get("action") == "accept" else None
    name = (content or {}).get("name") or (content or {}).get("user_name") or "stranger"
    await ctx.status("Greeting")
    await ctx.sleep(0.3)
    return text_result(f"Hello, {name}!")


TASKS_TOOLS: tuple[DemoTool, ...] = (
    DemoTool(
        "greet",
        "Conformance: greets at once (never a task).",
        _object({"name": {"type": "string"}}, ["name"]),
        greet,
        legacy_task_support="forbidden",
        extension_task_support="forbidden",
        extension_only=True,
    ),
    DemoTool(
        "slow_compute",
        "Conformance: sleeps `seconds`, then answers (cancellable).",
        _object({"seconds": {"type": "number", "minimum": 0}, "label": {"type": "string"}}),
        slow_compute,
        extension_only=True,
    ),
    DemoTool(
        "confirm_delete",
        "Conformance: asks for a confirmation, then deletes `filename`.",
        _object({"filename": {"type": "string"}}, ["filename"]),
        confirm_delete,
        extension_only=True,
    ),
    DemoTool(
        "multi_input",
        "Conformance: asks two questions at once.",
        _object({}),
        multi_input,
        extension_only=True,
    ),
    DemoTool(
        "failing_job",
        "Conformance: a task that finishes with a tool error (needs the tasks extension).",
        _object({}),
        failing_job,
        extension_task_support="required",
        extension_only=True,
    ),
    DemoTool(
        "protocol_error_job",
        "Conformance: a task that fails with a protocol error.",
        _object({}),
        protocol_error_job,
        extension_only=True,
    ),
    DemoTool(
        "test_tool_with_task",
        "Conformance: asks for a name (MRTR), then continues as a task.",
        _object({}),
        tool_with_task,
        extension_task_support="required",
        asks_before_task=True,
        extension_only=True,
    ),
)


# ------------------------------------------------------------------ the everything-server's tools

RED_PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
"""A 1x1 red PNG."""
SILENT_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
"""One millisecond of 8 kHz mono silence."""

JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
"""The schema `json-schema-2020-12` expects to get back from `tools/list` untouched."""

SEP1034_SCHEMA: dict[str, Any] = _object(
    {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    }
)

SEP1330_SCHEMA: dict[str, Any] = _object(
    {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    }
)


def _content(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"content": list(blocks), "isError": False}


async def simple_text(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """One text block."""
    return text_result("This is a simple text response for testing.")


async def image_content(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """One image block."""
    return _content({"type": "image", "data": RED_PIXEL_PNG, "mimeType": "image/png"})


async def audio_content(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """One audio block."""
    return _content({"type": "audio", "data": SILENT_WAV, "mimeType": "audio/wav"})


async def embedded_resource(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """One embedded text resource."""
    resource = {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    }
    return _content({"type": "resource", "resource": resource})


async def multiple_content_types(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Text, image and an embedded resource."""
    resource = {
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": json.dumps({"test": "data", "value": 123}),
    }
    return _content(
        {"type": "text", "text": "Multiple content types test:"},
        {"type": "image", "data": RED_PIXEL_PNG, "mimeType": "image/png"},
        {"type": "resource", "resource": resource},
    )


async def error_handling(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Always a tool error."""
    return text_result("This tool intentionally returns an error for testing", is_error=True)


async def tool_with_progress(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Progress 0, 50 and 100 of 100, about 50 ms apart."""
    for done in (0, 50):
        await ctx.progress(done, 100, None)
        await ctx.sleep(0.05)
    await ctx.progress(100, 100, None)
    return text_result("Progress test completed.")


async def sampling(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks the client's model to answer `prompt`."""
    prompt = str(args.get("prompt") or "Say hello.")
    request = {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": 100,
        },
    }
    answer = (await ctx.ask({"reply": request})).get("reply") or {}
    content = answer.get("content")
    reply = content.get("text") if isinstance(content, dict) else None
    if not isinstance(reply, str):
        return text_result("The client did not sample (no sampling capability?).", is_error=True)
    return text_result(f"LLM response: {reply}")


def _elicitation_text(answer: dict[str, Any] | None) -> str:
    if not answer:
        return "Elicitation failed: the client gave no answer (no elicitation capability?)."
    content = json.dumps(answer.get("content") or {}, sort_keys=True)
    return f"Elicitation completed: action={answer.get('action')}, content={content}"


async def elicitation(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks the user for a user name and an e-mail address."""
    message = str(args.get("message") or "Please provide your information")
    schema = _object(
        {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        ["username", "email"],
    )
    answer = (await ctx.ask({"info": elicit(message, schema)})).get("info")
    if not answer:
        return text_result(_elicitation_text(answer), is_error=True)
    content = json.dumps(answer.get("content") or {}, sort_keys=True)
    return text_result(f"User response: action={answer.get('action')}, content={content}")


async def elicitation_sep1034_defaults(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks through a form whose every primitive field has a default (SEP-1034)."""
    answers = await ctx.ask({"form": elicit("Check the defaults.", SEP1034_SCHEMA)})
    answer = answers.get("form")
    return text_result(_elicitation_text(answer), is_error=not answer)


async def elicitation_sep1330_enums(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks through a form with all five enum shapes (SEP-1330)."""
    answers = await ctx.ask({"form": elicit("Pick some options.", SEP1330_SCHEMA)})
    answer = answers.get("form")
    return text_result(_elicitation_text(answer), is_error=not answer)


async def json_schema_tool(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Echoes its arguments (its point is its input schema)."""
    return text_result(f"Received: {json.dumps(args, sort_keys=True)}")


def _instant(
    name: str, description: str, job: Job, schema: dict[str, Any] | None = None
) -> DemoTool:
    """A quick fixture on both wires: never a task."""
    return DemoTool(
        name,
        f"Conformance: {description}",
        schema if schema is not None else _object({}),
        job,
        legacy_task_support="forbidden",
        extension_task_support="forbidden",
    )


def _legacy(
    name: str, description: str, job: Job, schema: dict[str, Any] | None = None
) -> DemoTool:
    """A fixture that talks to the client while it runs: legacy wire only."""
    return DemoTool(
        name,
        f"Conformance: {description}",
        schema if schema is not None else _object({}),
        job,
        legacy_only=True,
    )


EVERYTHING_TOOLS: tuple[DemoTool, ...] = (
    _instant("test_simple_text", "returns one text block.", simple_text),
    _instant("test_image_content", "returns one image block.", image_content),
    _instant("test_audio_content", "returns one audio block.", audio_content),
    _instant("test_embedded_resource", "returns an embedded resource.", embedded_resource),
    _instant(
        "test_multiple_content_types",
        "returns text, an image and a resource.",
        multiple_content_types,
    ),
    _instant("test_error_handling", "always returns a tool error.", error_handling),
    _instant(
        "json_schema_2020_12_tool",
        "has a JSON Schema 2020-12 input schema.",
        json_schema_tool,
        JSON_SCHEMA_2020_12,
    ),
    _legacy("test_tool_with_progress", "reports progress 0, 50, 100.", tool_with_progress),
    _legacy(
        "test_sampling",
        "asks the client's model.",
        sampling,
        _object({"prompt": {"type": "string"}}, ["prompt"]),
    ),
    _legacy(
        "test_elicitation",
        "asks the user for a name and an e-mail.",
        elicitation,
        _object({"message": {"type": "string"}}, ["message"]),
    ),
    _legacy(
        "test_elicitation_sep1034_defaults",
        "elicits a form with defaults.",
        elicitation_sep1034_defaults,
    ),
    _legacy(
        "test_elicitation_sep1330_enums",
        "elicits a form with every enum shape.",
        elicitation_sep1330_enums,
    ),
)

CONFORMANCE_TOOLS = (*TASKS_TOOLS, *EVERYTHING_TOOLS)
