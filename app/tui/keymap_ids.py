"""The binding ids a keymap may name, so a config file's unknown id is reported, not ignored.

Textual's `set_keymap` skips an id no binding has without a word; the ids live on the App, its
screens and its widgets (`BINDINGS`), so they are gathered from every class loaded once the
`widgets` package is imported (after the first frame: nothing here is needed to draw it).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.dom import DOMNode

from app.engine.safety.sanitize import one_line
from widgets.plain import toast

if TYPE_CHECKING:
    from textual.app import App

    from app.tui.config import TuiConfig


def warn_unknown_keymap_ids(app: App[Any], config: TuiConfig) -> None:
    """A warning naming the config file's keymap ids that no binding has (Textual ignores
    them), and the file."""
    unknown = unknown_ids(config.keymap)
    if not unknown:
        return
    names = ", ".join(repr(one_line(binding_id, 40)) for binding_id in unknown)
    where = f" in {config.path}" if config.path is not None else ""
    toast(
        app,
        f"keymap{where}: no binding has the id {names}, so it changes no key "
        "(the README's key table lists the ids).",
        title="Config",
        severity="warning",
    )


def known_binding_ids() -> frozenset[str]:
    """Every binding id of the App, its screens and widgets, and Textual's own classes."""
    import widgets

    for module in pkgutil.iter_modules(widgets.__path__):
        importlib.import_module(f"widgets.{module.name}")
    return frozenset(
        binding.id
        for node_class in _subclasses(DOMNode)
        for binding in node_class.__dict__.get("BINDINGS", ())
        if isinstance(binding, Binding) and binding.id
    )


def unknown_ids(keymap_ids: Iterable[str]) -> list[str]:
    """The ids of `keymap_ids` that no binding has, in the file's order."""
    known = known_binding_ids()
    return [binding_id for binding_id in keymap_ids if binding_id not in known]


def _subclasses(base: type) -> Iterator[type]:
    subclass: type
    for subclass in base.__subclasses__():
        yield subclass
        yield from _subclasses(subclass)
