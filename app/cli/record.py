"""`--record FILE` on the command line: open the recorder both faces (headless and TUI) write to."""

from __future__ import annotations

import argparse

from app.cli.args import option, options
from app.cli.output import usage_error
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.recording import Face
from app.engine.rpc.targets import Target


def open_recorder(namespace: argparse.Namespace, target: Target, face: Face) -> Recorder | None:
    """The recorder `--record` asks for (appending, redacting like the connection), or None."""
    path = option(namespace, "record")
    if not path:
        return None
    words = (getattr(namespace, "group", None), getattr(namespace, "verb", None))
    command = " ".join(word for word in words if isinstance(word, str)) or None
    redactor = redactor_for(target, options(namespace, "redact"))
    try:
        return Recorder.to_file(path, redactor, face=face, command=command)
    except OSError as exc:
        raise usage_error(f"--record: cannot write {path}: {exc.strerror or exc}") from exc
