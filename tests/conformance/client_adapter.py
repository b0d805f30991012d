"""The client under test of the MCP conformance suite: drives taskscope's headless CLI.

The suite runs `--command` with the mock server's URL appended, and sets
MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and (for some scenarios)
MCP_CONFORMANCE_CONTEXT. This script is a driver, not a client: every scenario is done only by
running `python -m app.cli.main …` (the `taskscope` command) with `--url`, one command per step,
always with the default era (no `--era`): the point is that the default connect path works on
both protocol revisions. It never sends HTTP itself.

The URL is passed as the harness prints it (`http://localhost:PORT…`), as a user would. The mock
servers listen on 127.0.0.1 only (tests/support/node/bind-localhost.cjs); where `localhost` also
resolves to ::1, taskscope's asyncio connect tries every address in turn, so it still reaches
127.0.0.1, and no rewrite of the URL is needed.

Exit code: 0 when every step that should succeed did (and every step that should be refused
was), 1 otherwise, 2 for a scenario this driver does not handle. In the auth scenarios taskscope
signs in by itself; `$BROWSER` is tests/support/auth_browser.py, which follows the authorization
URL's redirects as a person clicking "allow" would, and the credentials go to a data folder of the
scenario's own. With TASKSCOPE_CONFORMANCE_TRACE_DIR set, each step writes its `--trace-frames`
NDJSON to `<dir>/<scenario>/<n>-<step>.ndjson`. The whole scenario stays inside the suite's 30 s
client timeout (`DEADLINE_S`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "app.cli.main"]

DEADLINE_S = float(os.environ.get("TASKSCOPE_CONFORMANCE_DEADLINE_S", "26"))
"""Time for the whole scenario: under the suite's 30 s client timeout, with a margin."""
STEP_TIMEOUT_S = max(20.0, DEADLINE_S - 6)
PARALLEL_CALLS = 4
OUTPUT_TAIL = 1500

SEP1034_ANSWERS = [
    # Accept with empty content: taskscope fills in the schema's defaults itself (SEP-1034).
    {"match": {"method": "elicitation/create"}, "response": {"action": "accept", "content": {}}}
]
MRTR_ANSWERS = [
    {"match": {"key": "confirm"}, "response": {"action": "accept", "content": {"confirmed": True}}}
]
FOCAL_SCHEMA_TOOL = "json_schema_2020_12_tool"
ECHO_TOOL = "json_schema_echo"
VALID_HEADER_TOOL = "valid_tool"
BROWSER = REPO_ROOT / "tests" / "support" / "auth_browser.py"
CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The Client ID Metadata Document URL the suite's basic-cimd scenario expects."""
REFUSING_AUTH = frozenset(
    {
        "auth/resource-mismatch",
        "auth/iss-supported-missing",
        "auth/iss-wrong-issuer",
        "auth/iss-unexpected",
        "auth/iss-normalized",
        "auth/metadata-issuer-mismatch",
    }
)
"""Auth scenarios in which taskscope must refuse to go on (the suite checks it sent no token)."""


class StepFailed(Exception):
    """A step that had to succeed (or be refused) did not; the scenario cannot go on."""


@dataclass
class Step:
    """One CLI run and what came of it."""

    label: str
    argv: list[str]
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0

    def document(self) -> Any:
        """The JSON document the command printed on stdout (None when there is none)."""
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None

    def error_code(self) -> str | None:
        """The `error.code` of the error document on stderr, if any."""
        for line in reversed(self.stderr.splitlines()):
            try:
                document = json.loads(line)
            except ValueError:
                continue
            if isinstance(document, dict) and isinstance(document.get("error"), dict):
                code = document["error"].get("code")
                return code if isinstance(code, str) else None
        return None


