"""How the inspector tells apart the tasks of several servers: each row's key is the server's
name and the task id the server gave, joined by `SEPARATOR` ("github · task-7"), so two servers
may hand out the same id and toasts still read naturally. With one server the key is the id.
"""

from __future__ import annotations

SEPARATOR = " · "


def row_key(server: str, task_id: str) -> str:
    """The key of the task `task_id` of `server`."""
    return f"{server}{SEPARATOR}{task_id}"


def task_key(server: str | None, task_id: str) -> str:
    """The key of a task of `server`, or its id when there is one server (`server` None)."""
    return task_id if server is None else row_key(server, task_id)


def server_name(name: str) -> str:
    """A config entry's name made fit for a key: the separator cannot occur in it."""
    while SEPARATOR in name:  # "a · · b" would leave a separator after one pass
        name = name.replace(SEPARATOR, " - ")
    return name or "unnamed"


def split_key(key: str, servers: frozenset[str] | set[str]) -> tuple[str, str] | None:
    """(server, task id) of a row key of one of `servers`; None when it belongs to none."""
    server, separator, task_id = key.partition(SEPARATOR)
    if not separator or server not in servers:
        return None
    return server, task_id


def bare_id(key: str, server: str | None) -> str:
    """The id the server gave the task whose row key is `key` (the key itself for one server)."""
    if server is None:
        return key
    return key.removeprefix(server + SEPARATOR)
