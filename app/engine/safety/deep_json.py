"""JSON for hostile values: any nesting depth, integers of any length, lone surrogates.

The standard `json` module recurses once per nesting level, so a server result nested 1,000 levels
deep raises `RecursionError` (not `ValueError`) in `loads` and `dumps`; an integer literal longer
than Python's int-string limit (4,300 digits) makes `json.loads` refuse the whole message; and a
lone surrogate (`"\\ud800"`) cannot be written as UTF-8. These wrappers try the fast standard path
first and fall back only when it gives up.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, cast

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
scanstring = cast(
    Callable[[str, int, bool], tuple[str, int]],
    getattr(json.decoder, "scanstring"),  # noqa: B009 - missing from the typeshed stubs
)
_CONSTANTS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}


MAX_INDENTED_LEVELS = 1_000
"""Levels `dumps` indents; deeper ones are written compact. Indenting costs the square of the
depth: 100,000 levels would take some 10^10 spaces, 1,000 take a few million."""


class LongInteger(str):
    """An integer literal too long for Python's int-string limit, kept as its digits.

    Converting it would raise (and the limit exists because the conversion is quadratic), so it
    stays text: every printer shows the exact digits, as a JSON string since no encoder here can
    write an integer that long, and code that expects a number sees a string, not an int.
    """

    __slots__ = ()


def loads(text: str | bytes) -> Any:
    """`json.loads`, but any nesting depth parses and an over-long integer is a `LongInteger`;
    malformed text raises `ValueError`."""
    try:
        return json.loads(text)
    except RecursionError:
        return _parse(_as_text(text))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except ValueError:  # only the int-string limit raises a plain ValueError
        try:
            return json.loads(text, parse_int=_integer)
        except RecursionError:
            return _parse(_as_text(text))


def dumps(
    value: Any,
    *,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    ensure_ascii: bool = True,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """`json.dumps` (the same keyword arguments), but any nesting depth prints."""
    try:
        return json.dumps(
            value,
            indent=indent,
            separators=separators,
            ensure_ascii=ensure_ascii,
            default=default,
        )
    except RecursionError:
        return _encode(value, indent, separators, ensure_ascii, default)


def dumps_utf8(
    value: Any,
    *,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """`dumps` for text bound for UTF-8 (a pipe, a socket, a file): non-ASCII stays as it is,
    unless the value holds a lone surrogate (a server's `"\\ud800"`), which UTF-8 cannot carry;
    then the whole text uses `\\u` escapes, which every JSON parser reads back as the same string
    (so a task id with a surrogate is sent back exactly as the server wrote it)."""
    text = dumps(value, indent=indent, separators=separators, ensure_ascii=False, default=default)
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return dumps(value, indent=indent, separators=separators, ensure_ascii=True, default=default)


def depth(value: Any) -> int:
    """How deeply containers nest in `value` (a scalar is 0, `[]` is 1), without recursion."""
    deepest = 0
    for item, level in walk(value):
        deepest = max(deepest, level + 1 if isinstance(item, dict | list | tuple) else level)
    return deepest


def walk(value: Any) -> Iterator[tuple[Any, int]]:
    """`value` and every value inside it (object members' values, list items), each with how many
    containers hold it, without recursion; a container comes before what it holds."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        yield item, level
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((child, level + 1) for child in item)


# -- parsing ---------------------------------------------------------------------------------------


def _as_text(text: str | bytes) -> str:
    return text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text


def _integer(digits: str) -> int | LongInteger:
    """An integer literal as an `int`, or as a `LongInteger` when it is too long to convert."""
    try:
        return int(digits)
    except ValueError:
        return LongInteger(digits)


def _error(message: str, text: str, position: int) -> json.JSONDecodeError:
    return json.JSONDecodeError(message, text, position)


def _skip(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _scalar(text: str, position: int) -> tuple[Any, int]:
    """A string, number or constant starting at `position`."""
    if text.startswith('"', position):
        return scanstring(text, position + 1, True)
    for word, constant in _CONSTANTS.items():
        if text.startswith(word, position):
            return constant, position + len(word)
    match = _NUMBER.match(text, position)
    if match is None or match.end() == position:
        raise _error("Expecting value", text, position)
    number = match.group()
    if match.group(1) or match.group(2):
        return float(number), match.end()
    return _integer(number), match.end()


def _parse(text: str) -> Any:
    """A JSON document parsed with an explicit stack of open containers."""
    stack: list[tuple[dict[str, Any] | list[Any], str | None]] = []
    position = _skip(text, 0)
    while True:
        # Read one value; an opened non-empty container is pushed and its first member read.
        if position >= len(text):
            raise _error("Expecting value", text, position)
        char = text[position]
        value: Any
        if char in "[{":
            container: dict[str, Any] | list[Any] = {} if char == "{" else []
            position = _skip(text, position + 1)
            closer = "}" if char == "{" else "]"
            if text.startswith(closer, position):
                value, position = container, position + 1
            else:
                key = None
                if isinstance(container, dict):
                    key, position = _member_key(text, position)
                stack.append((container, key))
                continue
        else:
            value, position = _scalar(text, position)
        # Attach the value to its container, closing every container that ends here.
        while True:
            position = _skip(text, position)
            if not stack:
                if position != len(text):
                    raise _error("Extra data", text, position)
                return value
            container, key = stack[-1]
            if isinstance(container, dict):
                assert key is not None
                container[key] = value
            else:
                container.append(value)
            closer = "}" if isinstance(container, dict) else "]"
            if text.startswith(",", position):
                position = _skip(text, position + 1)
                if isinstance(container, dict):
                    key, position = _member_key(text, position)
                    stack[-1] = (container, key)
                break
            if not text.startswith(closer, position):
                raise _error(f"Expecting ',' or '{closer}'", text, position)
            position += 1
            stack.pop()
            value = container


def _member_key(text: str, position: int) -> tuple[str, int]:
    """An object member's key and the position after its colon."""
    if not text.startswith('"', position):
        raise _error("Expecting property name enclosed in double quotes", text, position)
    key, position = scanstring(text, position + 1, True)
    position = _skip(text, position)
    if not text.startswith(":", position):
        raise _error("Expecting ':' delimiter", text, position)
    return key, _skip(text, position + 1)


# -- printing --------------------------------------------------------------------------------------


def _encode(
    value: Any,
    indent: int | None,
    separators: tuple[str, str] | None,
    ensure_ascii: bool,
    default: Callable[[Any], Any] | None,
) -> str:
    """`value` as JSON text, written with an explicit stack of open containers."""
    if separators is None:
        separators = (",", ": ") if indent is not None else (", ", ": ")
    item_separator, key_separator = separators
    parts: list[str] = []
    stack: list[tuple[Iterator[Any], bool, int]] = []
    first = True

    def newline(level: int) -> str:
        if indent is None or level > MAX_INDENTED_LEVELS:
            return ""
        return "\n" + " " * (indent * level)

    def scalar(item: Any) -> str:
        return json.dumps(item, ensure_ascii=ensure_ascii, default=default)

    def open_value(item: Any, level: int) -> bool:
        """Write a scalar or an empty container; push a non-empty one (True when pushed)."""
        if isinstance(item, dict) and item:
            parts.append("{")
            stack.append((iter(item.items()), True, level + 1))
            return True
        if isinstance(item, list | tuple) and item:
            parts.append("[")
            stack.append((iter(item), False, level + 1))
            return True
        parts.append(
            "{}"
            if isinstance(item, dict)
            else "[]"
            if isinstance(item, list | tuple)
            else scalar(item)
        )
        return False

    first = open_value(value, 0)
    while stack:
        members, is_object, level = stack[-1]
        member = next(members, _END)
        if member is _END:
            stack.pop()
            parts.append(newline(level - 1) + ("}" if is_object else "]"))
            first = False
            continue
        parts.append(("" if first else item_separator) + newline(level))
        if is_object:
            key, member = cast(tuple[Any, Any], member)
            parts.append(scalar(key if isinstance(key, str) else str(key)) + key_separator)
        first = open_value(member, level)
    return "".join(parts)


_END = object()
