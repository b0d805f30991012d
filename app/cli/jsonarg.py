"""JSON flag values (`--tool-args`, `--input-responses`): inline, as `@path`, or `-` (stdin)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from app.cli.output import usage_error
from app.engine.safety import deep_json


def read_json_object(text: str, flag: str, stdin: TextIO | None = None) -> dict[str, Any]:
    """The JSON object `text` denotes (inline JSON, `@path` or `-`); a usage error otherwise."""
    source = "inline"
    if text == "-":
        source = "stdin"
        text = (stdin or sys.stdin).read()
    elif text.startswith("@"):
        source = text[1:]
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise usage_error(f"{flag}: cannot read {source}: {exc.strerror or exc}") from exc
    try:
        value = deep_json.loads(text)  # any depth: `json` raises RecursionError past ~1,000
    except ValueError as exc:
        raise usage_error(f"{flag} ({source}) is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise usage_error(f"{flag} ({source}) must be a JSON object, not {type(value).__name__}")
    return value
