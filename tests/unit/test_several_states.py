"""The header's word for each of several servers: a config entry that cannot be used is
`invalid`, as `taskscope servers` calls it (nothing was tried, so nothing failed)."""

from __future__ import annotations

from app.tui.multi import MultiSource

PROBLEM = "servers.json: server 'broken' has no 'url'"


def test_a_config_entry_that_cannot_be_used_is_invalid_not_failed() -> None:
    several = MultiSource(
        [("broken", PROBLEM), ("typo", "servers.json: server 'typo' has no 'command'")],
        label="servers.json",
        readonly=False,
    )
    assert several.connection_note() == "0 of 2 · broken invalid · typo invalid"
