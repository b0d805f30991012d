"""The demo tools each demo server lists: every tool's name, description, input schema, job and
how it may run as a task on each wire."""

from __future__ import annotations

from typing import Any, Literal

from app.demo.asking_tools import (
    connect_account,
    deploy_release,
    index_workspace,
    provision_server,
    summarize_text,
)
from app.demo.tool_contract import DemoTool
from app.demo.working_tools import (
    ANALYSIS_OUTPUT_SCHEMA,
    analyze_logs,
    build_report,
    fetch_quote,
    lookup_weather,
    migrate_database,
    nightly_backup,
    quote_is_cached,
    sync_inventory,
    validate_config,
)


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
