"""A server that echoes the client's credentials (tests/support/servers/echo_secrets.py) never gets
them shown or kept: not on stdout, stderr, in a `--record` or `--trace-frames` file, an export, the
known-tasks file, nor in anything the TUI's source hands the App (tools, events, errors, toasts).

Each case of issue 11's "Leaks" runs against the real server on 127.0.0.1, through the CLI as a
subprocess and through the engine: an echoed bearer token and API key, a token read with a
trailing `\\r`, and a password in the URL. Every secret holds a marker word (`ZETA7731`, …) that all
its encodings keep, so one search finds it however the server quoted it.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from app.cli.output import CliError, Output
from app.cli.prompts import Prompter
from app.cli.session import OutputLog
from app.engine.record.export import render, task_lives
from app.engine.record.recorder import Recorder, redactor_for, server_key
from app.engine.record.replay import read_recording
from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame, RpcError
from app.engine.rpc.targets import HttpTarget, load_config_target, url_target
from app.engine.safety.redact import REDACTED, Redactor
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import InputKind, InputRequest
from app.tui.app import TaskscopeApp, describe
from app.tui.live import LiveSource, Shown
from app.view.known_tasks import KnownTasks
from tests.support.cli_helpers import Run, clean_env, run_cli
from tests.support.demo_servers import free_port, stdio_demo_command
from tests.support.tui_helpers import SIZE, by_tool, connected, wait_for
from widgets.arguments_form import CreateRequest

pytestmark = pytest.mark.timeout(120)

TOKEN = "tk-\"Q'u\\t/d+%41=ZETA7731"
API_KEY = "key \"k'9/+%ZULU4422"
PASSWORD = 'pa"ss/KILO9911'
MARKERS = ("ZETA7731", "ZULU4422", "KILO9911")
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))
    monkeypatch.delenv("TASKSCOPE_BEARER", raising=False)


@pytest.fixture
def server(echo_secrets_url: str) -> str:
    """The echoing server's base URL, under the short name these tests use."""
    return echo_secrets_url


def with_password(base: str) -> str:
    return base.replace("http://", f"http://alice:{quote(PASSWORD, safe='')}@") + "/mcp"


def assert_hidden(*texts: str) -> None:
    """No marker of any secret, nor the Basic credential, in any of `texts`."""
    for text in texts:
        for secret in (*MARKERS, BASIC):
            assert secret not in text, f"{secret} leaked in: {text[:300]}"


def created(app: TaskscopeApp) -> bool:
    """Whether the App watches the task it created with `echo` (besides those `tasks/list` gave)."""
    return any(task.tool_name == "echo" for task in app.tasks.tasks.values())


def known_file() -> str:
    """The known-tasks file the App wrote (in TASKSCOPE_DATA_DIR)."""
    return KnownTasks("").path.read_text()


def received(server: str) -> list[dict[str, str]]:
    seen: list[dict[str, str]] = httpx.get(f"{server}/seen").json()
    return seen


def token_flags(server: str, token: str = TOKEN, key: str = API_KEY) -> tuple[str, ...]:
    return ("--url", f"{server}/mcp", "--bearer", token, "--header", f"X-Api-Key: {key}")


def cli(*args: str, env: dict[str, str] | None = None) -> Run:
    return run_cli(*args, "--redact", "X-Api-Key", env=env)


def watched_task(flags: tuple[str, ...], tmp_path: Path, env: dict[str, str] | None = None) -> str:
    """Run a task to its end with `--record` and `--trace-frames`, export it; all output text."""
    record, trace = tmp_path / "rec.ndjson", tmp_path / "trace.ndjson"
    call = ("tools", "call", "--tool-name", "echo", "--task", "--task-watch")
    run = cli(*call, *flags, "--record", str(record), "--trace-frames", str(trace), env=env)
    assert run.code == 0, run.stderr
    (task_id,) = read_recording(record).task_ids
    exports = [
        run_cli("tasks", "export", "--task-id", task_id, "--from-recording", str(record), *f)
        for f in (("--format", "md"), ("--format", "json"))
    ]
    assert all(export.code == 0 for export in exports)
    assert REDACTED in run.stdout and REDACTED in record.read_text()
    texts = [run.stdout, run.stderr, record.read_text(), trace.read_text()]
    return "\n".join(texts + [export.stdout + export.stderr for export in exports])


# -- a secret the server echoes back ------------------------------------------------------------


