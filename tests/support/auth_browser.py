"""The person at the browser for taskscope's sign-ins in tests (`$BROWSER`): GET the
authorization URL and follow its redirects — the test authorization servers approve at once —
until taskscope's loopback callback has the code, as clicking "allow" would. With `--deny`, the
person clicks "deny" instead: the browser goes straight back with `error=access_denied`."""

from __future__ import annotations

import shlex
import sys
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit


def browser_command(*, deny: bool = False) -> str:
    """The `$BROWSER` value that runs this script on the URL."""
    script = shlex.quote(str(Path(__file__).resolve()))
    return f"{shlex.quote(sys.executable)} {script} {'--deny ' if deny else ''}%s"


def visit(url: str, deny: bool) -> None:
    if deny:
        query = parse_qs(urlsplit(url).query)
        back = {"error": "access_denied", "error_description": "the user said no"}
        back["state"] = query["state"][0]
        url = f"{query['redirect_uri'][0]}?{urlencode(back)}"
    with urllib.request.urlopen(url, timeout=10) as response:
        response.read()


if __name__ == "__main__":
    visit(sys.argv[-1], "--deny" in sys.argv[1:-1])
