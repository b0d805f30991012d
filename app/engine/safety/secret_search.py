"""Finding secrets in text in every form a server or a library echoes them in, at a cost that
does not grow with how long the secrets are.

One regular expression over every form of every secret grows with their length: a sign-in server
handing out 60 KB tokens made each rebuild compile megabytes of pattern (a refresh storm of 40
refreshes cost 109 s of CPU and 1.3 GB). `SecretSearch` looks for each form's first
`HEAD_CHARS` characters only and compares the rest where one is found.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

HEAD_CHARS = 32
"""How much of each form the pattern holds; longer forms are compared whole where it matches."""
_PERCENT_ESCAPE = re.compile("%[0-9A-F]{2}")
UNPAIRED = "surrogatepass"
"""How half a UTF-16 pair in a secret (JSON `\\ud800` alone) is encoded: as it is, never failing."""


def echoed_forms(secret: str) -> set[str]:
    """`secret` as it reads once escaped for JSON (ASCII or not, `/` escaped or not), quoted by
    `repr` (of the text or of its UTF-8 bytes, as httpx and h11 quote a header value; in either
    quote style, since a longer text around it may choose the other) or percent-encoded (Python's
    and JavaScript's sets, hex in either case)."""
    both_quotes = "'\""  # appended, they force `repr` to quote with ' and escape ' inside
    json_forms = {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    forms = {
        secret,
        *json_forms,
        *(form.replace("/", "\\/") for form in json_forms),
        repr(secret)[1:-1],
        repr(secret + both_quotes)[1:-4],
        repr(secret.encode("utf-8", UNPAIRED))[2:-1],
        repr((secret + both_quotes).encode("utf-8", UNPAIRED))[2:-4],
    }
    percent = (
        quote(secret, safe="", errors=UNPAIRED),
        quote(secret, errors=UNPAIRED),
        quote(secret, safe="!~*'()", errors=UNPAIRED),
        quote_plus(secret, errors=UNPAIRED),
    )
    for encoded in percent:
        forms.add(encoded)
        forms.add(_PERCENT_ESCAPE.sub(lambda escape: escape.group().lower(), encoded))
    return forms


class SecretSearch:
    """Replaces each of some texts (the echoed forms of secrets) wherever it appears, the longest
    first where several start at one place (so a token is never half-replaced by a shorter secret
    inside it)."""

    def __init__(self, forms: Iterable[str]) -> None:
        self._by_head: dict[str, list[str]] = {}
        for form in sorted({form for form in forms if form}, key=lambda form: (-len(form), form)):
            self._by_head.setdefault(form[:HEAD_CHARS], []).append(form)
        self._head_lengths = sorted({len(head) for head in self._by_head}, reverse=True)
        heads = sorted(self._by_head, key=lambda head: (-len(head), head))
        self._pattern = re.compile("|".join(map(re.escape, heads))) if heads else None

    @classmethod
    def of(cls, secrets: Iterable[str]) -> SecretSearch:
        """The search for every echoed form of `secrets`."""
        return cls(form for secret in secrets for form in echoed_forms(secret))

    def __bool__(self) -> bool:
        """Whether there is anything to look for."""
        return self._pattern is not None

    def replace(self, text: str, marker: str) -> str:
        """`text` with every form replaced by `marker` (`text` itself when it holds none)."""
        pattern = self._pattern
        if pattern is None:
            return text
        pieces: list[str] = []
        kept_from = searched_from = 0
        while (found := pattern.search(text, searched_from)) is not None:
            at = found.start()
            form = self._form_at(text, at)
            if form is None:
                searched_from = at + 1
                continue
            pieces += (text[kept_from:at], marker)
            kept_from = searched_from = at + len(form)
        if not pieces:
            return text
        pieces.append(text[kept_from:])
        return "".join(pieces)

    def _form_at(self, text: str, at: int) -> str | None:
        """The longest form that starts at `at`, if any (forms are grouped by their head, and a
        longer head belongs to a longer form)."""
        for length in self._head_lengths:
            for form in self._by_head.get(text[at : at + length], ()):
                if text.startswith(form, at):
                    return form
        return None