def test_cli_never_prints_or_keeps_an_echoed_token(server: str, tmp_path: Path) -> None:
    flags = token_flags(server)
    listed = cli("tools", "list", *flags)
    synchronous = cli("tools", "call", "--tool-name", "echo", *flags)
    failed = cli("tools", "call", "--tool-name", "fail", *flags)
    assert (listed.code, synchronous.code, failed.code) == (0, 0, 1)
    assert failed.error["code"] == "RPC_ERROR" and REDACTED in failed.error["message"]
    assert REDACTED in failed.error["details"]["data"]["seen"]
    assert_hidden(
        listed.stdout,
        listed.stderr,
        synchronous.stdout,
        synchronous.stderr,
        failed.stdout,
        failed.stderr,
        watched_task(flags, tmp_path),
    )
    assert {"authorization": f"Bearer {TOKEN}", "x-api-key": API_KEY} in received(server)


def test_cli_readable_errors_prompts_and_log_lines_are_redacted() -> None:
    """What a person reads on a terminal: the text error, a prompt's question, a log warning."""
    redactor = redactor_for(
        url_target("http://h/mcp", [f"X-Api-Key: {API_KEY}"], TOKEN), ["x-api-key"]
    )
    stderr = io.StringIO()
    out = Output(io.StringIO(), stderr, stdout_is_terminal=True, redactor=redactor)
    out.error(CliError("RPC_ERROR", f"echo {TOKEN!r}", {"data": {"seen": json.dumps(API_KEY)}}))
    question = InputRequest(
        key="1",
        kind=InputKind.URL,
        method="elicitation/create",
        params={"message": f"You sent {TOKEN}", "url": f"https://x/?k={quote(API_KEY)}"},
        wire="legacy",
    )
    Prompter(io.StringIO("n\n"), stderr, out.redact).answer(question)
    handler = OutputLog(out)
    logging.getLogger("app.test").addHandler(handler)
    try:
        logging.getLogger("app.test").warning("could not answer: %s", f"Bearer {TOKEN}")
    finally:
        logging.getLogger("app.test").removeHandler(handler)
    assert stderr.getvalue().count(REDACTED) >= 4
    assert_hidden(stderr.getvalue())


async def test_the_tui_source_hands_the_app_nothing_secret(server: str, tmp_path: Path) -> None:
    """`LiveSource` (what the App shows: tools, outcomes, events, errors) and what the App keeps
    from it (the known-tasks file), the recording and its exports."""
    target = url_target(f"{server}/mcp", [f"X-Api-Key: {API_KEY}"], TOKEN)
    record = tmp_path / "tui.ndjson"
    recorder = Recorder.to_file(record, redactor_for(target, ["X-Api-Key"]), face="tui")
    source = LiveSource(target, redact=["X-Api-Key"], recorder=recorder)
    events: list[TaskEvent] = []
    frames: list[Frame] = []
    info = await source.connect(events.append, frames.append)
    poller = asyncio.create_task(source.run())
    try:
        tools = await source.list_tools()
        synchronous = await source.create("echo", {}, ttl_ms=None, as_task=False)
        with pytest.raises(RpcError) as failed:
            await source.create("fail", {}, ttl_ms=None, as_task=True)
        outcome = await source.create("echo", {}, ttl_ms=None, as_task=True)
        assert outcome.task is not None
        for _ in range(200):
            if any(event.kind == "result" for event in events):
                break
            await asyncio.sleep(0.05)
        holding = await source.create("echo-id", {}, ttl_ms=None, as_task=True)
        assert holding.task is not None and REDACTED in holding.task.task_id
        assert source.forget(holding.task.task_id)  # the id the App was shown reaches the real one
    finally:
        poller.cancel()
        await asyncio.gather(poller, return_exceptions=True)
        await source.close()
        recorder.close()
    assert any(event.kind == "result" for event in events)
    known = KnownTasks(info.server_key, tmp_path / "known.json")
    known.remember(outcome.task.task_id, tools[0].name)
    lives = task_lives(recorder.history(), [outcome.task.task_id])
    assert REDACTED in tools[0].description and REDACTED in str(failed.value)
    assert_hidden(
        repr(info),
        repr(tools),
        repr(synchronous),
        repr(outcome),
        repr(holding),
        describe(failed.value),
        repr(failed.value.data),
        repr(events),
        repr([frame.message for frame in frames]),
        (tmp_path / "known.json").read_text(),
        record.read_text(),
        render(lives, "md"),
        render(lives, "json"),
        source.shown.text(f"Bearer {TOKEN} and {API_KEY}"),
    )