@dataclass
class Driver:
    """Runs one scenario's CLI steps against the mock server at `url`."""

    scenario: str
    url: str
    trace_dir: Path | None
    deadline: float
    failures: list[str] = field(default_factory=list)
    _count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _children: set[subprocess.Popen[str]] = field(default_factory=set)
    scratch: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ts-conf-")))

    # --- running CLI steps ---------------------------------------------------------------------

    def run(self, label: str, verb: Sequence[str], *extra: str) -> Step:
        """Run `taskscope <verb> --url URL <extra…>` once and log what happened."""
        with self._lock:
            self._count += 1
            number = self._count
        argv = [*verb, "--url", self.url, *extra]
        if self.trace_dir is not None:
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)[:60]
            argv += ["--trace-frames", str(self.trace_dir / f"{number:02d}-{slug}.ndjson")]
        step = Step(label, argv)
        remaining = self.deadline - time.monotonic()
        if remaining <= 1:
            step.stderr = "not run: the scenario's time is up"
            log(f"[{number}] {label}: {step.stderr}")
            return step
        started = time.monotonic()
        process = subprocess.Popen(
            [*CLI, *argv],
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        )
        with self._lock:
            self._children.add(process)
        try:
            step.stdout, step.stderr = process.communicate(timeout=min(STEP_TIMEOUT_S, remaining))
            step.exit_code = process.returncode
        except subprocess.TimeoutExpired:
            process.kill()
            step.stdout, step.stderr = process.communicate(timeout=5)
            step.stderr += f"\n(killed: no exit within {min(STEP_TIMEOUT_S, remaining):.1f} s)"
        finally:
            with self._lock:
                self._children.discard(process)
        step.seconds = time.monotonic() - started
        shown = " ".join(json.dumps(a) if (" " in a or not a) else a for a in argv)
        log(f"[{number}] {label}: exit {step.exit_code} in {step.seconds:.2f} s: taskscope {shown}")
        if step.stdout.strip():
            log(f"    stdout: {tail(step.stdout)}")
        if step.stderr.strip():
            log(f"    stderr: {tail(step.stderr)}")
        return step

    def must(self, step: Step) -> Step:
        """A step that had to succeed: a failure is recorded and stops the scenario."""
        if step.exit_code != 0:
            self.fail(
                f"{step.label}: exit {step.exit_code} ({step.error_code() or 'no error code'})"
            )
            raise StepFailed(step.label)
        return step

    def should(self, step: Step) -> Step:
        """A step that had to succeed, after which the scenario goes on anyway."""
        if step.exit_code != 0:
            self.fail(
                f"{step.label}: exit {step.exit_code} ({step.error_code() or 'no error code'})"
            )
        return step

    def fail(self, text: str) -> None:
        """Record a failed expectation (the scenario exits 1 at the end)."""
        with self._lock:
            self.failures.append(text)
        log(f"FAILED: {text}")

    def answers_file(self, rules: list[dict[str, Any]]) -> str:
        """Write an `--answers` file for this scenario and return its path."""
        path = self.scratch / "answers.json"
        path.write_text(json.dumps(rules), encoding="utf-8")
        return str(path)

    def stop_children(self) -> None:
        """Terminate the CLI runs still going (on SIGTERM, or at the end)."""
        with self._lock:
            children = list(self._children)
        for child in children:
            if child.poll() is None:
                child.terminate()

    # --- the verbs -----------------------------------------------------------------------------

    def tools_list(self) -> list[dict[str, Any]]:
        step = self.must(self.run("tools list", ["tools", "list"]))
        document = step.document()
        tools = document.get("tools") if isinstance(document, dict) else None
        if not isinstance(tools, list):
            self.fail("tools list: stdout is not a {tools: [...]} document")
            raise StepFailed("tools list")
        return [tool for tool in tools if isinstance(tool, dict)]

    def tools_call(self, name: str, arguments: Any, *extra: str) -> Step:
        args = json.dumps(arguments, ensure_ascii=True)
        return self.run(
            f"tools call {name}",
            ["tools", "call"],
            "--tool-name",
            name,
            "--tool-args",
            args,
            "--yes",
            *extra,
        )

    def in_parallel(self, calls: Sequence[Callable[[], Step]]) -> list[Step]:
        """Run independent steps a few at a time (keeps long scenarios inside the timeout)."""
        with ThreadPoolExecutor(max_workers=PARALLEL_CALLS) as pool:
            return list(pool.map(lambda call: call(), calls))


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def tail(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= OUTPUT_TAIL else "…" + text[-OUTPUT_TAIL:]


def named(items: Any, key: str) -> list[str]:
    """The `key` string of every object in a list result."""
    if not isinstance(items, list):
        return []
    return [
        item[key] for item in items if isinstance(item, dict) and isinstance(item.get(key), str)
    ]


# --- scenarios ---------------------------------------------------------------------------------


def list_tools_only(driver: Driver) -> None:
    """initialize, request-metadata, json-schema-ref-no-deref: list the tools (and nothing else:
    never dereference a network `$ref`)."""
    driver.tools_list()


def tools_call(driver: Driver) -> None:
    """tools_call: list, then `add_numbers {a: 2, b: 3}`."""
    driver.tools_list()
    step = driver.must(driver.tools_call("add_numbers", {"a": 2, "b": 3}))
    if "5" not in step.stdout:
        driver.fail(f"add_numbers: the result does not say 5: {tail(step.stdout)}")


def elicitation_defaults(driver: Driver) -> None:
    """elicitation-sep1034-client-defaults: accept with empty content; taskscope applies the
    requested schema's defaults itself."""
    answers = driver.answers_file(SEP1034_ANSWERS)
    driver.must(driver.tools_call("test_client_elicitation_defaults", {}, "--answers", answers))


def sse_retry(driver: Driver) -> None:
    """sse-retry: the call's stream closes without a response; taskscope must wait `retry` ms and
    resume with a GET carrying Last-Event-ID, where the response arrives."""
    step = driver.must(driver.tools_call("test_reconnection", {}))
    if "Reconnection test completed" not in step.stdout:
        driver.fail(f"test_reconnection: unexpected result {tail(step.stdout)}")


def mrtr_request_state(driver: Driver) -> None:
    """sep-2322-client-request-state: the four MRTR tools, the input answered by --answers."""
    answers = driver.answers_file(MRTR_ANSWERS)
    driver.tools_list()
    for name in (
        "test_mrtr_echo_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_state",
        "test_mrtr_no_result_type",
    ):
        driver.should(driver.tools_call(name, {}, "--answers", answers))


def standard_headers(driver: Driver) -> None:
    """http-standard-headers: every verb once (Mcp-Method on each, Mcp-Name where it applies).
    Independent steps run side by side: one after another, a loaded machine ran out of the
    suite's 30 s before the last verb."""
    tools = named(driver.tools_list(), "name")
    calls = [partial(driver.tools_call, name, {}) for name in tools]
    listing = [
        partial(driver.run, "resources list", ["resources", "list"]),
        partial(driver.run, "prompts list", ["prompts", "list"]),
    ]
    *called, resources_step, prompts_step = driver.in_parallel([*calls, *listing])
    for step in called:
        driver.should(step)
    listed = driver.should(resources_step).document()
    resources = listed.get("resources") if isinstance(listed, dict) else None
    listed = driver.should(prompts_step).document()
    prompts = listed.get("prompts") if isinstance(listed, dict) else None
    reads = [
        partial(driver.run, f"resources read {uri}", ["resources", "read"], "--uri", uri)
        for uri in named(resources, "uri")
    ]
    gets = [
        partial(driver.run, f"prompts get {name}", ["prompts", "get"], "--name", name)
        for name in named(prompts, "name")
    ]
    for step in driver.in_parallel([*reads, *gets]):
        driver.should(step)


def invalid_tool_headers(driver: Driver) -> None:
    """http-invalid-tool-headers: try every listed tool with {region: us-west1}; taskscope itself
    must refuse the tools whose x-mcp-header annotations are invalid (SEP-2243), and call the
    valid one. The driver does no validation of its own: the fixture names say what to expect."""
    names = named(driver.tools_list(), "name")
    if VALID_HEADER_TOOL not in names:
        driver.fail(f"tools list has no {VALID_HEADER_TOOL}: {names}")
    region = {"region": "us-west1"}
    steps = driver.in_parallel([partial(driver.tools_call, name, region) for name in names])
    for name, step in zip(names, steps, strict=True):
        if name == VALID_HEADER_TOOL:
            driver.should(step)
        elif step.exit_code == 0:
            driver.fail(f"{name}: taskscope called a tool with an invalid x-mcp-header")
        else:
            log(f"    {name}: refused as expected ({step.error_code()})")


def custom_headers(driver: Driver) -> None:
    """http-custom-headers: the calls MCP_CONFORMANCE_CONTEXT lists, with their exact arguments
    (taskscope mirrors the x-mcp-header arguments as Mcp-Param-* headers)."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    calls = context.get("toolCalls") if isinstance(context, dict) else None
    if not isinstance(calls, list) or not calls:
        driver.fail("MCP_CONFORMANCE_CONTEXT has no toolCalls")
        raise StepFailed("context")
    driver.tools_list()
    for call in calls:
        driver.should(driver.tools_call(call["name"], call.get("arguments") or {}))


def schema_preservation(driver: Driver) -> None:
    """json-schema-2020-12-preservation: echo the focal tool's inputSchema exactly as taskscope's
    `tools list` printed it."""
    tools = {tool.get("name"): tool for tool in driver.tools_list()}
    focal = tools.get(FOCAL_SCHEMA_TOOL)
    schema = focal.get("inputSchema") if focal else None
    if not isinstance(schema, dict):
        driver.fail(f"tools list has no {FOCAL_SCHEMA_TOOL} with an inputSchema")
        raise StepFailed("tools list")
    driver.must(driver.tools_call(ECHO_TOOL, {"schema": schema}))


def authorized(driver: Driver) -> None:
    """auth/*: one `tools call test-tool` that meets the 401, signs in as the scenario's context
    says (browser, pre-registered client, or client credentials) and then lists and calls. One
    process: the suite counts the authorization attempts of the client as a whole."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    flags: list[str] = []
    if isinstance(context, dict) and driver.scenario.startswith("auth/client-credentials"):
        flags += ["--auth-mode", "client_credentials", "--client-id", context["client_id"]]
        if context.get("private_key_pem"):
            key = driver.scratch / "client-key.pem"
            key.write_text(context["private_key_pem"], encoding="utf-8")
            flags += ["--client-private-key", str(key)]
            flags += ["--client-signing-alg", context.get("signing_algorithm") or "RS256"]
        else:
            flags += ["--client-secret", context["client_secret"]]
    elif isinstance(context, dict) and context.get("client_id"):
        flags += ["--client-id", context["client_id"]]
        if context.get("client_secret"):
            flags += ["--client-secret", context["client_secret"]]
    else:
        flags += ["--client-metadata-url", CIMD_URL]
    step = driver.tools_call("test-tool", {}, *flags)
    if driver.scenario in REFUSING_AUTH:
        if step.exit_code == 0:
            driver.fail(f"{driver.scenario}: taskscope went on where it had to refuse")
        return
    driver.must(step)


SCENARIOS: dict[str, Callable[[Driver], None]] = {
    "initialize": list_tools_only,
    "tools_call": tools_call,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "sse-retry": sse_retry,
    "request-metadata": list_tools_only,
    "sep-2322-client-request-state": mrtr_request_state,
    "http-standard-headers": standard_headers,
    "http-invalid-tool-headers": invalid_tool_headers,
    "http-custom-headers": custom_headers,
    "json-schema-ref-no-deref": list_tools_only,
    "json-schema-2020-12-preservation": schema_preservation,
}


def main(argv: Sequence[str]) -> int:
    if len(argv) < 1:
        log("usage: client_adapter.py URL  (with MCP_CONFORMANCE_SCENARIO set)")
        return 2
    url = argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "")
    handler = SCENARIOS.get(scenario) or (authorized if scenario.startswith("auth/") else None)
    if handler is None:
        log(f"scenario {scenario!r} is not handled by this driver")
        return 2
    trace_root = os.environ.get("TASKSCOPE_CONFORMANCE_TRACE_DIR")
    trace_dir = None
    if trace_root:
        trace_dir = Path(trace_root) / f"{version or 'default'}" / scenario.replace("/", "+")
        trace_dir.mkdir(parents=True, exist_ok=True)
    driver = Driver(scenario, url, trace_dir, time.monotonic() + DEADLINE_S)
    if scenario.startswith("auth/"):
        os.environ["TASKSCOPE_DATA_DIR"] = str(driver.scratch / "data")
        os.environ["BROWSER"] = f"{shlex.quote(sys.executable)} {shlex.quote(str(BROWSER))} %s"

    def on_term(signum: int, frame: object) -> None:
        driver.stop_children()
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    log(f"scenario {scenario} at protocol {version or '?'}: {url}")
    try:
        handler(driver)
    except StepFailed:
        pass
    finally:
        driver.stop_children()
        shutil.rmtree(driver.scratch, ignore_errors=True)
    if driver.failures:
        log(f"{len(driver.failures)} step(s) failed: " + "; ".join(driver.failures))
        return 1
    log("every step did what it should")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
