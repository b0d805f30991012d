"""A report file (the CLI's `--junit`, the inspector's check export) is the user's own: 0600 even
over an existing file, written in place of a file but never through a symlink."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.engine.paths import write_private


def test_a_new_file_and_an_existing_one_end_up_0600(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.xml"
    assert write_private(fresh, "<a/>") == fresh.resolve()
    assert fresh.read_text() == "<a/>" and fresh.stat().st_mode & 0o777 == 0o600
    shared = tmp_path / "shared.md"
    shared.write_text("old, longer text")
    shared.chmod(0o644)
    write_private(shared, "new")
    assert shared.read_text() == "new" and shared.stat().st_mode & 0o777 == 0o600


def test_a_symlink_is_refused_and_its_target_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("keep me")
    link = tmp_path / "report.json"
    os.symlink(target, link)
    with pytest.raises(OSError):
        write_private(link, "{}")
    assert target.read_text() == "keep me"