async def test_the_app_shows_no_echoed_secret_in_picker_toasts_or_tasks(server: str) -> None:
    """The App on the source as it is wired today: the tool picker, an error toast, the task."""
    from widgets.tool_picker import ToolPicker

    target = url_target(with_password(server))
    app = TaskscopeApp(LiveSource(target))
    toasts: list[str] = []
    notify = app.notify

    def recorded(message: str, *, title: str = "", **kwargs: Any) -> None:
        toasts.append(f"{title} {message}")
        notify(message, title=title, **kwargs)

    app.notify = recorded  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        picker = app.export_screenshot()
        await pilot.press("escape")
        await app.create_task(CreateRequest("fail", {}, None, True))
        await app.create_task(CreateRequest("echo", {}, None, True))
        await wait_for(
            pilot, lambda: created(app) and all(t.settled for t in app.tasks.tasks.values())
        )
        await pilot.pause(0.2)
        shown = app.export_screenshot()
    assert REDACTED in " ".join(toasts)
    assert_hidden(picker, shown, *toasts)
    known = known_file()
    assert "alice" not in known and by_tool(app, "echo").task_id in known
    assert_hidden(known)


async def test_frames_about_a_task_whose_id_holds_the_token_are_redacted(server: str) -> None:
    """The RPC log and `--trace-frames` show each frame's task id, method and JSON-RPC id apart
    from its message: those are redacted too."""
    target = url_target(f"{server}/mcp", bearer=TOKEN)
    frames: list[Frame] = []
    async with Connection(target) as connection:
        connection.add_frame_listener(frames.append)
        call = {"name": "echo-id", "arguments": {}, "task": {"ttl": 60_000}}
        created = await connection.request("tools/call", call)
        task_id = created["task"]["taskId"]
        await connection.request("tasks/get", {"taskId": task_id})
    assert "ZETA7731" in task_id
    polled = next(frame for frame in frames if frame.method == "tasks/get")
    assert polled.task_id is not None and REDACTED in polled.task_id
    assert_hidden(repr(frames))


def test_an_input_request_the_app_was_shown_redacted_leads_back_to_the_real_one() -> None:
    shown = Shown(Redactor.build(secrets=[TOKEN]))
    real = InputRequest(
        key=f"q-{TOKEN}",
        kind=InputKind.FORM,
        method="elicitation/create",
        params={"message": f"echo {TOKEN}"},
        wire="legacy",
        task_id="t-1",
    )
    event = TaskEvent("input_needed", "t-1", None, 0.0, "poll", input_request=real)
    redacted = shown.value(event).input_request
    assert redacted is not None and redacted.key == f"q-{REDACTED}"
    assert_hidden(repr(redacted))
    assert shown.real_request(redacted) is real
    assert shown.value(real.model_copy(update={"key": "plain"})).key == "plain"


# -- a token read with a trailing \r ------------------------------------------------------------


def test_cli_strips_a_token_and_key_read_with_a_trailing_cr(server: str, tmp_path: Path) -> None:
    flags = token_flags(server, TOKEN + "\r", API_KEY + "\r\n")
    env = clean_env(TASKSCOPE_BEARER=TOKEN + "\r")
    from_env = cli("tools", "call", "--tool-name", "fail", "--url", f"{server}/mcp", env=env)
    assert from_env.code == 1 and from_env.error["code"] == "RPC_ERROR"
    assert_hidden(watched_task(flags, tmp_path), from_env.stdout, from_env.stderr)
    sent = {seen.get("authorization") for seen in received(server)}
    assert f"Bearer {TOKEN}" in sent and not any(s and s.endswith("\r") for s in sent)


async def test_httpx_quoting_a_token_with_cr_is_redacted(server: str) -> None:
    """The message httpx raises for a header value with `\\r` quotes it as bytes `repr`: the
    redactor of that raw token still finds it."""
    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx.LocalProtocolError) as refused:
            await client.get(f"{server}/mcp", headers={"Authorization": f"Bearer {TOKEN}\r"})
    message = str(refused.value)
    assert "ZETA7731" in message
    redactor = redactor_for(HttpTarget(f"{server}/mcp"), [])
    assert "ZETA7731" in redactor.text(message)  # no secrets known: nothing to hide
    assert_hidden(Redactor.build(secrets=[TOKEN + "\r"]).text(message))
    assert_hidden(Redactor(secrets=(TOKEN + "\r",)).text(message))


# -- a password in the URL ----------------------------------------------------------------------


