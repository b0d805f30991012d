"""The independent servers of the interop suite: what each is, how to install and start it, and
which of its tools exercise which capability.

Each server is installed by pinned version (npm into the test cache through
`tests.support.node_tools`, PyPI into its own virtualenv through `tests.support.python_tools`) the
first time a test asks for it, and listens on 127.0.0.1 only (Node servers through the
bind-localhost preload, the Python ones are told so). The README's "Works with" table is this
catalogue in words.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tests.support.demo_servers import free_port, start_http_server, wait_for_port
from tests.support.node_tools import node_command, node_env, npm_install
from tests.support.python_tools import venv_python

SERVER_SCRIPTS = Path(__file__).resolve().parent / "servers"
START_TIMEOUT_S = 60.0

Transport = Literal["http", "stdio"]

EVERYTHING = ("@modelcontextprotocol/server-everything", "2026.8.31")
TS_SDK = ("@modelcontextprotocol/sdk", "1.32.2")
TS_SDK_V2 = ("@modelcontextprotocol/server", "2.4.0")
FASTMCP4 = ("fastmcp==4.1.4", "fastmcp-tasks==4.1.4")
FASTMCP2 = ("fastmcp==2.14.7",)
PYTHON_SDK_1 = ("mcp==1.30.0",)
PYTHON_SDK_1_26 = ("mcp==1.26.0",)
PYTHON_SDK_2 = ("mcp==2.3.0",)
QUIET_FASTMCP = {"FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_SHOW_SERVER_BANNER": "false"}


@dataclass(frozen=True)
class Call:
    """A tool call that exercises something, the answers it needs and what its result says."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    answers: tuple[dict[str, Any], ...] = ()
    """`--answers` rules for the questions the call asks."""
    expect: str = ""
    """Text the final result contains."""
    keys: tuple[str, ...] = ()
    """What to press in the TUI's input modal to give the same answer (then ctrl+s)."""


@dataclass(frozen=True)
class Server:
    """One independent server: its family, wire, transports and the calls that exercise it."""

    name: str
    family: str
    wire: Literal["legacy", "extension", "none"]
    era: Literal["legacy", "modern"]
    transports: tuple[Transport, ...]
    http: Callable[[int], tuple[list[str], dict[str, str]]]
    stdio: Callable[[], list[str]] | None = None
    finishes: Call | None = None
    """A task that ends `completed` on its own."""
    form: Call | None = None
    sampling: Call | None = None
    slow: Call | None = None
    """A task long enough to cancel; None where cancelling is not offered or takes the server
    down (noted on the server)."""
    plain: Call | None = None
    """A tool called without a task."""
    check: Call | None = None
    """The call `taskscope check` is pointed at where `check_call`'s choice would not do (a task
    that ends in 0.5 s may end before the cancel scenario's cancel reaches it)."""
    asserted: Call | None = None
    """A task the server creates only when `--wire legacy` asserts the wire: it accepts
    task-augmented calls without declaring `tasks.requests.tools.call`."""
    asks_on_legacy: Call | None = None
    """A plain call whose question only the legacy era can carry: on a 2026-07-28 connection the
    server has no back-channel to ask on."""
    lists: bool = False
    survives_closed_sessions: bool = True
    """False for a server that crashes when a session closes before its task ends."""
    variant: str | None = None
    """A wire variant taskscope notes on this server's task creation."""
    note: str = ""

    def __str__(self) -> str:
        return self.name


def _node_http(package: tuple[str, str], script: str, *args: str, port_env: str = "PORT") -> Any:
    def command(port: int) -> tuple[list[str], dict[str, str]]:
        root = npm_install(*package)
        return node_command(root / script, *args), node_env({port_env: str(port)})

    return command


def _node_stdio(package: tuple[str, str], script: str, *args: str) -> Callable[[], list[str]]:
    def command() -> list[str]:
        return node_command(npm_install(*package) / script, *args)

    return command


