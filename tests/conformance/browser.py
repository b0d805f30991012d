"""The person at the browser in the conformance suite's auth scenarios (`$BROWSER` for taskscope):
GET the authorization URL and follow its redirects — the mock authorization server approves at
once — until taskscope's loopback callback has the code, as clicking "allow" would."""

from __future__ import annotations

import sys
import urllib.request

if __name__ == "__main__":
    with urllib.request.urlopen(sys.argv[1], timeout=10) as response:
        response.read()
