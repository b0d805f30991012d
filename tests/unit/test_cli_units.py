"""Unit tests of the CLI's pure parts: argument rules, targets, answers files, schema checks of
answers, the responder's order, prompts on fake streams, output escaping and watch outcomes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli.answers import load_answers, parse_answers, response_problems
from app.cli.args import _inspector_namespace, build_parser, glue_dashed_values, parse, read_options
from app.cli.errors import rpc_error
from app.cli.output import CliError, Output, readable_error, safe_json
from app.cli.prompts import PromptClosed, Prompter, Rejection, TerminalLines
from app.cli.responder import InvalidAnswer, Responder, interactive_allowed
from app.cli.target import target_from_args
from app.cli.watch import WatchReport, outcome_of_stop
from app.engine.forms.input_text import root_entries
from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.roots import roots_answer
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.targets import HttpTarget, StdioTarget
from app.engine.tasks.models import InputKind, InputRequest
from app.engine.tasks.protocol_keys import TASKS_EXTENSION

EXTENSION_NEEDED = {"extensions": {TASKS_EXTENSION: {}}}
FORM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "size": {"type": "string", "enum": ["s", "m", "l"]},
    },
    "required": ["name"],
}


def form(message: str = "Your name?", key: str = "k1", schema: Any = FORM_SCHEMA) -> InputRequest:
    params = {"mode": "form", "message": message, "requestedSchema": schema}
    return InputRequest(
        key=key,
        kind=InputKind.FORM,
        method="elicitation/create",
        params=params,
        wire="extension",
        task_id="t",
        message=message,
    )


def roots_request() -> InputRequest:
    return InputRequest(
        key="r", kind=InputKind.ROOTS, method="roots/list", params={}, wire="legacy"
    )


# -- arguments and targets ------------------------------------------------------------------------


def test_target_flags_work_before_or_after_the_verb() -> None:
    before = parse(["--demo", "extension", "tasks", "capabilities"]).target
    after = parse(["tasks", "capabilities", "--demo", "extension"]).target
    assert target_from_args(before) == target_from_args(after)


INSPECTOR_LINES = [
    [],  # plain `taskscope`: the short help, and the offer of the demo
    ["--url", "http://127.0.0.1:1/mcp"],
    ["--url", "http://a/mcp", "--url", "http://b/mcp", "--header", "K: V", "--readonly"],
    ["--command", "python server.py", "--env", "K=V", "--wire", "legacy", "--era", "modern"],
    ["--config", "c.json", "--server", "a", "--server", "a", "--record", "r.jsonl"],
    ["--demo", "extension"],
    ["demo"],
    ["demo", "--wire", "extension", "--root", "/tmp"],
]
OTHER_LINES = [
    ["--help"],
    ["-h"],
    ["demo", "--help"],
    ["--version"],
    ["--ur", "http://127.0.0.1:1/mcp"],  # an abbreviation: the full parser decides
    ["--url"],
    ["--wire", "sideways", "--url", "http://a/mcp"],
    ["demo", "--url", "http://a/mcp"],
    ["tasks", "list", "--url", "http://a/mcp"],
    ["--url", "http://a/mcp", "tools", "call", "--tool-name", "t"],
    ["replay", "r.jsonl"],
    ["check", "--url", "http://a/mcp"],
    ["--url", "http://a/mcp", "stray"],
    # values that begin with a dash: the full parser may take them for help or an abbreviation
    ["--url", "http://a/mcp", "--header", "-h: x"],
    ["--command", "--he=1 x"],
    ["--command", "python", "--env", "-h x"],
    ["demo", "--root", "-h x"],
    ["--url", "http://a/mcp", "--reconnect-attempts", "-1"],
    ["--url", "http://a/mcp", "--", "tasks"],
    ["--command", "tasks"],  # a group's name as a value: the full parser reads it
]


def _full_parse(line: list[str]) -> Any:
    """What the full parser makes of `line`: its options, or its error (or exit) as text."""
    try:
        return read_options(build_parser().parse_args(glue_dashed_values(line)))
    except CliError as error:
        return f"error: {error.message}"
    except SystemExit as leaving:
        return f"exit {leaving.code}"


@pytest.mark.parametrize("line", INSPECTOR_LINES + OTHER_LINES, ids=" ".join)
def test_the_inspectors_short_parser_reads_every_line_as_the_full_one_does(
    line: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The full-screen UI's command lines skip building every verb's parser; what they mean, and
    what any other line means or is told, stays the full parser's."""
    short = _inspector_namespace(glue_dashed_values(line))
    assert (short is not None) == (line in INSPECTOR_LINES)
    expected = _full_parse(line)
    full_output = capsys.readouterr().out
    try:
        got = parse(line)
    except CliError as error:
        got = f"error: {error.message}"
    except SystemExit as leaving:
        got = f"exit {leaving.code}"
    assert got == expected
    assert capsys.readouterr().out == full_output


