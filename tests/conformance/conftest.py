"""The MCP conformance suite's tests: the `conformance` marker and the suite's CLI, installed once.

Run them alone with `python -m pytest -m conformance` (or `tests/conformance`); leave them out with
`-m "not conformance"`. The first run installs Node and the suite into the test cache
(tests/support/node_tools.py; about half a minute), later runs reuse it.
"""

from __future__ import annotations

import pytest

from tests.conformance.harness import conformance_command


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "conformance: runs the official MCP conformance suite (installs Node and npm packages "
        "into the test cache on first use)",
    )


@pytest.fixture(scope="session")
def conformance_cli() -> list[str]:
    """The conformance suite's command line (Node with the loopback preload, then the CLI)."""
    return conformance_command()
