"""`taskscope tasks export`: tasks' lives from a recording, as Markdown or JSON on stdout.

Needs no server: everything comes from a `--record` file. Several `--task-id`s export together.
"""

from __future__ import annotations

from app.cli.options import ExportOptions
from app.cli.output import EXIT_OK, Output, usage_error
from app.engine.record.export import render, task_lives
from app.engine.record.replay import RecordingError, read_recording


def tasks_export(export: ExportOptions, out: Output) -> int:
    """Print the export of the named tasks; an unknown id or unreadable file is a usage error."""
    path = export.from_recording
    try:
        recording = read_recording(path)
    except RecordingError as exc:
        raise usage_error(f"--from-recording: {exc}") from exc
    task_ids = list(export.task_ids)
    recorded = set(recording.task_ids)
    missing = [task_id for task_id in task_ids if task_id not in recorded]
    if missing:
        raise usage_error(
            f"not in the recording: {', '.join(missing)}",
            {"recordedTaskIds": recording.task_ids},
        )
    out.stdout.write(render(task_lives(recording.entries, task_ids), export.format))
    out.stdout.flush()
    return EXIT_OK