def test_a_task_id_that_begins_with_a_dash_is_a_value_not_a_flag() -> None:
    get = parse(["tasks", "get", "--demo", "legacy", "--task-id", "-uElDA5Ep"])
    assert get.verb_options.task_id == "-uElDA5Ep"  # type: ignore[union-attr]
    export = parse(
        ["tasks", "export", "--task-id", "-a", "--task-id", "b", "--from-recording", "f"]
    )
    assert export.verb_options.task_ids == ("-a", "b")  # type: ignore[union-attr]
    with pytest.raises(CliError, match="expected one argument"):
        parse(["tasks", "get", "--demo", "legacy", "--task-id", "--json"])


def test_url_target_carries_headers_bearer_and_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_BEARER", "from-env")
    namespace = parse(
        [
            "tools",
            "list",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--header",
            "X-A: 1",
            "--header",
            "X-B: two",
            "--transport",
            "sse",
        ]
    )
    target = target_from_args(namespace.target)
    assert isinstance(target, HttpTarget)
    assert target.headers == {"X-A": "1", "X-B": "two"}
    assert (target.bearer, target.transport) == ("from-env", "sse")


def test_command_target_with_env_and_cwd(tmp_path: Path) -> None:
    namespace = parse(
        ["tools", "list", "--command", "srv --flag 'a b'", "--env", "K=V=W", "--cwd", str(tmp_path)]
    )
    target = target_from_args(namespace.target)
    assert isinstance(target, StdioTarget)
    assert target.command == ["srv", "--flag", "a b"]
    assert (target.env, target.cwd) == ({"K": "V=W"}, str(tmp_path))


@pytest.mark.parametrize(
    "argv",
    [
        ["tools", "list"],
        ["tools", "list", "--demo", "legacy", "--command", "x"],
        ["tools", "list", "--config", "f.json"],
        ["tools", "list", "--demo", "legacy", "--header", "A: b"],
        ["tools", "list", "--url", "ftp://nope"],
        ["tools", "list", "--url", "http://h/mcp", "--header", "no colon"],
    ],
)
def test_bad_target_combinations_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(CliError) as caught:
        target_from_args(parse(argv).target)
    assert caught.value.exit_code == 2


def test_withholding_flags_are_read_once_for_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    withheld = ["--withhold", "tasks", "--withhold", "sampling", "--withhold", "tasks"]
    assert parse(["tools", "list", "--demo", "legacy", *withheld]).session.withhold == (
        "tasks",
        "sampling",
    )
    assert parse(["demo", "--withhold", "tasks"]).session.withhold == ("tasks",)
    path = tmp_path / "capabilities.json"
    path.write_text('{"sampling": {}}')
    from_file = parse(["tools", "list", "--demo", "legacy", "--client-capabilities", f"@{path}"])
    assert from_file.session.client_capabilities == {"sampling": {}}
    monkeypatch.setattr("sys.stdin", io.StringIO('{"roots": {}}'))
    from_stdin = parse(["tasks", "capabilities", "--demo", "legacy", "--client-capabilities", "-"])
    assert from_stdin.session.client_capabilities == {"roots": {}}


