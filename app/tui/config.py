"""The user's TUI settings: key remapping by binding id and the theme, from one JSON file.

`$TASKSCOPE_CONFIG`, else `$XDG_CONFIG_HOME/taskscope/config.json`, else
`~/.config/taskscope/config.json`:
`{"keymap": {"binding-id": "key"}, "theme": "name", "bell": true, "toasts": true}`.
A missing file means defaults; a broken one is reported, never fatal.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

CONFIG_ENV = "TASKSCOPE_CONFIG"


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
    problems: tuple[str, ...] = ()


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
        document = json.loads(text)
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
    switches: dict[str, bool] = {}
    for name in ("bell", "toasts"):
        value = document.get(name, True)
        if isinstance(value, bool):
            switches[name] = value
        else:
            problems.append(f"{name} must be true or false")
    return TuiConfig(keymap=keymap, theme=theme, problems=tuple(problems), **switches)
