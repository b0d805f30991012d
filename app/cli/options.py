"""The parsed command line as typed, frozen values: what every command runs on.

`app.cli.args.parse` builds one `Options` from argparse's namespace; no module past it reads the
namespace. Only frozen dataclasses live here (no argparse, no engine models), so any command may
import it without slowing start-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.rpc.reconnect import DEFAULT_ATTEMPTS

if TYPE_CHECKING:
    from app.engine.record.export import ExportFormat
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
class CheckOptions:
    """`taskscope check`: the tool, the checks chosen, and where the report goes."""

    tool_name: str | None
    tool_args: str | None
    check_ids: tuple[str, ...]
    categories: tuple[str, ...]
    format: str | None
    junit: str | None
    timeout_ms: int


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
class WatchBounds:
    """How long and how patiently to watch (`--poll-interval-ms`, `--duration-ms`, …)."""

    user_min_ms: int | None = None
    duration_s: float | None = None
    max_input_rounds: int | None = None
    max_consecutive_errors: int = DEFAULT_MAX_CONSECUTIVE_ERRORS


@dataclass(frozen=True, slots=True)
class TaskOptions:
    """`tasks get|result|cancel`: the one task the verb is about."""

    task_id: str


@dataclass(frozen=True, slots=True)
class UpdateOptions:
    """`tasks update`: the task and the raw `--input-responses` (JSON, @FILE or -)."""

    task_id: str
    input_responses: str


@dataclass(frozen=True, slots=True)
class WatchOptions:
    """`tasks watch`: the task to adopt and how to watch it."""

    task_id: str
    bounds: WatchBounds


@dataclass(frozen=True, slots=True)
class CallOptions:
    """`tools call`: the tool, its raw arguments, and whether to ask for (and watch) a task."""

    tool_name: str
    tool_args: str | None
    task: bool
    task_ttl: int | None
    task_watch: bool
    bounds: WatchBounds


@dataclass(frozen=True, slots=True)
class ResourceOptions:
    """`resources read`: which resource."""

    uri: str


@dataclass(frozen=True, slots=True)
class PromptOptions:
    """`prompts get`: which prompt, and its raw arguments."""

    name: str
    prompt_args: str | None


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """`tasks export`: which tasks (each once, in order given), from which recording, as what."""

    task_ids: tuple[str, ...]
    from_recording: str
    format: ExportFormat


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """`taskscope replay FILE`: the recording, and its speed (None: show the final state)."""

    file: str
    speed: float | None


@dataclass(frozen=True, slots=True)
class ServersOptions:
    """`taskscope servers`: the config file, the servers chosen (all when none), the wait."""

    config: str
    names: tuple[str, ...]
    timeout_s: float


VerbOptions = (
    TaskOptions
    | UpdateOptions
    | WatchOptions
    | CallOptions
    | ResourceOptions
    | PromptOptions
    | ExportOptions
    | ReplayOptions
    | ServersOptions
    | CheckOptions
)
"""The flags of the verbs that take their own (the list verbs and `capabilities` take none)."""


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
        if isinstance(given, TaskOptions | UpdateOptions | WatchOptions):
            return given.task_id
        return None

    @property
    def answers_input(self) -> bool:
        """Whether the verb may meet input requests (`tools call`, `tasks watch`)."""
        return isinstance(self.verb_options, CallOptions | WatchOptions)