@pytest.mark.parametrize(
    "value",
    ["[1]", '"text"', "{bad", "@/nonexistent/capabilities.json", "[" * 100_000],
    ids=["list", "string", "not-json", "no-file", "deeply-nested"],
)
def test_client_capabilities_that_are_not_an_object_are_usage_errors(value: str) -> None:
    argv = ["tasks", "capabilities", "--demo", "extension", "--client-capabilities", value]
    with pytest.raises(CliError) as caught:
        parse(argv)
    assert caught.value.exit_code == 2
    assert caught.value.message.startswith("--client-capabilities")


@pytest.mark.parametrize(
    "flags", [("--withhold", "tasks"), ("--client-capabilities", "{}")], ids=lambda f: f[0]
)
def test_check_refuses_the_withholding_flags(flags: tuple[str, str]) -> None:
    with pytest.raises(CliError) as caught:
        parse(["check", "--demo", "extension", *flags])
    assert caught.value.exit_code == 2 and "check chooses per request" in caught.value.message


def test_a_missing_capability_is_named_with_what_to_do() -> None:
    needs_tasks = RpcError(
        -32021, "Missing required client capability", {"requiredCapabilities": EXTENSION_NEEDED}
    )
    by_default = rpc_error(needs_tasks, ClientCapabilities()).details
    assert by_default["missing"] == [TASKS_EXTENSION] and "--task" in by_default["hint"]
    withheld = ClientCapabilities(withheld=frozenset({"tasks"}))
    hint = rpc_error(needs_tasks, withheld).details["hint"]
    assert hint.startswith(f"the server needs {TASKS_EXTENSION}, which this run withheld")
    needs_elicitation = RpcError(-32021, "m", {"requiredCapabilities": {"elicitation": {}}})
    details = rpc_error(needs_elicitation, ClientCapabilities()).details
    assert details["hint"] == "the server needs the client capability elicitation"
    refused = rpc_error(RpcError(-32601, "Tool 'x' requires task augmentation"), withheld).details
    assert refused["hint"].startswith("this run withheld tasks")
    assert "hint" not in rpc_error(RpcError(-32601, "nope"), ClientCapabilities()).details


def test_config_target(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"command": "srv", "args": ["-v"]}}}))
    options = parse(["tools", "list", "--config", str(config), "--server", "demo"])
    target = target_from_args(options.target)
    assert isinstance(target, StdioTarget) and target.command == ["srv", "-v"]


# -- answers files --------------------------------------------------------------------------------


def test_first_matching_rule_wins_and_all_match_keys_must_hold() -> None:
    book = parse_answers(
        [
            {"match": {"message": "name", "key": "other"}, "response": {"action": "decline"}},
            {
                "match": {"message": "^Your", "method": "elicitation/create"},
                "response": {"action": "accept", "content": {"name": "Ada"}},
            },
            {"match": {}, "response": {"action": "cancel"}},
        ]
    )
    assert book.find(form()) == {"action": "accept", "content": {"name": "Ada"}}
    assert book.find(form(message="Something else")) == {"action": "cancel"}
    assert book.find(form(key="other")) == {"action": "decline"}


@pytest.mark.parametrize(
    "document",
    [
        {"match": {}, "response": {}},
        [{"match": {"title": "x"}, "response": {}}],
        [{"match": {"message": "("}, "response": {}}],
        [{"match": {"key": 3}, "response": {}}],
        [{"match": {}, "response": "accept"}],
        [{"match": {}, "response": {}, "extra": 1}],
    ],
)
def test_malformed_answers_files_are_usage_errors(document: Any) -> None:
    with pytest.raises(CliError) as caught:
        parse_answers(document)
    assert caught.value.exit_code == 2


