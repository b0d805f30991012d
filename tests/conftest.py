"""Test-wide fixtures: SVG snapshots live in the top-level snapshots/ folder; no cursor blinks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension
from textual.widgets import Input

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"


def _snapshot_dirname(cls: type, *, test_location: Any) -> str:
    return str(SNAPSHOT_ROOT / Path(test_location.filepath).stem)


SVGImageExtension.dirname = classmethod(_snapshot_dirname)  # type: ignore[method-assign,assignment]


@pytest.fixture(autouse=True)
def frozen_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Input cursors never blink, so screenshots do not depend on timing."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
