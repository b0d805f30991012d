"""Target flags that would leak or inject (issue 11): framing and transport headers refused at
parsing (flags and config files, CLI exit 2 before anything is sent), credentials taken without
surrounding whitespace, a URL's `user:password@` turned into a `Basic` header, and a property run
of the redactor over the forms a server or library echoes a secret in."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.rpc.targets import (
    HttpTarget,
    TargetError,
    load_config_target,
    parse_header,
    url_target,
    without_userinfo,
)
from app.engine.safety.redact import REDACTED, Redactor
from tests.support.cli_helpers import clean_env, run_cli
from tests.support.demo_servers import free_port

REFUSED = [
    "Host",
    "Content-Length",
    "Transfer-Encoding",
    "Connection",
    "content-type",
    "Accept",
    "Mcp-Session-Id",
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
    "Mcp-Param-Region",
]


@pytest.fixture(autouse=True)
def no_bearer_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TASKSCOPE_BEARER", raising=False)


# -- framing and transport headers --------------------------------------------------------------


@pytest.mark.parametrize("name", REFUSED)
def test_headers_the_client_or_transport_set_are_refused(name: str, tmp_path: Path) -> None:
    with pytest.raises(TargetError, match=f"header '{name}' cannot be set"):
        url_target("http://h/mcp", [f"{name}: x"])
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"servers": {"s": {"url": "http://h/mcp", "headers": {name: "x"}}}})
    )
    with pytest.raises(TargetError, match=f"server 's': header '{name}' cannot be set"):
        load_config_target(str(config), "s")


@pytest.mark.parametrize("name", ["Host", "Content-Length", "Transfer-Encoding", "Connection"])
def test_the_cli_refuses_a_framing_header_before_connecting(name: str, tmp_path: Path) -> None:
    """Exit 2 (a usage error), not 1: nothing listens on the port, so nothing was tried."""
    url = f"http://127.0.0.1:{free_port()}/mcp"
    flagged = run_cli("tools", "list", "--url", url, "--header", f"{name}: evil.example")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"url": url, "headers": {name: "5"}}}}))
    configured = run_cli("tools", "list", "--config", str(config), "--server", "s")
    for run in (flagged, configured):
        assert run.code == 2, run.stderr
        assert run.error["code"] == "USAGE" and "cannot be set" in run.error["message"]


def test_a_header_that_would_split_the_request_is_refused() -> None:
    for headers in ({"X-A": "one\r\nHost: evil"}, {"X-A": "nul\x00"}, {"X A": "v"}, {"X:A": "v"}):
        with pytest.raises(TargetError):
            HttpTarget("http://h/mcp", headers=headers)
    assert HttpTarget("http://h/mcp", headers={"X-A": "tab\tinside"}).headers == {
        "X-A": "tab\tinside"
    }


def test_a_malformed_header_flag_is_named_by_its_first_word_only() -> None:
    with pytest.raises(TargetError) as caught:
        parse_header("Authorization Bearer sk-SECRET-1")
    assert "SECRET" not in str(caught.value) and "'Authorization'" in str(caught.value)


# -- whitespace around credentials --------------------------------------------------------------


def test_the_token_and_header_values_lose_surrounding_whitespace(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = url_target("http://h/mcp", ["X-Key: k-1\r"], "tok-1\r\n")
    assert (target.bearer, target.headers) == ("tok-1", {"X-Key": "k-1"})
    monkeypatch.setenv("TASKSCOPE_BEARER", " tok-2\r")
    assert url_target("http://h/mcp").bearer == "tok-2"
    monkeypatch.setenv("TASKSCOPE_BEARER", "\r\n")
    assert url_target("http://h/mcp").bearer is None
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"s": {"url": "http://h", "headers": {"K": "v\r"}}}}))
    configured = load_config_target(str(config), "s")
    assert isinstance(configured, HttpTarget) and configured.headers == {"K": "v"}


def test_a_token_with_a_space_or_control_inside_is_refused_without_showing_it() -> None:
    for token in ("Bearer tok-SECRET", "tok\r\nX-Evil: 1", "tok\x00SECRET"):
        with pytest.raises(TargetError) as caught:
            url_target("http://h/mcp", bearer=token)
        assert "SECRET" not in str(caught.value) and "Evil" not in str(caught.value)


def test_the_cli_strips_a_bearer_read_from_a_crlf_file() -> None:
    """Through the CLI's own flag parsing: the stripped token is what goes into the request."""
    url = f"http://127.0.0.1:{free_port()}/mcp"
    run = run_cli("tasks", "capabilities", "--url", url, env=clean_env(TASKSCOPE_BEARER="tk-CR1\r"))
    assert run.code == 1 and run.error["code"] == "CONNECTION_FAILED"
    assert "tk-CR1" not in run.stderr


# -- user:password in the URL -------------------------------------------------------------------