def test_answers_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text("[{")
    with pytest.raises(CliError, match="not valid JSON"):
        load_answers(str(path))


def test_form_answers_are_checked_against_the_schema() -> None:
    request = form()
    assert response_problems(request, {"action": "accept", "content": {"name": "Ada"}}) == []
    assert response_problems(request, {"action": "decline"}) == []
    problems = response_problems(request, {"action": "accept", "content": {"size": "xl"}})
    assert {p.split(":")[0] for p in problems} == {"name", "size"}
    assert response_problems(request, {"action": "maybe"})
    assert response_problems(request, {"action": "accept", "content": []})


def test_unsupported_schemas_fall_back_to_the_json_check() -> None:
    nested = {"type": "object", "properties": {"o": {"type": "object"}}, "required": ["o"]}
    assert response_problems(form(schema=nested), {"action": "accept", "content": {}})
    assert not response_problems(form(schema=nested), {"action": "accept", "content": {"o": {}}})


def test_sampling_and_roots_answers_are_checked_for_shape() -> None:
    sampling = InputRequest(
        key="s",
        kind=InputKind.SAMPLING,
        method="sampling/createMessage",
        params={},
        wire="legacy",
    )
    good = {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
    assert response_problems(sampling, good) == []
    assert len(response_problems(sampling, {"role": "user"})) == 3
    assert response_problems(roots_request(), {"roots": [{"uri": "file:///x"}]}) == []
    assert response_problems(roots_request(), {"roots": [{"name": "x"}]})


# -- the responder --------------------------------------------------------------------------------


async def test_scripted_answers_come_first_and_invalid_ones_are_refused() -> None:
    book = parse_answers([{"match": {}, "response": {"action": "accept", "content": {}}}])
    with pytest.raises(InvalidAnswer) as caught:
        await Responder(book).reply(form())
    assert any(p.startswith("name") for p in caught.value.problems)


@pytest.fixture
def root_dir(tmp_path: Path) -> tuple[str, str, str]:
    return str(tmp_path), tmp_path.resolve().as_uri(), tmp_path.name


async def test_roots_come_from_root_flags_and_are_never_prompted(
    root_dir: tuple[str, str, str],
) -> None:
    path, uri, name = root_dir
    entries = root_entries([path])
    assert entries == [{"uri": uri, "name": name}]
    prompter = Prompter(io.StringIO(""), io.StringIO())
    reply = await Responder(roots=entries, prompter=prompter).reply(roots_request())
    assert reply.source == "roots" and reply.response == {"roots": entries}
    assert prompter.stdin.read() == ""  # nothing was asked


def test_roots_answer_without_roots_is_the_spec_error_on_legacy_and_empty_on_extension(
    root_dir: tuple[str, str, str],
) -> None:
    path, uri, _name = root_dir
    given = roots_answer(roots_request(), root_entries([path]))
    assert given.response == {"roots": root_entries([path])}
    assert given.summary == f"roots/list answered with 1 root: {uri}"
    legacy = roots_answer(roots_request(), [])
    assert legacy.response is None and "-32601" in legacy.summary
    extension = roots_request().model_copy(update={"wire": "extension", "task_id": "t"})
    assert roots_answer(extension, []).response == {"roots": []}


async def test_without_prompter_or_rule_input_is_declined() -> None:
    reply = await Responder().reply(form())
    assert reply.source == "declined" and reply.response == {"action": "decline"}
    sampling = form().model_copy(update={"method": "sampling/createMessage"})
    assert (await Responder().reply(sampling)).reject


async def test_prompted_answer_and_closed_terminal() -> None:
    prompter = Prompter(io.StringIO("\nAda\n2\n"), io.StringIO())
    reply = await Responder(prompter=prompter).reply(form())
    assert reply.source == "prompt"
    assert reply.response == {"action": "accept", "content": {"name": "Ada", "size": "m"}}
    closed = Responder(prompter=Prompter(io.StringIO(""), io.StringIO()))
    assert (await closed.reply(form())).source == "declined"
    assert closed.prompter is None  # never prompts again once input ended


@pytest.mark.parametrize(
    ("requested", "yes", "tty", "env", "allowed"),
    [
        (True, False, True, {}, True),
        (False, False, True, {}, False),
        (True, True, True, {}, False),
        (True, False, False, {}, False),
        (True, False, True, {"CI": "true"}, False),
        (True, False, True, {"CI": "false"}, True),
        (True, False, True, {"TASKSCOPE_NON_INTERACTIVE": "1"}, False),
    ],
)
def test_interactive_only_on_a_terminal_and_never_vetoed(
    requested: bool, yes: bool, tty: bool, env: dict[str, str], allowed: bool
) -> None:
    assert interactive_allowed(requested, yes, tty, env) is allowed


# -- prompts --------------------------------------------------------------------------------------


def ask(request: InputRequest, typed: str) -> tuple[dict[str, Any] | Rejection | None, str]:
    shown = io.StringIO()
    answer = Prompter(io.StringIO(typed), shown).answer(request)
    return answer, shown.getvalue()


def sampling_request() -> InputRequest:
    return InputRequest(
        key="s",
        kind=InputKind.SAMPLING,
        method="sampling/createMessage",
        wire="legacy",
        params={"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]},
    )


def test_sampling_prompt_replies_or_declines_on_an_empty_reply() -> None:
    answer, shown = ask(sampling_request(), "\nn\nHello\n\n")
    assert answer == {
        "role": "assistant",
        "content": {"type": "text", "text": "Hello"},
        "model": "human",
        "stopReason": "endTurn",
    }
    assert "user: Hi" in shown and shown.count("Decline this request? [y/N]: ") == 1
    assert ask(sampling_request(), "\ny\n")[0] == Rejection()


async def test_a_declined_prompt_asks_for_a_rejection() -> None:
    prompter = Prompter(io.StringIO("\nyes\n"), io.StringIO())
    reply = await Responder(prompter=prompter).reply(sampling_request())
    assert reply is not None and reply.reject and reply.source == "prompt"


def test_form_re_asks_until_valid_and_can_decline() -> None:
    answer, shown = ask(form(), "a\nA\nAda\nxl\n3\n")
    assert answer == {"action": "accept", "content": {"name": "Ada", "size": "l"}}
    assert shown.count("number or value: ") == 2  # "xl" was refused
    assert ask(form(), "d\n")[0] == {"action": "decline"}
    assert ask(form(), "cancel\n")[0] == {"action": "cancel"}


def test_prompts_show_server_text_without_escapes() -> None:
    hostile = {"type": "object", "properties": {"n": {"type": "string", "title": "\x1b[2JT"}}}
    _answer, shown = ask(form(message="\x1b]52;c;AAAA\x07Hi \u202eevil", schema=hostile), "\n\n")
    assert "\x1b" not in shown and "\u202e" not in shown and "Hi" in shown


def test_unsupported_schema_is_answered_as_json() -> None:
    nested = {"type": "object", "properties": {"o": {"type": "object"}}, "required": ["o"]}
    answer, shown = ask(form(schema=nested), '\n{"x": 1}\n{"o": {"a": 1}}\n')
    assert answer == {"action": "accept", "content": {"o": {"a": 1}}}
    assert "cannot be shown field by field" in shown


def test_eof_closes_the_prompt() -> None:
    with pytest.raises(PromptClosed):
        ask(form(), "\n")


def test_url_consent_defaults_to_decline() -> None:
    request = InputRequest(
        key="u",
        kind=InputKind.URL,
        method="elicitation/create",
        wire="extension",
        params={"mode": "url", "message": "Link", "url": "https://xn--bcher-kva.example/x"},
    )
    answer, shown = ask(request, "\n")
    assert answer == {"action": "decline"}
    assert "bücher.example (raw: xn--bcher-kva.example)" in shown
    assert ask(request, "y\n")[0] == {"action": "accept"}


# -- output ---------------------------------------------------------------------------------------


def test_safe_json_escapes_what_a_terminal_would_act_on() -> None:
    text = safe_json({"t": "\x1b[31m\x9b2J\u202eabc\u200b"})
    assert json.loads(text) == {"t": "\x1b[31m\x9b2J\u202eabc\u200b"}
    assert not any(ch in text for ch in "\x1b\x9b\u202e\u200b")


def test_errors_are_json_when_piped_and_text_on_a_terminal() -> None:
    error = CliError("RPC_ERROR", "boom \x1b[2J", {"code": -1, "why": "\x07bell"})
    piped = Output(io.StringIO(), io.StringIO(), stdout_is_terminal=False)
    piped.error(error)
    assert json.loads(piped.stderr.getvalue())["error"]["code"] == "RPC_ERROR"  # type: ignore[attr-defined]
    text = readable_error(error)
    assert text.startswith("error [RPC_ERROR]: boom") and "\x1b" not in text and "\x07" not in text
    usage = CliError("USAGE", "unrecognized arguments: --x", {"usage": "usage: t [-h]\n   [--y]"})
    assert readable_error(usage).splitlines()[1:] == ["  usage: t [-h]", "     [--y]"]


# -- watch outcomes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("detail", "outcome", "code"),
    [
        ("completed", "completed", 0),
        ("failed", "failed", 1),
        ("cancelled", "cancelled", 1),
        ("expired", "expired", 1),
        ("timeout", "timeout", 7),
        ("input rounds", "input-required", 6),
        ("5 consecutive errors", "unreachable", 1),
    ],
)
def test_stop_details_map_to_outcomes_and_exit_codes(detail: str, outcome: str, code: int) -> None:
    assert outcome_of_stop(detail) == outcome
    assert WatchReport(outcome, "t").exit_code == code
    assert WatchReport("aborted", "t").exit_code == 130


def test_terminal_lines_read_straight_from_a_descriptor() -> None:
    import os

    read_end, write_end = os.pipe()
    os.write(write_end, "first\nsecönd\nrest".encode())
    os.close(write_end)
    lines = TerminalLines(read_end)
    assert [lines.readline(), lines.readline(), lines.readline(), lines.readline()] == [
        "first\n",
        "secönd\n",
        "rest",
        "",
    ]
    os.close(read_end)


def test_the_inspector_opens_every_server_of_a_config_headless_commands_one(
    tmp_path: Path,
) -> None:
    from app.cli.target import tui_servers

    config = tmp_path / "mcp.json"
    servers = {
        "a": {"command": "srv-a"},
        "b · c": {"url": "http://127.0.0.1:9/mcp"},
        "broken": {"url": 5},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    every = tui_servers(parse(["--config", str(config)]).target)
    assert [name for name, _ in every] == ["a", "b - c", "broken"]  # the key separator replaced
    assert isinstance(every[0][1], StdioTarget) and isinstance(every[1][1], HttpTarget)
    assert isinstance(every[2][1], str) and "broken" in every[2][1]
    chosen = tui_servers(
        parse(["--config", str(config), "--server", "a", "--server", "b · c"]).target
    )
    assert [name for name, _ in chosen] == ["a", "b - c"]
    assert tui_servers(parse(["--config", str(config), "--server", "a"]).target) == []
    with pytest.raises(CliError, match="several servers open together only in the inspector"):
        target_from_args(
            parse(
                ["tools", "list", "--config", str(config), "--server", "a", "--server", "b · c"]
            ).target
        )
    with pytest.raises(CliError, match="no server 'zed'"):
        tui_servers(parse(["--config", str(config), "--server", "zed", "--server", "a"]).target)
    config.write_text(json.dumps({"mcpServers": {"broken": {"url": 5}, "worse": {}}}))
    with pytest.raises(CliError, match=r"no server of .* can be used"):
        tui_servers(parse(["--config", str(config)]).target)


def test_repeated_url_and_command_add_servers_to_the_inspector(tmp_path: Path) -> None:
    """Each `--url` is named by its host and port (never its password), each `--command` by its
    program; same names get a number."""
    from app.cli.target import tui_servers

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "srv-a"}}}))
    argv = [
        "--url",
        "http://user:pw@127.0.0.1:9001/mcp",
        "--url",
        "http://127.0.0.1:9002/mcp",
        "--command",
        "/usr/bin/python3 -m one",
        "--command",
        "python3 -m two",
        "--config",
        str(config),
        "--server",
        "a",
    ]
    servers = tui_servers(parse(argv).target)
    names = [name for name, _ in servers]
    assert names == ["a", "127.0.0.1:9001", "127.0.0.1:9002", "python3", "python3-2"]
    urls = [target for _, target in servers if isinstance(target, HttpTarget)]
    assert [target.url for target in urls] == [
        "http://127.0.0.1:9001/mcp",
        "http://127.0.0.1:9002/mcp",
    ]
    assert "pw" not in " ".join(names)
    assert tui_servers(parse(["--url", "http://127.0.0.1:9001/mcp"]).target) == []
    assert len(tui_servers(parse(["--url", "http://h:1/mcp", "--command", "srv"]).target)) == 2
    for flag, value in (("--url", "http://h:1/mcp"), ("--command", "srv")):
        with pytest.raises(CliError, match=f"{flag} is given once here"):
            target_from_args(parse(["tools", "list", flag, value, flag, value]).target)
    with pytest.raises(CliError, match="--header only applies to --url"):
        tui_servers(parse(["--command", "a", "--command", "b", "--header", "K: v"]).target)
    one = tui_servers(
        parse(["--url", "http://127.0.0.1:1/mcp", "--header", "K: v", "--command", "b"]).target
    )
    assert isinstance(one[0][1], HttpTarget) and one[0][1].headers == {"K": "v"}


