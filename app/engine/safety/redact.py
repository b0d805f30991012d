"""Keeps secrets out of everything taskscope shows or records: headers, frames and error text.

`Authorization`, any header the user named with `--redact`, and every secret value (the bearer
token, the values of those headers, the parts of a `Basic` credential) are replaced by a fixed
marker wherever they appear — also in the forms a server or a library echoes them in: JSON-escaped,
`repr`-quoted, percent-encoded. Secrets that appear while taskscope runs (OAuth access and refresh
tokens, registered client secrets, every value a config file takes from the environment) are
learned process-wide with `learn_secrets`, so every redactor hides them from then on, whichever
connection, screen or recording it serves.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.safety.secret_search import SecretSearch, echoed_forms

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 4
"""Shorter values are hidden in their headers but not searched for in text (it would shred it)."""
ALWAYS_REDACTED_HEADERS: frozenset[str] = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie"}
)
MAX_LEARNED_SECRETS = 128
"""Learned secrets kept, the least recently learned or used going first: the tokens in use are
used again on every request, and an hour of refreshes of a token that lives a minute fits."""


class _LearnedSecrets:
    """The secrets learned while running, newest (or most recently used) last, at most
    `MAX_LEARNED_SECRETS`, and one search for all of them, built again only when they change."""

    def __init__(self) -> None:
        self.forms: dict[str, set[str]] = {}
        """Each recent secret's echoed forms, worked out once, the least recently used first."""
        self.lasting: dict[str, set[str]] = {}
        """Secrets kept for the whole run (values from the environment: no more than it holds)."""
        self.search = SecretSearch(())

    def add(self, values: Iterable[str | None], *, lasting: bool) -> None:
        stripped = [value.strip() for value in values if value]
        changed = False
        for value in stripped:
            if len(value) < MIN_SECRET_LENGTH or value in self.lasting:
                continue
            known = self.forms.pop(value, None)
            changed = changed or known is None or lasting
            forms = known if known is not None else echoed_forms(value)
            (self.lasting if lasting else self.forms)[value] = forms
        while len(self.forms) > MAX_LEARNED_SECRETS:
            del self.forms[next(iter(self.forms))]
        if changed:
            every = (*self.forms.values(), *self.lasting.values())
            self.search = SecretSearch(form for forms in every for form in forms)


_LEARNED = _LearnedSecrets()


def learn_secrets(*values: str | None, lasting: bool = False) -> None:
    """Hide `values` (tokens, client secrets) in everything every redactor handles from now on;
    `lasting` ones (taken from the environment) for the whole run, the others until
    `MAX_LEARNED_SECRETS` more recently used ones push them out (a value learned again counts as
    just used)."""
    _LEARNED.add(values, lasting=lasting)


def hide_learned(text: str) -> str:
    """`text` with every learned secret replaced (what no one redactor owns: a server's key)."""
    return Redactor().text(text)


def secret_values(headers: Mapping[str, str], names: Iterable[str] = ()) -> list[str]:
    """The values of headers that must never be shown, the credentials part of a `Scheme value`
    one (a bearer token), and of a `Basic` one also the decoded `user:password` and password."""
    wanted = ALWAYS_REDACTED_HEADERS | {name.lower() for name in names}
    secrets: list[str] = []
    for key, value in headers.items():
        if key.lower() not in wanted or not value.strip():
            continue
        secrets.append(value)
        scheme, _, credentials = value.strip().partition(" ")
        if credentials.strip():
            secrets.append(credentials)
        if scheme.lower() == "basic":
            secrets.extend(basic_secrets(credentials))
    return secrets


def basic_secrets(credentials: str) -> list[str]:
    """`user:password` and the password of a Base64 `Basic` credential (none if it is not one)."""
    try:
        pair = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return []
    _, sep, password = pair.partition(":")
    return [pair, password] if sep else [pair]