def _sdk2_script() -> Path:
    """Our TS SDK v2 server script, copied beside its node_modules (ESM ignores NODE_PATH)."""
    package = npm_install(*TS_SDK_V2)
    target = package.parent.parent / "sdk2_server.mjs"
    shutil.copyfile(SERVER_SCRIPTS / "sdk2_server.mjs", target)
    return target


def _sdk2_http(port: int) -> tuple[list[str], dict[str, str]]:
    return node_command(_sdk2_script(), "http"), node_env({"PORT": str(port)})


def _python(name: str, pins: Sequence[str], script: str) -> tuple[Any, Callable[[], list[str]]]:
    def http(port: int) -> tuple[list[str], dict[str, str]]:
        python = venv_python(name, pins)
        command = [str(python), str(SERVER_SCRIPTS / script), "--http", "--port", str(port)]
        return command, {**node_env(), **QUIET_FASTMCP}

    def stdio() -> list[str]:
        return [str(venv_python(name, pins)), str(SERVER_SCRIPTS / script)]

    return http, stdio


def _accept(**content: Any) -> dict[str, Any]:
    return {
        "match": {"method": "elicitation/create"},
        "response": {"action": "accept", "content": content},
    }


SAMPLED = {
    "match": {"method": "sampling/createMessage"},
    "response": {
        "role": "assistant",
        "content": {"type": "text", "text": "steam over green leaves"},
        "model": "interop-model",
        "stopReason": "endTurn",
    },
}

_fastmcp4_http, _fastmcp4_stdio = _python("fastmcp4", FASTMCP4, "fastmcp4_tasks.py")
_fastmcp2_http, _fastmcp2_stdio = _python("fastmcp2", FASTMCP2, "fastmcp2_tasks.py")
_mcp1_http, _mcp1_stdio = _python("mcp1", PYTHON_SDK_1, "mcp1_tasks.py")
_mcp126_http, _mcp126_stdio = _python("mcp126", PYTHON_SDK_1_26, "mcp126_tasks.py")
_mcp2_http, _mcp2_stdio = _python("mcp2", PYTHON_SDK_2, "mcp2_elicit.py")