def test_cli_sends_a_url_password_as_basic_only_and_shows_it_nowhere(
    server: str, tmp_path: Path
) -> None:
    url = with_password(server)
    texts = watched_task(("--url", url), tmp_path)
    recording = read_recording(tmp_path / "rec.ndjson")
    assert recording.info is not None
    assert recording.info.label == f"{server}/mcp"
    assert recording.info.server_key == f"url:{server}/mcp"
    unreachable = cli(
        "tasks", "capabilities", "--url", with_password(f"http://127.0.0.1:{free_port()}")
    )
    assert unreachable.code == 1 and unreachable.error["code"] == "CONNECTION_FAILED"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"echo": {"url": url}}}))
    configured = cli("tools", "list", "--config", str(config), "--server", "echo")
    assert configured.code == 0, configured.stderr
    assert_hidden(
        texts, unreachable.stdout, unreachable.stderr, configured.stdout, configured.stderr
    )
    assert "alice" not in texts
    assert {"authorization": f"Basic {BASIC}"} in received(server)


def test_a_url_password_never_reaches_a_target_label_or_key(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"s": {"url": with_password("http://h:9")}}}))
    for target in (url_target(with_password("http://h:9")), load_config_target(str(config), "s")):
        assert isinstance(target, HttpTarget)
        assert target.url == "http://h:9/mcp" and target.headers == {
            "Authorization": f"Basic {BASIC}"
        }
        assert "alice" not in target.label


def test_known_tasks_of_an_older_run_lose_the_url_password(tmp_path: Path) -> None:
    path = tmp_path / "known.json"
    old: dict[str, Any] = {
        f"url:{with_password('http://h:9')}": [{"id": "t-1", "tool": "echo"}],
        "url:http://h:9/mcp": [{"id": "t-2", "tool": None}],
    }
    path.write_text(json.dumps(old))
    known = KnownTasks("url:http://h:9/mcp", path)
    assert [entry.task_id for entry in known.load()] == ["t-1", "t-2"]
    assert_hidden(path.read_text())
    assert json.loads(path.read_text()) == {
        "url:http://h:9/mcp": [{"id": "t-1", "tool": "echo"}, {"id": "t-2", "tool": None}]
    }


# -- a value a config file takes from the environment -------------------------------------------

ENV_KEY = "sk-env-OMEGA5533-k9"
"""What `MY_API_KEY` holds: the config puts it in a header and in the URL's query."""


def env_config(server: str, folder: Path) -> Path:
    """A config whose server takes its key from `${MY_API_KEY}`, as a header and a URL query."""
    entry = {
        "url": f"{server}/mcp?api_key=${{MY_API_KEY}}",
        "headers": {"X-Api-Key": "${MY_API_KEY}"},
    }
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"echo": entry}}))
    return config


@dataclass(frozen=True)
class RecordedWatch:
    """A task watched with `--record` and `--trace-frames`, its exports and `servers`' listing."""

    run: Run
    record: Path
    trace: Path
    exports: tuple[Run, ...]
    listed: Run

    def texts(self) -> list[str]:
        """Everything those commands printed or wrote."""
        texts = [self.run.stdout, self.run.stderr, self.record.read_text(), self.trace.read_text()]
        texts += [self.listed.stdout, self.listed.stderr]
        return texts + [export.stdout + export.stderr for export in self.exports]


def recorded_watch(
    tmp_path: Path, config: Path, env: dict[str, str], tool: tuple[str, ...]
) -> RecordedWatch:
    """Create a task with `tool` (target and tool flags) and watch it to its end, recorded and
    traced; export it in both formats and list the config's servers."""
    record, trace = tmp_path / "rec.ndjson", tmp_path / "trace.ndjson"
    call = ("tools", "call", *tool, "--task", "--task-watch")
    run = run_cli(*call, "--record", str(record), "--trace-frames", str(trace), env=env)
    assert run.code == 0, run.stderr
    (task_id,) = read_recording(record).task_ids
    exports = tuple(
        run_cli("tasks", "export", "--task-id", task_id, "--from-recording", str(record), *f)
        for f in (("--format", "md"), ("--format", "json"))
    )
    assert all(export.code == 0 for export in exports)
    listed = run_cli("servers", "--config", str(config), env=env)
    return RecordedWatch(run, record, trace, exports, listed)


