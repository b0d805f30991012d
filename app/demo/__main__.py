"""`python -m app.demo`: run a demo server (the same as `taskscope demo-server`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from app.demo.options import parse_demo_options


def main(argv: Sequence[str] | None = None) -> None:
    """Run the demo server of the requested wire until it is stopped."""
    options = parse_demo_options(argv)
    if options.wire == "legacy":
        from app.demo.legacy_server import run
    else:
        from app.demo.extension_server import run
    run(options)


if __name__ == "__main__":
    main(sys.argv[1:])
