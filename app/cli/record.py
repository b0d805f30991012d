"""`--record FILE` on the command line: open the recorder both faces (headless and TUI) write to."""

from __future__ import annotations

from collections.abc import Sequence

from app.cli.options import SessionOptions
from app.cli.output import usage_error
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.recording import Face
from app.engine.rpc.targets import Target


def open_recorder(
    flags: SessionOptions,
    target: Target | None,
    face: Face,
    command: str | None,
    servers: Sequence[str] = (),
) -> Recorder | None:
    """The recorder `--record` asks for (appending, redacting like the connection to `target`),
    or None; `command` names the verb in the recording. With several `servers` (and no one
    `target`) each server records through its own `Recorder.for_server`."""
    path = flags.record
    if not path:
        return None
    redactor = redactor_for(target, flags.redact)
    try:
        return Recorder.to_file(path, redactor, face=face, command=command, servers=servers)
    except OSError as exc:
        raise usage_error(f"--record: cannot write {path}: {exc.strerror or exc}") from exc