def test_a_config_value_from_the_environment_is_never_printed_nor_kept(
    server: str, tmp_path: Path
) -> None:
    """No `--redact`: the value is a secret because it came from the environment."""
    config = env_config(server, tmp_path)
    env = clean_env(MY_API_KEY=ENV_KEY)
    target = ("--config", str(config), "--server", "echo")
    seen = recorded_watch(tmp_path, config, env, (*target, "--tool-name", "echo"))
    failed = run_cli("tools", "call", *target, "--tool-name", "fail", env=env)
    assert seen.listed.code == 0
    assert failed.code == 1 and REDACTED in failed.error["message"]
    recording = read_recording(seen.record)
    assert recording.info is not None and REDACTED in recording.info.server_key
    for text in [*seen.texts(), failed.stdout, failed.stderr]:
        assert "OMEGA5533" not in text, text[:300]
    assert {"x-api-key": ENV_KEY} in received(server)


async def test_the_inspector_keeps_no_config_value_from_the_environment(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The known-tasks file keys each server by its URL: a key taken from the environment is kept
    there redacted (also where an older run wrote it whole), and the same key finds the tasks on
    the next run."""
    monkeypatch.setenv("MY_API_KEY", ENV_KEY)
    config = env_config(server, tmp_path)
    target = load_config_target(str(config), "echo")
    older = {f"url:{server}/mcp?api_key={ENV_KEY}": [{"id": "t-older", "tool": None}]}
    path = KnownTasks("").path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(older))
    app = TaskscopeApp(LiveSource(target))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("echo", {}, None, True))
        await wait_for(pilot, lambda: created(app) and by_tool(app, "echo").settled)
        shown = app.export_screenshot()
        assert app.info is not None
        key = app.info.server_key
    known = known_file()
    assert by_tool(app, "echo").task_id in known and REDACTED in key
    assert "OMEGA5533" not in shown + known + key
    assert KnownTasks(key).load() and server_key(load_config_target(str(config), "echo")) == key


STDIO_KEY = "sk-stdio-PAPA7345-q2"
"""What `MY_STDIO_KEY` holds: a stdio entry passes it in an argument and the environment."""


def stdio_env_config(folder: Path) -> Path:
    """A config of two stdio entries taking `${MY_STDIO_KEY}` in an argument (`sh`'s `$0`) and
    in the environment: `demo` runs the demo server, `broken` says the key on stderr and exits."""
    demo = " ".join(stdio_demo_command("legacy", "--speed", "20"))
    key_env = {"DEMO_KEY": "${MY_STDIO_KEY}"}
    entries = {
        "demo": {"command": "sh", "args": ["-c", f"exec {demo}", "${MY_STDIO_KEY}"]},
        "broken": {
            "command": "sh",
            "args": [
                "-c",
                'echo "no server for key $0 / $DEMO_KEY" >&2; exit 3',
                "${MY_STDIO_KEY}",
            ],
            "env": key_env,
        },
    }
    entries["demo"]["env"] = key_env
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": entries}))
    return config


def test_a_stdio_config_value_from_the_environment_is_never_printed_nor_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`${MY_STDIO_KEY}` in a stdio entry's `args` and `env` reaches the process but nothing
    taskscope shows or keeps: not `--record` (nor its server key, `command:…`), `--trace-frames`,
    `servers --config`, an error quoting the server's stderr, an export, or the known-tasks key."""
    config = stdio_env_config(tmp_path)
    env = clean_env(MY_STDIO_KEY=STDIO_KEY)
    target = ("--config", str(config), "--server", "demo")
    seen = recorded_watch(tmp_path, config, env, (*target, "--tool-name", "analyze_logs"))
    listed = seen.listed
    failed = run_cli("tools", "list", "--config", str(config), "--server", "broken", env=env)
    assert failed.code == 1 and failed.error["code"] == "CONNECTION_FAILED"
    assert f"no server for key {REDACTED} / {REDACTED}" in failed.error["details"]["reason"]
    assert [server["name"] for server in listed.document["servers"]] == ["demo", "broken"]
    recording = read_recording(seen.record)
    assert recording.info is not None and recording.info.server_key.startswith("command:sh -c")
    assert REDACTED in recording.info.server_key
    for text in [*seen.texts(), failed.stdout, failed.stderr]:
        assert "PAPA7345" not in text, text[:300]
    monkeypatch.setenv("MY_STDIO_KEY", STDIO_KEY)
    key = server_key(load_config_target(str(config), "demo"))
    assert REDACTED in key and "PAPA7345" not in key
    assert KnownTasks(key).path.name == KnownTasks("").path.name  # one file, keyed inside