def test_a_config_of_one_server_needs_no_server_name(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"only": {"command": "srv"}}}))
    target = target_from_args(parse(["tools", "list", "--config", str(config)]).target)
    assert isinstance(target, StdioTarget) and target.command == ["srv"]
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}))
    with pytest.raises(CliError, match=r"has 2 servers \(a, b\): name one with --server"):
        target_from_args(parse(["tools", "list", "--config", str(config)]).target)


def test_one_servers_credentials_never_go_to_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several `--url`: no `--bearer`, `--header`, sign-in flag or TASKSCOPE_BEARER, which would
    be sent to every one of them; a URL that cannot be parsed is a usage error."""
    from app.cli.target import tui_servers

    two = ["--url", "http://127.0.0.1:1/mcp", "--url", "http://127.0.0.1:2/mcp"]
    for extra in (["--bearer", "t0ken"], ["--header", "X-Key: k"], ["--client-id", "me"]):
        with pytest.raises(CliError, match="only applies to one --url"):
            tui_servers(parse([*two, *extra]).target)
    monkeypatch.setenv("TASKSCOPE_BEARER", "t0ken")
    with pytest.raises(CliError, match="TASKSCOPE_BEARER is one server's token"):
        tui_servers(parse(two).target)
    monkeypatch.delenv("TASKSCOPE_BEARER")
    assert len(tui_servers(parse(two).target)) == 2
    with pytest.raises(CliError) as caught:
        tui_servers(parse(["--url", "http://[::1/x", "--command", "srv"]).target)
    assert caught.value.exit_code == 2


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from app import __version__
    from app.cli.main import main

    with pytest.raises(SystemExit) as ended:
        main(["--version"])
    assert ended.value.code == 0
    assert capsys.readouterr().out.strip() == f"taskscope {__version__}"
