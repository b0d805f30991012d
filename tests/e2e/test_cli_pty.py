"""Interactive answers through a real pseudo-terminal: `taskscope tools call … --task --task-watch
--interactive` with stdin and stderr on a pty (stdout stays a pipe for the envelope)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from tests.support.cli_helpers import interactive_cli

pytestmark = pytest.mark.slow


def demo(wire: str) -> tuple[str, str]:
    return ("--command", f"{sys.executable} -m app.demo --wire {wire} --speed 20")


def envelope(process: subprocess.Popen[str]) -> dict[str, object]:
    stdout, _ = process.communicate(timeout=30)
    assert process.returncode == 0, stdout
    return dict(json.loads(stdout))


def test_legacy_form_is_asked_field_by_field_with_defaults_choices_and_re_asking() -> None:
    args = ("tools", "call", *demo("legacy"), "--tool-name", "provision_server", "--task")
    with interactive_cli(*args, "--task-watch") as (term, process):
        term.expect("Describe the server to provision.")
        term.expect("[a]ccept, [d]ecline or [c]ancel? [a]: ")
        term.type("")
        term.expect("Host name (required) — DNS label for the new server")
        term.expect("text [web-1]: ")
        term.type("X!")  # breaks the pattern: asked again
        term.expect("text [web-1]: ")
        term.type("db-3")
        term.expect("email: ")
        term.type("")  # required, no default
        term.expect("this field is required")
        term.expect("email: ")
        term.type("not-an-address")
        term.expect("email: ")
        term.type("ops@example.com")
        for prompt in ("uri: ", "YYYY-MM-DD: ", "time zone: ", "number [100]: "):
            term.expect(prompt)
            term.type("")
        term.expect("integer [2]: ")
        term.type("4")
        term.expect("y/n [true]: ")
        term.type("")
        term.expect("2) us-east [us-east]")
        term.expect("number or value [eu-west]: ")
        term.type("2")  # a choice by number
        term.expect("number or value [m]: ")
        term.type("l")  # a choice by value
        term.expect("number or value: ")
        term.type("")
        term.expect('comma-separated [["22"]]: ')
        term.type("1,3")
        term.expect("comma-separated: ")
        term.type("")
        term.expect("watch ended (completed)")
        document = envelope(process)
    assert document["outcome"] == "completed"
    assert "Provisioned db-3 in us-east." in json.dumps(document["task"])


def test_extension_url_consent_shows_the_url_and_host_and_never_opens_it() -> None:
    args = ("tools", "call", *demo("extension"), "--tool-name", "connect_account", "--task")
    with interactive_cli(*args, "--task-watch") as (term, process):
        term.expect("Link your cloud account to continue.")
        term.expect("URL:  https://accounts.example.com/link?client=taskscope-demo")
        term.expect("host: accounts.example.com")
        term.expect("[y/N]: ")
        term.type("y")
        term.expect("watch ended (completed)")
        document = envelope(process)
    assert "Account linked." in json.dumps(document["task"])


def test_sampling_shows_the_prompt_and_sends_the_typed_reply() -> None:
    args = ("tools", "call", *demo("legacy"), "--tool-name", "summarize_text", "--task")
    with interactive_cli(*args, "--task-watch") as (term, process):
        term.expect("system prompt: You write one-sentence summaries.")
        term.expect("user: Summarize:")
        term.expect("maxTokens: 120")
        term.expect("Assistant reply: ")
        term.type("Servers run long jobs.")
        term.expect("Model name [human]: ")
        term.type("")
        term.expect("watch ended (completed)")
        document = envelope(process)
    assert "Summary: Servers run long jobs." in json.dumps(document["task"])


def test_declining_sampling_answers_with_an_error_and_the_task_ends() -> None:
    args = ("tools", "call", *demo("legacy"), "--tool-name", "summarize_text", "--task")
    with interactive_cli(*args, "--task-watch") as (term, process):
        term.expect("Assistant reply: ")
        term.type("")
        term.expect("Decline this request? [y/N]: ")
        term.type("y")
        term.expect("declined sampling/createMessage with an error reply")
        term.expect("watch ended (failed)")
        stdout, _ = process.communicate(timeout=30)
    assert process.returncode == 1, stdout
    document = json.loads(stdout)
    assert document["outcome"] == "failed"
    assert "The client declined to sample." in json.dumps(document["task"])


def test_ctrl_c_at_a_prompt_aborts_with_the_envelope() -> None:
    args = ("tools", "call", *demo("extension"), "--tool-name", "provision_server", "--task")
    with interactive_cli(*args, "--task-watch") as (term, process):
        term.expect("[a]ccept, [d]ecline or [c]ancel? [a]: ")
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    document = json.loads(stdout)
    assert document["outcome"] == "aborted"
    assert document["task"]["status"] == "input_required"
