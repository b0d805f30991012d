"""The parsed command line as typed, frozen values: what every command runs on.

`app.cli.args.parse` builds one `Options` from argparse's namespace; no module past it reads the
namespace. Only frozen dataclasses live here (no argparse, no engine models), so any command may
import it without slowing start-up; the flags of single verbs are in `app.cli.verb_options`,
loaded only when such a verb is parsed (the full-screen UI never needs them: 5 ms of its start).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.rpc.reconnect import DEFAULT_ATTEMPTS

if TYPE_CHECKING:
    from app.cli.verb_options import VerbOptions
    from app.engine.rpc.era import EraPreference
    from app.engine.rpc.targets import HttpTransportKind
    from app.engine.tasks.models import Wire

DEFAULT_DURATION_MS = 300_000
DEFAULT_MAX_CONSECUTIVE_ERRORS = 5


@dataclass(frozen=True, slots=True)
class AuthFlags:
    """The OAuth flags as given; `target_from_args` turns them into the target's settings."""

    mode: str | None = None
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_metadata_url: str | None = None
    private_key_file: str | None = None
    signing_algorithm: str | None = None
    no_browser: bool = False

    @property
    def given(self) -> tuple[str, ...]:
        """The flags given, by name (they only apply to --url)."""
        flags = (
            ("--auth-mode", self.mode),
            ("--client-id", self.client_id),
            ("--client-secret", self.client_secret),
            ("--client-metadata-url", self.client_metadata_url),
            ("--client-private-key", self.private_key_file),
            ("--client-signing-alg", self.signing_algorithm),
            ("--no-browser", self.no_browser or None),
        )
        return tuple(name for name, value in flags if value is not None)


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """The target flags as given (None or empty when absent); `target_from_args` checks them."""

    urls: tuple[str, ...] = ()
    """`--url`: one for a headless command, any number for the inspector."""
    transport: HttpTransportKind | None = None
    headers: tuple[str, ...] = ()
    bearer: str | None = None
    commands: tuple[str, ...] = ()
    """`--command`: one for a headless command, any number for the inspector."""
    env: tuple[str, ...] = ()
    cwd: str | None = None
    config: str | None = None
    servers: tuple[str, ...] = ()
    """`--server`, each once: one for a headless command, any number (none: all) for the TUI."""
    demo: Wire | None = None
    auth: AuthFlags = field(default_factory=AuthFlags)

    @property
    def url(self) -> str | None:
        """The first `--url`, if any."""
        return self.urls[0] if self.urls else None

    @property
    def command(self) -> str | None:
        """The first `--command`, if any."""
        return self.commands[0] if self.commands else None

    @property
    def names_target(self) -> bool:
        """Whether any flag names a server (then plain `taskscope` opens the full-screen UI)."""
        return any(value is not None for value in (self.url, self.command, self.config, self.demo))


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """How to speak to the server, for the headless commands and the full-screen UI alike."""

    era: EraPreference = "auto"
    wire: Wire | None = None
    """`--wire`: the tasks wire the server must speak (an assertion)."""
    redact: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    withhold: tuple[str, ...] = ()
    """`--withhold`: client capabilities not to advertise (`advertised.WITHHOLDABLE` names)."""
    client_capabilities: dict[str, Any] | None = None
    """`--client-capabilities`, read and checked: the object to advertise instead of ours."""
    readonly: bool = False
    record: str | None = None
    trace_frames: str | None = None
    reconnect_attempts: int = DEFAULT_ATTEMPTS


@dataclass(frozen=True, slots=True)
class InputOptions:
    """How this run answers input requests: `--answers FILE`, `--interactive`, `--yes`."""

    answers: str | None = None
    interactive: bool = False
    yes: bool = False


@dataclass(frozen=True, slots=True)
class Options:
    """One parsed command line: the verb, where to connect, how, and the verb's own flags."""

    group: str | None = None
    """`tasks`, `tools`, `resources`, `prompts`, `check`, `demo`, `replay`, or None."""
    verb: str | None = None
    target: TargetOptions = field(default_factory=TargetOptions)
    session: SessionOptions = field(default_factory=SessionOptions)
    input: InputOptions = field(default_factory=InputOptions)
    verb_options: VerbOptions | None = None

    @property
    def command(self) -> str | None:
        """The command's words, e.g. "tasks get" (what a recording names its command)."""
        return " ".join(word for word in (self.group, self.verb) if word) or None

    @property
    def task_id(self) -> str | None:
        """The one task this command is about, if it is about one."""
        given = self.verb_options
        if given is None:
            return None
        from app.cli.verb_options import TaskOptions, UpdateOptions, WatchOptions

        if isinstance(given, TaskOptions | UpdateOptions | WatchOptions):
            return given.task_id
        return None

    @property
    def answers_input(self) -> bool:
        """Whether the verb may meet input requests (`tools call`, `tasks watch`)."""
        if self.verb_options is None:
            return False
        from app.cli.verb_options import CallOptions, WatchOptions

        return isinstance(self.verb_options, CallOptions | WatchOptions)