@dataclass(frozen=True)
class Redactor:
    """Hides the `header_names` headers (plus `Authorization`) and every `secrets` value, in each
    of its `echoed_forms`."""

    header_names: frozenset[str] = frozenset()
    secrets: tuple[str, ...] = field(default=())
    _search: SecretSearch = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_search", SecretSearch.of(self.secrets))

    @classmethod
    def build(
        cls,
        names: Iterable[str] = (),
        secrets: Iterable[str | None] = (),
        headers: Mapping[str, str] | None = None,
    ) -> Redactor:
        """A redactor for `--redact` names, explicit secrets (the bearer) and header values.

        Secrets are searched for without surrounding whitespace, so a token read with a trailing
        `\\r` is still found however it is quoted.
        """
        lowered = frozenset(name.lower() for name in names)
        found = [secret for secret in secrets if secret]
        if headers:
            found.extend(secret_values(headers, lowered))
        unique = sorted(
            {s.strip() for s in found if len(s.strip()) >= MIN_SECRET_LENGTH},
            key=lambda s: (-len(s), s),
        )
        return cls(header_names=lowered, secrets=tuple(unique))

    def joined(self, other: Redactor) -> Redactor:
        """A redactor hiding what this one and `other` both hide (one server's secrets and the
        whole session's, say)."""
        secrets = sorted(set(self.secrets) | set(other.secrets), key=lambda s: (-len(s), s))
        return Redactor(self.header_names | other.header_names, tuple(secrets))

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """A copy of `headers` with secret header values replaced."""
        hidden = ALWAYS_REDACTED_HEADERS | self.header_names
        return {
            key: REDACTED if key.lower() in hidden else self.text(value)
            for key, value in headers.items()
        }

    def text(self, text: str) -> str:
        """`text` with every secret value replaced (`text` itself when it holds none)."""
        return _LEARNED.search.replace(self._search.replace(text, REDACTED), REDACTED)

    @property
    def hides_text(self) -> bool:
        """Whether any secret value (its own or a learned one) is searched for in text."""
        return bool(self._search) or bool(_LEARNED.search)

    def value(self, value: Any) -> Any:
        """A JSON-like value with every secret replaced inside its strings (keys included);
        `value` itself when it holds none.

        Walked with an explicit stack: server values may nest deeper than the recursion limit.
        """
        if not self.hides_text:
            return value
        root: list[Any] = [None]
        stack: list[tuple[Any, list[Any] | dict[str, Any], int | str]] = [(value, root, 0)]
        changed = False
        while stack:
            item, holder, slot = stack.pop()
            copy: Any
            if isinstance(item, str):
                copy = self.text(item)
                changed = changed or copy != item
            elif isinstance(item, dict):
                copy = {}
                for key, child in item.items():
                    hidden = self.text(str(key))
                    changed = changed or hidden != key
                    copy[hidden] = None
                    stack.append((child, copy, hidden))
            elif isinstance(item, list):
                copy = [None] * len(item)
                stack.extend((child, copy, index) for index, child in enumerate(item))
            else:
                copy = item
            holder[slot] = copy  # type: ignore[index]
        return root[0] if changed else value

    def exception(self, error: BaseException) -> BaseException:
        """`error` (and the errors it was raised from) with secrets replaced in its arguments and
        text attributes, in place, so its type and what handlers read from it stay the same."""
        if not self.hides_text:
            return error
        seen: set[int] = set()
        current: BaseException | None = error
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            current.args = tuple(self.value(argument) for argument in current.args)
            for name, attribute in list(vars(current).items()):
                if isinstance(attribute, str | dict | list):
                    setattr(current, name, self.value(attribute))
            current = current.__cause__ or current.__context__
        return error


def redact_headers(
    headers: Mapping[str, str], names: Iterable[str] = (), bearer: str | None = None
) -> dict[str, str]:
    """One-shot helper: `headers` with `Authorization`, the named headers and the bearer hidden."""
    return Redactor.build(names, [bearer], headers).headers(headers)
