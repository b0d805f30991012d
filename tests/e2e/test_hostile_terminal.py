"""The real `taskscope` full-screen UI in a pseudo-terminal against the `escapes` hostile server:
every byte written to the terminal is scanned for escape sequences and characters from server text.

The UI draws with its own escape sequences, so the scan looks for the server's: its OSC title,
clipboard (OSC 52) and hyperlink (OSC 8) sequences, its colour and screen-clearing CSI sequences,
C1 controls and bidi overrides, and a hyperlink made from Rich `[link=…]` markup.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shlex
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from app.demo.hostile_modes import HOSTILE_ID, HOSTILE_TEXT
from tests.support.demo_servers import REPO_ROOT, hostile_command

pytestmark = [pytest.mark.timeout(60), pytest.mark.skipif(sys.platform == "win32", reason="pty")]

SERVER_SEQUENCES = (
    b"\x1b]0;pwned",  # OSC 0: set the window title
    b"\x1b]52;",  # OSC 52: write the clipboard
    b"evil.example/\x1b\\",  # the server's OSC 8 hyperlink
    b"\x1b[31mred",  # its colour
    b"\x1b[2J\x1b[H",  # its clear-screen
    b"\x1b[7m[b]",  # the escape inside its task id
)
FORBIDDEN_CHARACTERS = (
    "\u202e",
    "\u2066",
    "\u2069",
    "\u200b",
    "\U000e0074",  # a tag character
    "\U000e0100",  # a supplementary variation selector
    "\x9b",
    "\x00",
    "\x08",
)


class Terminal:
    """A child process on a pseudo-terminal of a fixed size; everything it writes is kept."""

    def __init__(self, command: list[str], env: dict[str, str], rows: int = 40, cols: int = 140):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.master = master
        self.output = bytearray()
        self.process = subprocess.Popen(
            command,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=REPO_ROOT,
            start_new_session=True,
        )
        os.close(slave)

    def read(self, seconds: float) -> None:
        """Collect output for `seconds`."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], min(left, 0.1))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self.output.extend(chunk)

    def wait_for(self, text: str, seconds: float = 20.0) -> None:
        """Collect output until `text` appears in it."""
        deadline = time.monotonic() + seconds
        while text not in self.text:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared on the terminal")
            self.read(0.2)

    def press(self, keys: str, settle: float = 0.5) -> None:
        os.write(self.master, keys.encode())
        self.read(settle)

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        os.close(self.master)


@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_no_server_escape_reaches_the_terminal(wire: str, tmp_path: Path) -> None:
    server = shlex.join(hostile_command(wire, "escapes"))  # type: ignore[arg-type]
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "TASKSCOPE_DATA_DIR": str(tmp_path / "data"),
        "TASKSCOPE_CONFIG": str(tmp_path / "no-config.json"),
    }
    terminal = Terminal([sys.executable, "-m", "app.cli.main", "--command", server], env)
    try:
        terminal.wait_for("hostile")  # connected: the header names the server
        terminal.press("n", settle=1.0)  # the tool picker lists the server's hostile tools
        terminal.press("job\r", settle=1.0)
        terminal.press("\x13", settle=1.0)  # ctrl+s runs the tool as a task
        terminal.wait_for("done red")  # the completed task's (decorated) status message
        terminal.press("L", settle=0.5)  # the RPC log
        terminal.press("v", settle=0.5)  # the raw frames
        terminal.press("q", settle=1.0)
        terminal.read(1.0)
    finally:
        terminal.close()
    output = bytes(terminal.output)
    for sequence in SERVER_SEQUENCES:
        assert sequence not in output, sequence
    assert b"\x1b]8;" not in output or b"evil.example" not in output.split(b"\x1b]8;", 1)[1]
    text = terminal.text
    for character in FORBIDDEN_CHARACTERS:
        assert character not in text, repr(character)
    assert "[bold red]loud[/bold red]" in text  # markup shown literally, not interpreted
    assert "<U+202E>gnirts desrever<U+202C>" in text  # bidi made visible
    assert "bell␇" in text  # a control character made visible


def test_the_scan_looks_for_what_the_server_sends() -> None:
    """Every sequence the scan forbids is really in the server's strings (the scan can fail)."""
    sent = (HOSTILE_TEXT + HOSTILE_ID).encode()
    for sequence in SERVER_SEQUENCES:
        assert sequence in sent, sequence
    for character in FORBIDDEN_CHARACTERS[:6]:
        assert character in HOSTILE_TEXT