SERVERS: tuple[Server, ...] = (
    Server(
        name="everything",
        family=f"TypeScript SDK 1.32.2 ({EVERYTHING[0]}@{EVERYTHING[1]})",
        wire="legacy",
        era="legacy",
        transports=("http", "stdio"),
        http=_node_http(EVERYTHING, "dist/index.js", "streamableHttp"),
        stdio=_node_stdio(EVERYTHING, "dist/index.js", "stdio"),
        finishes=Call("simulate-research-query", {"topic": "tea"}, expect="Research Report"),
        form=Call(
            "simulate-research-query",
            {"topic": "python", "ambiguous": True},
            answers=(_accept(interpretation="programming"),),
            expect="programming",
            keys=("enter", "down", "enter"),
        ),
        slow=Call("simulate-research-query", {"topic": "tea"}),
        plain=Call("echo", {"message": "hi"}, expect="hi"),
        lists=True,
    ),
    Server(
        name="ts-sdk-simpleStreamableHttp",
        family=f"TypeScript SDK 1.32.2 example ({TS_SDK[0]}@{TS_SDK[1]})",
        wire="legacy",
        era="legacy",
        transports=("http",),
        http=_node_http(
            TS_SDK, "dist/esm/examples/server/simpleStreamableHttp.js", port_env="MCP_PORT"
        ),
        finishes=Call("delay", {"duration": 1000}),
        form=Call(
            "collect-user-info-task",
            {"infoType": "contact"},
            answers=(_accept(name="Ada", email="ada@example.com"),),
            expect="Ada",
            keys=(*"Ada", "tab", *"ada@example.com"),
        ),
        plain=Call("greet", {"name": "Ada"}, expect="Ada"),
        survives_closed_sessions=False,
        note=(
            "the example crashes ('Not connected' in storeTaskResult) when a task ends after its "
            "session was closed or cancelled; neither is exercised"
        ),
    ),
    Server(
        name="ts-sdk-simpleTaskInteractive",
        family=f"TypeScript SDK 1.32.2 example ({TS_SDK[0]}@{TS_SDK[1]})",
        wire="legacy",
        era="legacy",
        transports=("http",),
        http=_node_http(TS_SDK, "dist/esm/examples/server/simpleTaskInteractive.js"),
        form=Call(
            "confirm_delete",
            {"filename": "notes.txt"},
            answers=(_accept(confirm=True),),
            expect="Deleted 'notes.txt'",
            keys=("space",),
        ),
        sampling=Call("write_haiku", {"topic": "tea"}, answers=(SAMPLED,), expect="steam"),
        note="offers no tasks/cancel and no tasks/list",
    ),
    Server(
        name="fastmcp4-tasks",
        family="FastMCP 4.1.4 + fastmcp-tasks 4.1.4 (PyPI)",
        wire="extension",
        era="modern",
        transports=("http", "stdio"),
        http=_fastmcp4_http,
        stdio=_fastmcp4_stdio,
        finishes=Call("slow", {"seconds": 0.5}, expect="slept"),
        form=Call(
            "ask_name",
            {"greeting": "Hi"},
            answers=(_accept(name="Ada"),),
            expect="Hi, Ada!",
            keys=tuple("Ada"),
        ),
        slow=Call("slow", {"seconds": 60}),
        plain=Call("plain_echo", {"text": "hi"}, expect="hi"),
    ),
    Server(
        name="python-sdk-1",
        family="Python SDK 1.30.0, experimental tasks (PyPI mcp)",
        wire="legacy",
        era="legacy",
        transports=("http", "stdio"),
        http=_mcp1_http,
        stdio=_mcp1_stdio,
        finishes=Call("slow", {"seconds": 0.5}, expect="slept"),
        form=Call(
            "confirm",
            {"filename": "notes.txt"},
            answers=(_accept(confirm=True),),
            expect="Deleted 'notes.txt'",
            keys=("space",),
        ),
        sampling=Call("haiku", {"topic": "tea"}, answers=(SAMPLED,), expect="steam"),
        slow=Call("slow", {"seconds": 60}),
        plain=Call("echo", {"text": "hi"}, expect="hi"),
        lists=True,
    ),
    Server(
        name="python-sdk-1-26",
        family="Python SDK 1.26.0, experimental tasks (PyPI mcp; the 1.23-1.26 generation)",
        wire="legacy",
        era="legacy",
        transports=("http", "stdio"),
        http=_mcp126_http,
        stdio=_mcp126_stdio,
        asserted=Call("slow", {"seconds": 0.5}, expect="slept"),
        plain=Call("echo", {"text": "hi"}, expect="hi"),
        check=Call(
            "confirm",
            {"filename": "notes.txt"},
            answers=(_accept(confirm=True),),
            expect="Deleted 'notes.txt'",
        ),
        lists=True,
        note=(
            "declares capabilities.tasks.requests.tools as {} without call, yet accepts "
            "task-augmented calls: refused by default, sent with --wire legacy"
        ),
    ),
    Server(
        name="fastmcp2",
        family="FastMCP 2.14.7 (PyPI; 2025-11-25 tasks through docket)",
        wire="legacy",
        era="legacy",
        transports=("http", "stdio"),
        http=_fastmcp2_http,
        stdio=_fastmcp2_stdio,
        finishes=Call("slow", {"seconds": 0.5}, expect="slept"),
        slow=Call("slow", {"seconds": 60}),
        plain=Call("plain_echo", {"text": "hi"}, expect="hi"),
        check=Call("slow", {"seconds": 3}),
        variant=(
            "tools/call: the task came as _meta['modelcontextprotocol.io/task'] on a tool result"
        ),
        note="its tasks cannot ask questions (ctx.elicit fails inside a docket task)",
    ),
    Server(
        name="ts-sdk-v2",
        family=f"TypeScript SDK 2.4.0 ({TS_SDK_V2[0]}@{TS_SDK_V2[1]})",
        wire="none",
        era="modern",
        transports=("http", "stdio"),
        http=_sdk2_http,
        stdio=lambda: node_command(_sdk2_script(), "stdio"),
        plain=Call("echo", {"text": "hi"}, expect="hi"),
        note="serves 2026-07-28 without the tasks extension: no tasks to create",
    ),
    Server(
        name="python-sdk-2",
        family="Python SDK 2.3.0, MCPServer (PyPI mcp)",
        wire="none",
        era="modern",
        transports=("http", "stdio"),
        http=_mcp2_http,
        stdio=_mcp2_stdio,
        plain=Call("echo", {"text": "hi"}, expect="hi"),
        asks_on_legacy=Call(
            "deploy",
            {"service": "web"},
            answers=(_accept(confirm=True),),
            expect="Deployed 'web'",
            keys=("space",),
        ),
        note=(
            "dual-era without tasks; ctx.elicit has no back-channel on 2026-07-28 connections, "
            "so a tool that asks works only with --era legacy"
        ),
    ),
)

