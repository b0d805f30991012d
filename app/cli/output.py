"""What the headless commands print: exit codes, error codes, JSON envelopes and error reports.

Results go to stdout (one JSON document per command), everything else (notes, transitions,
errors) to stderr. Errors are `{"error": {"code", "message", "details"}}` JSON when stdout is not
a terminal, readable text when it is. Server text never reaches a terminal with escapes in it, and
nothing printed holds a secret: once the session knows its target, every document, line and error
goes through the session's redactor (a server may echo the token back in any of them).
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from app.engine.safety.redact import Redactor
from app.engine.safety.unsafe_chars import safe_json, write_safe_json

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INPUT_NEEDED = 6
EXIT_TIMEOUT = 7
EXIT_ABORTED = 130

USAGE = "USAGE"
TASK_UNKNOWN_OR_EXPIRED = "TASK_UNKNOWN_OR_EXPIRED"
TASKS_WIRE_MISMATCH = "TASKS_WIRE_MISMATCH"
TASKS_UNSUPPORTED = "TASKS_UNSUPPORTED"
CONNECTION_FAILED = "CONNECTION_FAILED"
RPC_ERROR = "RPC_ERROR"
PROTOCOL_VIOLATION = "PROTOCOL_VIOLATION"
INPUT_REQUIRED = "INPUT_REQUIRED"
INVALID_INPUT_RESPONSE = "INVALID_INPUT_RESPONSE"
ABORTED = "ABORTED"
READONLY = "READONLY"
TOOL_UNUSABLE = "TOOL_UNUSABLE"
LIST_TOO_LONG = "LIST_TOO_LONG"


@dataclass
class CliError(Exception):
    """A failure the command reports as an error document and turns into its exit code."""

    code: str
    message: str
    details: Any = None
    exit_code: int = EXIT_FAILURE

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def usage_error(message: str, details: Any = None) -> CliError:
    """A usage error (bad flags or input files): exit 2."""
    return CliError(USAGE, message, details, EXIT_USAGE)


def error_document(error: CliError) -> dict[str, Any]:
    """The `{"error": {...}}` document for `error`."""
    return {"error": {"code": error.code, "message": error.message, "details": error.details}}


@dataclass
class Output:
    """The command's two streams, whether a person is reading stdout, and the redactor of the
    session's secrets (set by `open_session` before it connects; empty until then)."""

    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    stdout_is_terminal: bool | None = None
    redactor: Redactor = field(default_factory=Redactor)

    def __post_init__(self) -> None:
        if self.stdout_is_terminal is None:
            self.stdout_is_terminal = _isatty(self.stdout)

    def redact(self, text: str) -> str:
        """`text` with the session's secrets replaced, for anything else that writes for a person
        (the terminal prompts)."""
        return self.redactor.text(text)

    def result(self, document: Any) -> None:
        """Print the command's one result document on stdout (written item by item: a long
        listing is never held as one string)."""
        shown = self.redactor.value(document)
        write_safe_json(shown, self.stdout.write, pretty=bool(self.stdout_is_terminal))
        self.stdout.write("\n")
        self.stdout.flush()

    def note(self, text: str) -> None:
        """Print one line of commentary on stderr (the caller has sanitized any server text)."""
        self.stderr.write(self.redactor.text(text) + "\n")
        self.stderr.flush()

    def error(self, error: CliError) -> None:
        """Report `error` on stderr: JSON when stdout is piped, readable text on a terminal."""
        shown = dataclasses.replace(
            error,
            message=self.redactor.text(error.message),
            details=self.redactor.value(error.details),
        )
        if self.stdout_is_terminal:
            self.stderr.write(readable_error(shown))
        else:
            self.stderr.write(safe_json(error_document(shown)) + "\n")
        self.stderr.flush()


def readable_error(error: CliError) -> str:
    """`error` as a few lines of text for a person."""
    from app.engine.safety.sanitize import clean_text

    lines = [f"error [{error.code}]: {clean_text(error.message)}"]
    if isinstance(error.details, dict):
        for key, value in error.details.items():
            if key == "usage" and isinstance(value, str):  # argparse's own lines, "usage:" first
                lines.extend(f"  {clean_text(line)}" for line in value.splitlines())
                continue
            shown = value if isinstance(value, str) else safe_json(value)
            lines.append(f"  {key}: {clean_text(shown)}")
    elif error.details is not None:
        lines.append(f"  {clean_text(safe_json(error.details))}")
    return "\n".join(lines) + "\n"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
