"""The user's TUI settings: key remapping by binding id and the theme, from one JSON file.

`$TASKSCOPE_CONFIG`, else `$XDG_CONFIG_HOME/taskscope/config.json`, else
`~/.config/taskscope/config.json`:
`{"keymap": {"binding-id": "key"}, "theme": "name", "bell": true, "toasts": true,
"timeline": 200, "rpc_log": 2000}`. `timeline` bounds each task's kept history of states and
`rpc_log` the frames the RPC log keeps, so memory stays flat however long the inspector runs.
A missing file means defaults; a broken one (nested past any recursion limit too) is reported,
never fatal.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.safety import deep_json

CONFIG_ENV = "TASKSCOPE_CONFIG"
DEFAULT_TIMELINE = 200
"""Entries kept in each task's timeline (its history of states)."""
DEFAULT_RPC_LOG = 2_000
"""Frames kept for the RPC log."""
MAX_CAP = 1_000_000


def config_path() -> Path:
    """Where the config file is looked for."""
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "taskscope" / "config.json"


@dataclass(frozen=True)
class TuiConfig:
    """Key overrides by binding id, the theme name, the announcement switches (terminal bell and
    toasts when a task needs input or ends), and what was wrong with the file."""

    keymap: dict[str, str] = field(default_factory=dict)
    theme: str | None = None
    bell: bool = True
    toasts: bool = True
    timeline: int = DEFAULT_TIMELINE
    rpc_log: int = DEFAULT_RPC_LOG
    problems: tuple[str, ...] = ()
    path: Path | None = None
    """The file the settings were read from (None: defaults, no file), for the warnings."""


def load_config(path: Path | None = None) -> TuiConfig:
    """Read the config file; unknown or mistyped entries are skipped and listed in `problems`."""
    where = path or config_path()
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        return TuiConfig()
    except OSError as exc:
        return TuiConfig(problems=(f"cannot read {where}: {exc.strerror or exc}",))
    try:
        document = deep_json.loads(text)  # any nesting, any integer: the checks below name them
    except ValueError as exc:
        return TuiConfig(problems=(f"{where} is not valid JSON: {exc}",))
    if not isinstance(document, dict):
        return TuiConfig(problems=(f"{where} must hold a JSON object",))
    problems: list[str] = []
    keymap: dict[str, str] = {}
    raw_keymap = document.get("keymap", {})
    if isinstance(raw_keymap, dict):
        for binding_id, keys in raw_keymap.items():
            if isinstance(keys, str) and keys.strip():
                keymap[str(binding_id)] = keys.strip()
            else:
                problems.append(f"keymap.{binding_id} must be a key name such as 'f5'")
    else:
        problems.append("keymap must be an object of binding id to key")
    theme = document.get("theme")
    if theme is not None and not isinstance(theme, str):
        problems.append("theme must be a theme name")
        theme = None
    return TuiConfig(
        keymap=keymap,
        theme=theme,
        bell=_switch(document, "bell", problems),
        toasts=_switch(document, "toasts", problems),
        timeline=_cap(document, "timeline", DEFAULT_TIMELINE, problems),
        rpc_log=_cap(document, "rpc_log", DEFAULT_RPC_LOG, problems),
        problems=tuple(problems),
        path=where,
    )


def _switch(document: dict[str, object], name: str, problems: list[str]) -> bool:
    """An on/off setting (default on); anything but true/false is a problem."""
    value = document.get(name, True)
    if isinstance(value, bool):
        return value
    problems.append(f"{name} must be true or false")
    return True


def _cap(document: dict[str, object], name: str, default: int, problems: list[str]) -> int:
    """A bound on kept entries: a whole number from 1 to `MAX_CAP`, else the default."""
    value = document.get(name, default)
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_CAP:
        return value
    problems.append(f"{name} must be a whole number from 1 to {MAX_CAP:,}")
    return default
