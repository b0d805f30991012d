"""The demo tools that ask the client before they finish: forms (every schema type, two at once),
a URL to open, a sample from the client's model, and the client's roots."""

from __future__ import annotations

from typing import Any

from app.demo.tool_contract import JobContext, elicit, text_result

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
