"""The demo servers' tools, written once for both wires.

Each tool is a plain async job that talks to its caller only through `JobContext`: status messages,
progress, and questions (elicitation, sampling, roots). The legacy server implements the context
with task status, `notifications/progress` and server-to-client requests; the extension server with
`statusMessage` and `inputRequests`. The jobs themselves never know which wire they run on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

TaskSupport = Literal["forbidden", "optional", "required"]


class ToolFailure(Exception):
    """A protocol-level failure (a JSON-RPC error), as opposed to a tool error (`isError`)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class JobContext(Protocol):
    """What a running job may do; each wire's server implements it."""

    async def status(self, message: str) -> None:
        """Set the task's status message."""

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        """Report progress (shown on the legacy wire; the extension has no task progress)."""

    async def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Ask every request at once (`{key: {"method", "params"}}`); return `{key: response}`."""

    async def sleep(self, seconds: float) -> None:
        """Sleep for a span of demo time (scaled by the server's speed setting)."""


Job = Callable[[JobContext, dict[str, Any]], Awaitable[dict[str, Any]]]


def text_result(text: str, *, is_error: bool = False, **extra: Any) -> dict[str, Any]:
    """A `CallToolResult` with one text block."""
    return {"content": [{"type": "text", "text": text}], "isError": is_error, **extra}


def elicit(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A form-mode `elicitation/create` request body."""
    return {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema},
    }


PROVISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "hostname": {
            "type": "string",
            "title": "Host name",
            "description": "DNS label for the new server",
            "minLength": 3,
            "maxLength": 30,
            "pattern": "^[a-z][a-z0-9-]*$",
            "default": "web-1",
        },
        "admin_email": {"type": "string", "title": "Admin e-mail", "format": "email"},
        "runbook_url": {"type": "string", "title": "Runbook URL", "format": "uri"},
        "go_live": {"type": "string", "title": "Go-live date", "format": "date"},
        "maintenance_at": {
            "type": "string",
            "title": "First maintenance window",
            "format": "date-time",
        },
        "disk_gb": {
            "type": "number",
            "title": "Disk (GB)",
            "minimum": 10,
            "maximum": 2000,
            "default": 100,
        },
        "replicas": {
            "type": "integer",
            "title": "Replicas",
            "minimum": 1,
            "maximum": 9,
            "default": 2,
        },
        "monitoring": {"type": "boolean", "title": "Enable monitoring", "default": True},
        "region": {
            "type": "string",
            "title": "Region",
            "enum": ["eu-west", "us-east", "ap-south"],
            "default": "eu-west",
        },
        "size": {
            "type": "string",
            "title": "Machine size",
            "oneOf": [
                {"const": "s", "title": "Small (2 vCPU)"},
                {"const": "m", "title": "Medium (4 vCPU)"},
                {"const": "l", "title": "Large (8 vCPU)"},
            ],
            "default": "m",
        },
        "image": {
            "type": "string",
            "title": "OS image",
            "enum": ["debian-12", "ubuntu-24.04"],
            "enumNames": ["Debian 12", "Ubuntu 24.04"],
        },
        "ports": {
            "type": "array",
            "title": "Open ports",
            "items": {"type": "string", "enum": ["22", "80", "443"]},
            "minItems": 1,
            "maxItems": 3,
            "default": ["22"],
        },
        "features": {
            "type": "array",
            "title": "Extras",
            "items": {
                "anyOf": [
                    {"const": "backups", "title": "Nightly backups"},
                    {"const": "ipv6", "title": "IPv6"},
                    {"const": "waf", "title": "Web firewall"},
                ]
            },
            "maxItems": 2,
        },
    },
    "required": ["hostname", "admin_email", "replicas", "region"],
}

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve the rollout"},
        "reason": {"type": "string", "title": "Reason", "maxLength": 200},
    },
    "required": ["approve"],
}

WINDOW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "window": {
            "type": "string",
            "title": "Rollout window",
            "oneOf": [
                {"const": "now", "title": "Right now"},
                {"const": "tonight", "title": "Tonight, 22:00"},
                {"const": "weekend", "title": "Saturday morning"},
            ],
            "default": "tonight",
        }
    },
    "required": ["window"],
}


def _answer(responses: dict[str, dict[str, Any]], key: str) -> dict[str, Any]:
    response = responses.get(key)
    return response if isinstance(response, dict) else {"action": "cancel"}


async def lookup_weather(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """A quick synchronous lookup."""
    city = str(args.get("city") or "Lisbon")
    return text_result(f"{city}: 18 °C, light breeze, no rain expected.")


async def build_report(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """A ~3 s job with progress and changing status messages."""
    sections = ["Collecting metrics", "Aggregating by region", "Rendering charts"]
    for index, section in enumerate(sections):
        await ctx.status(f"{section} ({index + 1}/{len(sections)})")
        await ctx.progress(index, len(sections), section)
        await ctx.sleep(1.0)
    await ctx.progress(len(sections), len(sections), "Done")
    quarter = str(args.get("quarter") or "Q3")
    return text_result(f"Report for {quarter}: 3 sections, 12 charts, revenue up 4.2 %.")


async def migrate_database(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """A long, cancellable job: one table per second."""
    tables = max(1, min(int(args.get("tables") or 60), 10_000))
    for table in range(1, tables + 1):
        await ctx.status(f"Migrating table {table} of {tables}")
        await ctx.progress(table - 1, tables, None)
        await ctx.sleep(1.0)
    return text_result(f"Migrated {tables} tables.")


async def provision_server(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks for a full server specification through a form using every schema type."""
    await ctx.status("Waiting for the server specification")
    answers = await ctx.ask({"spec": elicit("Describe the server to provision.", PROVISION_SCHEMA)})
    answer = _answer(answers, "spec")
    if answer.get("action") != "accept":
        return text_result(f"Provisioning abandoned ({answer.get('action')}).")
    await ctx.status("Provisioning")
    await ctx.sleep(1.0)
    content = answer.get("content") or {}
    return text_result(f"Provisioned {content.get('hostname')} in {content.get('region')}.")


async def deploy_release(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks two questions at once: an approval and a rollout window."""
    version = str(args.get("version") or "2.4.0")
    await ctx.status(f"Release {version} needs approval and a window")
    answers = await ctx.ask(
        {
            "approval": elicit(f"Approve the rollout of {version}?", APPROVAL_SCHEMA),
            "window": elicit("When should it roll out?", WINDOW_SCHEMA),
        }
    )
    approval, window = _answer(answers, "approval"), _answer(answers, "window")
    approved = approval.get("action") == "accept" and (approval.get("content") or {}).get("approve")
    if not approved:
        return text_result(f"Release {version} was not approved.")
    when = (window.get("content") or {}).get("window", "tonight")
    await ctx.status(f"Rolling out {version}")
    await ctx.sleep(1.0)
    return text_result(f"Release {version} scheduled: {when}.")


async def connect_account(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks the user to consent to opening a URL (URL-mode elicitation)."""
    await ctx.status("Waiting for account-link consent")
    request = {
        "method": "elicitation/create",
        "params": {
            "mode": "url",
            "message": "Link your cloud account to continue.",
            "url": "https://accounts.example.com/link?client=taskscope-demo",
        },
    }
    answer = _answer(await ctx.ask({"consent": request}), "consent")
    if answer.get("action") != "accept":
        return text_result(f"Account not linked ({answer.get('action')}).")
    await ctx.sleep(0.5)
    return text_result("Account linked.")


async def summarize_text(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks the client's model for a summary (sampling)."""
    text = str(args.get("text") or "MCP tasks let a server run long jobs the client polls.")
    await ctx.status("Waiting for the client's model")
    request = {
        "method": "sampling/createMessage",
        "params": {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": f"Summarize: {text}"}}
            ],
            "systemPrompt": "You write one-sentence summaries.",
            "maxTokens": 120,
        },
    }
    answer = _answer(await ctx.ask({"summary": request}), "summary")
    content = answer.get("content")
    reply = content.get("text") if isinstance(content, dict) else None
    if not isinstance(reply, str):
        return text_result("The client declined to sample.", is_error=True)
    return text_result(f"Summary: {reply}")


async def index_workspace(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Asks for the client's roots, then indexes them."""
    await ctx.status("Asking which folders to index")
    answer = _answer(await ctx.ask({"roots": {"method": "roots/list", "params": {}}}), "roots")
    roots = answer.get("roots")
    if not isinstance(roots, list) or not roots:
        return text_result("No roots were given; nothing indexed.")
    await ctx.sleep(0.5)
    names = ", ".join(str(root.get("uri")) for root in roots if isinstance(root, dict))
    return text_result(f"Indexed {len(roots)} root(s): {names}")


async def sync_inventory(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Fails with a protocol error (a JSON-RPC error) after a short while."""
    await ctx.status("Contacting the inventory service")
    await ctx.sleep(0.5)
    raise ToolFailure(-32603, "Inventory service unavailable: upstream returned 502")


async def validate_config(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Finishes with a tool error (`isError: true`)."""
    await ctx.status("Validating configuration")
    await ctx.sleep(0.5)
    return text_result("config.yaml line 12: unknown key 'replcas'", is_error=True)


ANALYSIS_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "errors": {"type": "integer"},
        "warnings": {"type": "integer"},
        "top_source": {"type": "string"},
    },
    "required": ["errors", "warnings", "top_source"],
}


async def analyze_logs(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Returns structured content matching its `outputSchema`."""
    await ctx.status("Scanning log files")
    await ctx.sleep(1.0)
    structured = {"errors": 3, "warnings": 17, "top_source": "api-gateway"}
    return text_result(
        "3 errors, 17 warnings; most from api-gateway.", structuredContent=structured
    )


async def nightly_backup(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """A job that only runs as a task (legacy `taskSupport: required`)."""
    await ctx.status("Snapshotting volumes")
    await ctx.sleep(1.0)
    return text_result("Backup complete: 4 volumes, 38 GB.")


QUOTE_CACHE: dict[str, str] = {}
"""Quotes fetched so far; a cached symbol is answered synchronously on the extension wire."""


async def fetch_quote(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Fetches a stock quote slowly the first time, then from the cache."""
    symbol = str(args.get("symbol") or "ACME").upper()
    if symbol not in QUOTE_CACHE:
        await ctx.status(f"Fetching {symbol} from the exchange")
        await ctx.sleep(1.0)
        QUOTE_CACHE[symbol] = f"{symbol}: 123.45 USD"
    return text_result(QUOTE_CACHE[symbol])


def quote_is_cached(args: dict[str, Any]) -> bool:
    """Whether the extension server may answer `fetch_quote` synchronously."""
    return str(args.get("symbol") or "ACME").upper() in QUOTE_CACHE


@dataclass(frozen=True)
class DemoTool:
    """One demo tool: its listing and its job."""

    name: str
    description: str
    input_schema: dict[str, Any]
    job: Job
    legacy_task_support: TaskSupport = "optional"
    output_schema: dict[str, Any] | None = None
    extension_only: bool = False
    legacy_only: bool = False
    answers_synchronously: Callable[[dict[str, Any]], bool] | None = None
    """Extension wire: when this returns True the server answers without creating a task."""
    extension_task_support: TaskSupport = "optional"
    """Extension wire: `forbidden` always answers at once, `optional` becomes a task when the
    request declares the extension, `required` answers `-32021` to a request that does not."""
    asks_before_task: bool = False
    """Extension wire: the job's questions before its first pause are asked synchronously (MRTR
    `InputRequiredResult` rounds); only once they are answered does the call become a task."""


def _schema(**properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


TOOLS: tuple[DemoTool, ...] = (
    DemoTool(
        "lookup_weather",
        "Current weather for a city (answers at once).",
        _schema(city={"type": "string", "default": "Lisbon"}),
        lookup_weather,
        legacy_task_support="forbidden",
        extension_task_support="forbidden",
    ),
    DemoTool(
        "build_report",
        "Builds the quarterly report (~3 s, with progress).",
        _schema(quarter={"type": "string", "enum": ["Q1", "Q2", "Q3", "Q4"], "default": "Q3"}),
        build_report,
    ),
    DemoTool(
        "migrate_database",
        "Migrates database tables one per second; cancel it when bored.",
        _schema(tables={"type": "integer", "minimum": 1, "maximum": 10000, "default": 60}),
        migrate_database,
        extension_task_support="required",
    ),
    DemoTool(
        "provision_server",
        "Provisions a server; asks for its specification through a form.",
        _schema(),
        provision_server,
    ),
    DemoTool(
        "deploy_release",
        "Deploys a release; asks for approval and a rollout window at once.",
        _schema(version={"type": "string", "default": "2.4.0"}),
        deploy_release,
    ),
    DemoTool(
        "connect_account",
        "Links a cloud account; asks for consent to open a URL.",
        _schema(),
        connect_account,
    ),
    DemoTool(
        "summarize_text",
        "Summarizes text with the client's model (sampling).",
        _schema(text={"type": "string"}),
        summarize_text,
    ),
    DemoTool(
        "index_workspace",
        "Indexes the client's workspace roots.",
        _schema(),
        index_workspace,
    ),
    DemoTool(
        "sync_inventory",
        "Syncs the inventory; its upstream is down (protocol error).",
        _schema(),
        sync_inventory,
    ),
    DemoTool(
        "validate_config",
        "Validates config.yaml; finds a typo (tool error).",
        _schema(),
        validate_config,
    ),
    DemoTool(
        "analyze_logs",
        "Analyzes logs and returns structured counts (has an outputSchema).",
        _schema(),
        analyze_logs,
        output_schema=ANALYSIS_OUTPUT_SCHEMA,
    ),
    DemoTool(
        "nightly_backup",
        "Backs up all volumes; runs only as a task.",
        _schema(),
        nightly_backup,
        legacy_task_support="required",
        legacy_only=True,
    ),
    DemoTool(
        "fetch_quote",
        "Fetches a stock quote; answered at once when it is cached.",
        _schema(symbol={"type": "string", "default": "ACME"}),
        fetch_quote,
        extension_only=True,
        answers_synchronously=quote_is_cached,
    ),
)


def tools_for(
    wire: Literal["legacy", "extension"], *, bench: bool = False, conformance: bool = False
) -> tuple[DemoTool, ...]:
    """The tools a demo server of that wire lists (plus the bench-only ones with `bench`, and the
    conformance suite's fixtures with `conformance`)."""
    tools = TOOLS
    if bench:
        from app.demo.bench_tools import BENCH_TOOLS

        tools = (*tools, *BENCH_TOOLS)
    if conformance:
        from app.demo.conformance_tools import CONFORMANCE_TOOLS

        tools = (*tools, *CONFORMANCE_TOOLS)
    if wire == "legacy":
        return tuple(tool for tool in tools if not tool.extension_only)
    return tuple(tool for tool in tools if not tool.legacy_only)


def missing_capability(
    requests: dict[str, dict[str, Any]], capabilities: dict[str, Any]
) -> dict[str, Any] | None:
    """The client capability the requests need but `capabilities` (a declared `ClientCapabilities`
    object) lacks, as a `ClientCapabilities` fragment (e.g. `{"elicitation": {"url": {}}}`), or
    None when the client may be asked. `elicitation: {}` means form mode only (2025-11-25)."""
    for request in requests.values():
        method = request.get("method")
        params = request.get("params") or {}
        if method == "elicitation/create":
            declared = capabilities.get("elicitation")
            if not isinstance(declared, dict):
                return {"elicitation": {}}
            if params.get("mode") == "url" and "url" not in declared:
                return {"elicitation": {"url": {}}}
            if params.get("mode", "form") == "form" and declared and "form" not in declared:
                return {"elicitation": {"form": {}}}
        elif method == "sampling/createMessage" and "sampling" not in capabilities:
            return {"sampling": {}}
        elif method == "roots/list" and "roots" not in capabilities:
            return {"roots": {}}
    return None


async def scaled_sleep(seconds: float, speed: float) -> None:
    """Sleep `seconds` of demo time; `speed` > 1 makes demos and tests faster."""
    await asyncio.sleep(seconds / max(speed, 0.001))
