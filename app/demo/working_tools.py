"""The demo tools that work without asking: quick and long jobs, with progress, failing either way,
with structured output, task-only, and one answered at once once its result is cached."""

from __future__ import annotations

from typing import Any

from app.demo.tool_contract import JobContext, ToolFailure, text_result


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
