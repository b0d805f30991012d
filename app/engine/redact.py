"""Keeps secrets out of everything taskscope shows or records: headers, frames and error text.

`Authorization`, any header the user named with `--redact`, and every secret value (the bearer
token, the values of those headers) are replaced by a fixed marker wherever they appear.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 4
"""Shorter values are hidden in their headers but not searched for in text (it would shred it)."""
ALWAYS_REDACTED_HEADERS: frozenset[str] = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie"}
)


def secret_values(headers: Mapping[str, str], names: Iterable[str] = ()) -> list[str]:
    """The values of headers that must never be shown, and the token part of a `Bearer` value."""
    wanted = ALWAYS_REDACTED_HEADERS | {name.lower() for name in names}
    secrets: list[str] = []
    for key, value in headers.items():
        if key.lower() not in wanted or not value:
            continue
        secrets.append(value)
        scheme, _, token = value.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            secrets.append(token.strip())
    return secrets


@dataclass(frozen=True)
class Redactor:
    """Hides the `header_names` headers (plus `Authorization`) and every `secrets` value."""

    header_names: frozenset[str] = frozenset()
    secrets: tuple[str, ...] = field(default=())

    @classmethod
    def build(
        cls,
        names: Iterable[str] = (),
        secrets: Iterable[str | None] = (),
        headers: Mapping[str, str] | None = None,
    ) -> Redactor:
        """A redactor for `--redact` names, explicit secrets (the bearer) and header values."""
        lowered = frozenset(name.lower() for name in names)
        found = [secret for secret in secrets if secret]
        if headers:
            found.extend(secret_values(headers, lowered))
        # Longest first, so a token is never half-replaced by a shorter secret inside it.
        unique = sorted({s for s in found if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
        return cls(header_names=lowered, secrets=tuple(unique))

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """A copy of `headers` with secret header values replaced."""
        hidden = ALWAYS_REDACTED_HEADERS | self.header_names
        return {
            key: REDACTED if key.lower() in hidden else self.text(value)
            for key, value in headers.items()
        }

    def text(self, text: str) -> str:
        """`text` with every secret value replaced."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def value(self, value: Any) -> Any:
        """A JSON-like value with every secret replaced inside its strings (keys included).

        Walked with an explicit stack: server values may nest deeper than the recursion limit.
        """
        if not self.secrets:
            return value
        root: list[Any] = [None]
        stack: list[tuple[Any, list[Any] | dict[str, Any], int | str]] = [(value, root, 0)]
        while stack:
            item, holder, slot = stack.pop()
            copy: Any
            if isinstance(item, str):
                copy = self.text(item)
            elif isinstance(item, dict):
                copy = {}
                for key, child in item.items():
                    hidden = self.text(str(key))
                    copy[hidden] = None
                    stack.append((child, copy, hidden))
            elif isinstance(item, list):
                copy = [None] * len(item)
                stack.extend((child, copy, index) for index, child in enumerate(item))
            else:
                copy = item
            holder[slot] = copy  # type: ignore[index]
        return root[0]


def redact_headers(
    headers: Mapping[str, str], names: Iterable[str] = (), bearer: str | None = None
) -> dict[str, str]:
    """One-shot helper: `headers` with `Authorization`, the named headers and the bearer hidden."""
    return Redactor.build(names, [bearer], headers).headers(headers)