def test_url_userinfo_becomes_a_basic_header_and_leaves_url_and_label() -> None:
    target = url_target("http://al%40ce:p%3Aw%2Fd@h:8/mcp?x=1")
    pair = base64.b64encode(b"al@ce:p:w/d").decode()
    assert (target.url, target.label) == ("http://h:8/mcp?x=1", "http://h:8/mcp?x=1")
    assert target.headers == {"Authorization": f"Basic {pair}"}
    assert url_target("http://bob@h/mcp").headers == {
        "Authorization": "Basic " + base64.b64encode(b"bob:").decode()
    }
    assert without_userinfo("https://u:p@x@h/p@q") == "https://h/p@q"
    with pytest.raises(TargetError) as caught:
        url_target("ftp://u:SECRET@h/mcp")
    assert "SECRET" not in str(caught.value)


def test_url_userinfo_with_other_credentials_is_refused() -> None:
    with pytest.raises(TargetError, match="both give credentials"):
        url_target("http://u:p@h/mcp", bearer="tok-1")
    with pytest.raises(TargetError, match="both give credentials"):
        url_target("http://u:p@h/mcp", ["Authorization: Token x"])
    with pytest.raises(TargetError, match="not both"):
        url_target("http://h/mcp", ["authorization: Token x"], "tok-1")


def test_a_basic_credential_is_redacted_in_every_part() -> None:
    target = url_target("http://alice:PA55WORD@h/mcp")
    redactor = Redactor.build(headers=target.headers)
    encoded = base64.b64encode(b"alice:PA55WORD").decode()
    shown = redactor.text(
        f"got Basic {encoded}; {encoded}; alice:PA55WORD; {json.dumps('PA55WORD')}"
    )
    assert "PA55" not in shown and encoded not in shown
    assert redactor.headers(target.headers) == {"Authorization": REDACTED}


# -- the redactor, over every echoed form -------------------------------------------------------

FILLER = "XYZ "
"""What surrounds a secret in the generated text: characters no secret and no marker contain."""
SECRET_TEXT = st.text(
    st.characters(
        blacklist_categories=("Cs",), blacklist_characters=set(REDACTED + FILLER + "\x00")
    ),
    min_size=4,
    max_size=16,
).filter(lambda text: text == text.strip())
ENCODINGS: dict[str, Callable[[str], str]] = {
    "as sent": lambda s: s,
    "read with a trailing CR": lambda s: s + "\r",
    "JSON-escaped": lambda s: json.dumps(s),
    "JSON-escaped, non-ASCII kept": lambda s: json.dumps(s, ensure_ascii=False),
    "JSON with / escaped": lambda s: json.dumps(s).replace("/", "\\/"),
    "inside a JSON document": lambda s: json.dumps({"auth": f"Bearer {s}"}),
    "repr": repr,
    "repr inside a longer text": lambda s: repr(f"'\" {s}"),
    "bytes repr (h11, httpx)": lambda s: httpx_message(f"Bearer {s}\r"),
    "percent-encoded": lambda s: quote(s, safe=""),
    "percent-encoded, lower-case hex": lambda s: re.sub("%..", lambda m: m[0].lower(), quote(s)),
    "percent-encoded, / kept": quote,
    "form-encoded": quote_plus,
    "encodeURIComponent": lambda s: quote(s, safe="!~*'()"),
}


def httpx_message(value: str) -> str:
    """How httpx (h11) reports a header value it refuses: the value's bytes, `repr`-quoted."""
    return f"Illegal header value {value.encode()!r}"


def hidden_everywhere(redactor: Redactor, secret: str, prefix: str, suffix: str) -> None:
    for name, encode in ENCODINGS.items():
        shown = redactor.text(prefix + encode(secret) + suffix)
        assert REDACTED in shown, name
        for form in {secret, encode(secret).strip()}:
            assert form not in shown, f"{name}: {shown!r}"


@given(SECRET_TEXT, st.text(FILLER, max_size=6), st.text(FILLER, max_size=6))
def test_a_secret_is_hidden_in_every_form_it_is_echoed_in(
    secret: str, prefix: str, suffix: str
) -> None:
    for redactor in (
        Redactor.build(secrets=[secret]),
        Redactor.build(secrets=[f"{secret}\r\n"]),
        Redactor.build(["x-key"], headers={"X-Key": secret}),
        Redactor.build(headers={"Authorization": f"Bearer {secret}\r"}),
    ):
        hidden_everywhere(redactor, secret, prefix, suffix)


@given(SECRET_TEXT.filter(lambda user: ":" not in user), SECRET_TEXT)
def test_every_part_of_a_basic_credential_is_hidden(user: str, password: str) -> None:
    pair = f"{user}:{password}"
    encoded = base64.b64encode(pair.encode()).decode()
    redactor = Redactor.build(headers={"Authorization": f"Basic {encoded}"})
    for secret in (pair, password, encoded):
        hidden_everywhere(redactor, secret, "", "")
