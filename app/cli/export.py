"""`taskscope tasks export`: tasks' lives from a recording, as Markdown or JSON on stdout.

Needs no server: everything comes from a `--record` file. Several `--task-id`s export together.
With several servers recorded, a `--task-id` is a row key ("alpha · task-7"), or an id, which
exports that task of every server that has one; each life names its server. A unique start of an
id or row key (the short id the screen shows) names its task; an ambiguous one is a usage error.
"""

from __future__ import annotations

from app.cli.output import EXIT_OK, Output, usage_error
from app.cli.verb_options import ExportOptions
from app.engine.record.export import render, task_lives
from app.engine.record.replay import AmbiguousTaskId, RecordingError, read_recording

MAX_CANDIDATES = 20
"""Tasks an ambiguous `--task-id` names in its error at most (a recording may hold thousands)."""


def tasks_export(export: ExportOptions, out: Output) -> int:
    """Print the export of the named tasks; an unknown id or unreadable file is a usage error, and
    each line of the file that is not a recording entry is named on stderr."""
    path = export.from_recording
    try:
        recording = read_recording(path)
    except RecordingError as exc:
        raise usage_error(f"--from-recording: {exc}") from exc
    for line in recording.skipped_lines():
        out.note(f"--from-recording: {line}")
    try:
        found = {given: recording.keys_of(given) for given in export.task_ids}
    except AmbiguousTaskId as exc:
        raise usage_error(
            f"--task-id {exc}: give more of the id",
            {"candidates": exc.candidates[:MAX_CANDIDATES], "matched": len(exc.candidates)},
        ) from exc
    missing = [given for given, keys in found.items() if not keys]
    if missing:
        raise usage_error(
            f"not in the recording: {', '.join(missing)}",
            {"recordedTaskIds": recording.task_ids},
        )
    keys = list(dict.fromkeys(key for keys in found.values() for key in keys))
    out.stdout.write(render(task_lives(recording.entries, keys), export.format))
    out.stdout.flush()
    return EXIT_OK
