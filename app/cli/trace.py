"""`--trace-frames FILE`: every JSON-RPC frame in and out written as one JSON object per line.

The connection has already redacted secrets in the frames it reports. Lines are flushed as they are
written, so a trace survives Ctrl-C or SIGTERM.
"""

from __future__ import annotations

from typing import TextIO

from app.cli.output import usage_error
from app.engine.record.recording import frame_json
from app.engine.rpc.rpc_types import Frame
from app.engine.safety import deep_json


class FrameTrace:
    """An open NDJSON trace file that frame listeners write to."""

    def __init__(self, path: str) -> None:
        try:
            self._file: TextIO | None = open(path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise usage_error(
                f"--trace-frames: cannot write {path}: {exc.strerror or exc}"
            ) from exc

    def write(self, frame: Frame) -> None:
        """Append one frame (a frame listener)."""
        if self._file is None:
            return
        self._file.write(deep_json.dumps(frame_json(frame), default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file; later frames are dropped."""
        if self._file is not None:
            self._file.close()
            self._file = None
