"""What taskscope tells a server it can do as a client: the one owner of the client capabilities.

By default it advertises elicitation (form and URL), sampling, roots (only when roots were given:
a client without roots must not say it has them) and the tasks extension. A user may withhold
any of them (`--withhold`, or a toggle in the inspector while connected) or replace the whole
object (`--client-capabilities`), to see how a server treats a client that can do less.

Withholding `tasks` means asking for no task. On the modern era the per-request declaration of
the extension is left out (the server answers `tools/call` at once or with -32021, and `tasks/*`
with -32021); the legacy era has no client declaration for task requests, so there `params.task`
is never sent and a task-augmented call goes out plain. The others leave their key out of the
object: on the modern era from the next request, on the legacy era from the next `initialize`.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine.tasks.protocol_keys import TASKS_EXTENSION

WITHHOLDABLE: tuple[str, ...] = ("tasks", "elicitation", "sampling", "roots")
"""The capabilities a user may withhold, by the name the flag and the inspector use."""


@dataclass(frozen=True, slots=True)
class ClientCapabilities:
    """The client capabilities of one session, as the user chose them (frozen: a change is a
    new value the session hands to its connection)."""

    replaced: Mapping[str, Any] | None = None
    """`--client-capabilities`: the whole object to advertise instead of taskscope's own."""
    withheld: frozenset[str] = frozenset()
    """Names of `WITHHOLDABLE` left out of whatever is advertised."""
    roots: bool = True
    """Whether roots were configured (the session sets it from its `--root` entries)."""

    @property
    def offered(self) -> tuple[str, ...]:
        """The withholdable capabilities the object holds before anything is withheld."""
        base = self._base()
        return tuple(name for name in WITHHOLDABLE if _holds(base, name))

    @property
    def declares_tasks(self) -> bool:
        """Whether the client asks for tasks: the extension on modern requests, `params.task` on
        legacy task-augmented calls."""
        return "tasks" in self.offered and "tasks" not in self.withheld

    def modern(self, *, declare_tasks: bool = True) -> dict[str, Any]:
        """The object every modern request carries in its `_meta`; without the tasks extension
        when it is withheld or this request must not declare it (`declare_tasks=False`)."""
        left_out = self.withheld if declare_tasks else self.withheld | {"tasks"}
        return _without(self._base(), left_out)

    def legacy(self) -> dict[str, Any]:
        """The object `initialize` carries: taskscope's own has no extensions (2025-11-25 knows
        none); a replaced one goes as given, less what is withheld."""
        base = self._base()
        if self.replaced is None:
            base.pop("extensions", None)
        return _without(base, self.withheld)

    def withholding(self, names: Iterable[str]) -> ClientCapabilities:
        """The same capabilities with exactly `names` withheld."""
        return dataclasses.replace(self, withheld=frozenset(names))

    def as_json(self, *, legacy: bool) -> dict[str, Any]:
        """What `tasks capabilities` prints: the object sent (at `initialize` on the legacy era,
        on every request on the modern one), what is withheld, and whether tasks are asked for."""
        return {
            "capabilities": self.legacy() if legacy else self.modern(),
            "withheld": sorted(self.withheld),
            "declaresTasks": self.declares_tasks,
        }

    def describe(self) -> str:
        """One line for the inspector: what is advertised, then what is withheld."""
        offered = self.offered
        shown = [name for name in offered if name not in self.withheld]
        text = ", ".join(shown) if shown else "nothing"
        withheld = [name for name in offered if name in self.withheld]
        if "tasks" not in offered:
            withheld.insert(0, "tasks")
        return f"{text} · withheld: {', '.join(withheld)}" if withheld else text

    def withheld_among(self, required: Any) -> list[str]:
        """The capabilities a server said it needs (a `requiredCapabilities` fragment) that
        taskscope would advertise but this session does not: the user's own doing."""
        ours = ClientCapabilities(roots=self.roots).offered
        named = ("tasks" if name == TASKS_EXTENSION else name for name in fragment_names(required))
        return [
            name
            for name in named
            if name in ours and (name in self.withheld or name not in self.offered)
        ]

    def _base(self) -> dict[str, Any]:
        if self.replaced is not None:
            return copy.deepcopy(dict(self.replaced))
        capabilities: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}, "sampling": {}}
        if self.roots:
            capabilities["roots"] = {}
        capabilities["extensions"] = {TASKS_EXTENSION: {}}
        return capabilities


def fragment_names(fragment: Any) -> list[str]:
    """The capabilities a `ClientCapabilities` fragment names (e.g. a -32021's
    `data.requiredCapabilities`): each key, and each extension by its id."""
    if not isinstance(fragment, Mapping):
        return []
    names: list[str] = []
    for key, value in fragment.items():
        if key == "extensions" and isinstance(value, Mapping):
            names.extend(str(extension) for extension in value)
        else:
            names.append(str(key))
    return names


def _holds(capabilities: Mapping[str, Any], name: str) -> bool:
    if name == "tasks":
        extensions = capabilities.get("extensions")
        return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions
    return name in capabilities


def _without(capabilities: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """`capabilities` less `names` (an `extensions` left empty by taking tasks out goes too)."""
    for name in names:
        if name != "tasks":
            capabilities.pop(name, None)
            continue
        extensions = capabilities.get("extensions")
        if isinstance(extensions, dict) and TASKS_EXTENSION in extensions:
            del extensions[TASKS_EXTENSION]
            if not extensions:
                del capabilities["extensions"]
    return capabilities