BY_NAME = {server.name: server for server in SERVERS}


def check_call(server: Server) -> Call | None:
    """The call `taskscope check` uses on `server`: one that asks a question where there is one
    (so the question checks decide), else one that finishes, else a plain one."""
    return server.check or server.form or server.finishes or server.plain


def cases(
    capability: str, *, wire: str | None = None, transport: Transport | None = None
) -> list[tuple[Server, Transport]]:
    """Every (server, transport) whose server offers `capability` (a `Server` field name),
    narrowed to one tasks wire and one transport when given."""
    return [
        (server, each)
        for server in SERVERS
        if getattr(server, capability) not in (None, False) and wire in (None, server.wire)
        for each in server.transports
        if transport in (None, each)
    ]


def case_id(case: tuple[Server, Transport]) -> str:
    server, transport = case
    return f"{server.name}-{transport}"


@contextmanager
def running(server: Server) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start `server` over Streamable HTTP on a free 127.0.0.1 port; yield its URL and process."""
    with start_http_server(server.http, server.name, START_TIMEOUT_S) as started:
        yield started


def target_flags(server: Server, transport: Transport, url: str | None) -> list[str]:
    """The taskscope flags that reach `server` over `transport` (`url` for HTTP)."""
    if transport == "http":
        assert url is not None
        return ["--url", url]
    assert server.stdio is not None
    return ["--command", subprocess.list2cmdline(server.stdio())]


def python() -> str:
    """The interpreter running the tests (and so taskscope)."""
    return sys.executable


OAUTH_FAMILY = f"TypeScript SDK 1.32.2 example with --oauth ({TS_SDK[0]}@{TS_SDK[1]})"
"""The OAuth-protected independent server: `simpleStreamableHttp.js --oauth`, the SDK's
authorization server (dynamic registration, PKCE, approval at once) on a second port. Its
registrations carry a client secret but no `token_endpoint_auth_method`, and its metadata lists
`client_secret_post` and `none`; with `--oauth-strict` it takes only tokens issued for its own
resource (RFC 8707)."""


@contextmanager
def running_protected(*, strict: bool) -> Iterator[str]:
    """Start the OAuth-protected server; yield its URL as its metadata names it (`localhost`,
    which the resource check compares with the URL taskscope was given)."""
    auth_port = free_port()

    def launch(port: int) -> tuple[list[str], dict[str, str]]:
        script = npm_install(*TS_SDK) / "dist/esm/examples/server/simpleStreamableHttp.js"
        flags = ["--oauth", *(["--oauth-strict"] if strict else [])]
        return node_command(script, *flags), node_env(
            {"MCP_PORT": str(port), "MCP_AUTH_PORT": str(auth_port)}
        )

    with start_http_server(launch, "ts-sdk-oauth", START_TIMEOUT_S) as (url, process):
        wait_for_port(auth_port, timeout=START_TIMEOUT_S, process=process)
        yield url.replace("127.0.0.1", "localhost", 1)
