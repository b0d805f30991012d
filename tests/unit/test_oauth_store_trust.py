"""The credential store against what another user could plant or a server could say: a folder
or file that is not the user's own, a symbolic link in place of the file or at a temporary name,
absurd expiries, and an access token no HTTP header can carry."""

from __future__ import annotations

import json
import math
import os
import stat
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from app.cli.oauth import status_document
from app.engine.oauth.providers import restore_expiry
from app.engine.oauth.store import (
    MAX_TOKEN_LIFE_S,
    MIN_TOKEN_LIFE_S,
    CredentialStore,
    UnsendableToken,
)
from tests.unit.test_server_facts import rows_of

SERVER = "https://mcp.example/mcp"
OTHER_USER = 65534
"""`nobody`: the owner of what "another user" planted."""
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's files needs root")

TOKENS = OAuthToken(access_token="access-1f2e3d", refresh_token="refresh-4c5b6a", expires_in=60)
CLIENT = OAuthClientInformationFull(
    client_id="client-1",
    client_secret="client-secret-9a8b",
    redirect_uris=["http://127.0.0.1:5000/callback"],  # type: ignore[list-item]
)


def written(store: CredentialStore, document: dict[str, Any], mode: int = 0o600) -> None:
    """Put `document` in the store's file (as a test, not through the store)."""
    store.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    store.path.write_text(json.dumps({"server": SERVER, **document}))
    store.path.chmod(mode)


SIGNED_IN = {"tokens": TOKENS.model_dump(mode="json"), "saved_at": 1.0}


@as_root
async def test_a_folder_of_another_user_is_not_written_through_a_planted_link(
    tmp_path: Path,
) -> None:
    """The other user's folder is open to all and holds a link, at the name of the store's
    temporary file, to a file of the victim's: the victim's file stays as it was and nothing
    is written in that folder; the credentials last the run, and the problem names the fix."""
    folder = tmp_path / "oauth"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    os.chown(folder, OTHER_USER, OTHER_USER)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    store = CredentialStore(SERVER, folder)
    planted = store.path.with_suffix(f".{os.getpid()}.tmp")
    planted.symlink_to(victim)

    await store.set_client_info(CLIENT)
    await store.set_tokens(TOKENS)

    assert victim.read_text() == "precious"
    assert sorted(folder.iterdir()) == [planted]
    kept = await store.get_tokens()
    assert kept is not None and kept.access_token == TOKENS.access_token
    status = store.status()
    assert status is not None and status.problem is not None
    assert f"belongs to user {OTHER_USER}, not to you" in status.problem
    assert f"chown {os.geteuid()} {folder} && chmod 700 {folder}" in status.problem
    assert "kept for this run only" in status.problem
    assert status_document(store)["problem"] == status.problem
    assert store.remove()  # the run's credentials go; the folder is left alone
    assert store.problem is not None and "nothing was removed from it" in store.problem
    assert planted.is_symlink() and victim.read_text() == "precious"


async def test_a_folder_others_can_write_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "oauth"
    folder.mkdir()
    folder.chmod(0o777)
    store = CredentialStore(SERVER, folder)
    await store.set_tokens(TOKENS)
    assert not any(folder.iterdir())
    assert store.problem is not None
    assert f"can be written by others (mode 0777); make it private: chmod 700 {folder}" in (
        store.problem
    )


async def test_a_link_in_place_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "oauth").symlink_to(elsewhere)
    store = CredentialStore(SERVER, tmp_path / "oauth")
    await store.set_tokens(TOKENS)
    assert not any(elsewhere.iterdir())
    assert store.problem is not None and "not a symbolic link" in store.problem


@as_root
async def test_a_credential_file_of_another_user_is_ignored_and_replaced(tmp_path: Path) -> None:
    """A file planted in the user's own folder by another user is not read (its token is never
    sent), the problem says so, and the next sign-in replaces it with the user's own."""
    store = CredentialStore(SERVER, tmp_path / "oauth")
    written(store, SIGNED_IN)
    os.chown(store.path, OTHER_USER, OTHER_USER)
    assert await store.get_tokens() is None
    status = store.status()
    assert status is not None and not status.has_access_token
    assert status.problem is not None and status.problem.startswith(
        f"ignored the credential file {store.path}: it belongs to user {OTHER_USER}"
    )
    await store.set_tokens(TOKENS)
    assert store.path.stat().st_uid == os.geteuid() and store.problem is None
    assert await store.get_tokens() is not None


async def test_a_credential_file_others_can_read_is_ignored(tmp_path: Path) -> None:
    store = CredentialStore(SERVER, tmp_path / "oauth")
    written(store, SIGNED_IN, mode=0o644)
    assert await store.get_tokens() is None
    assert store.problem is not None and "others may read or change it (mode 0644)" in (
        store.problem
    )


async def test_a_link_in_place_of_the_credential_file_is_neither_read_nor_written_through(
    tmp_path: Path,
) -> None:
    store = CredentialStore(SERVER, tmp_path / "oauth")
    target = tmp_path / "target.json"
    target.write_text(json.dumps({"server": SERVER, **SIGNED_IN}))
    target.chmod(0o600)
    store.path.parent.mkdir(mode=0o700)
    store.path.symlink_to(target)
    assert await store.get_tokens() is None
    assert store.problem is not None and "ignored the credential file" in store.problem
    await store.set_client_info(CLIENT)
    assert json.loads(target.read_text())["tokens"]["access_token"] == TOKENS.access_token
    assert not store.path.is_symlink()
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


# -- what the server says about its tokens -----------------------------------------------------


@pytest.mark.parametrize(
    ("expires_in", "kept"),
    [(10**20, MAX_TOKEN_LIFE_S), (-5, MIN_TOKEN_LIFE_S), (0, MIN_TOKEN_LIFE_S), (3600, 3600)],
)
async def test_a_token_life_is_kept_within_reason(
    tmp_path: Path, expires_in: int, kept: int
) -> None:
    store = CredentialStore(SERVER, tmp_path / "oauth")
    await store.set_tokens(OAuthToken(access_token="access-7e6d", expires_in=expires_in))
    document = json.loads(store.path.read_text())
    assert document["tokens"]["expires_in"] == kept
    assert store.expires_at() == document["saved_at"] + kept


@pytest.mark.parametrize(
    "stored",
    [
        {"expires_in": 1e20, "saved_at": 1.0},
        {"expires_in": 10**400, "saved_at": 1.0},
        {"expires_in": 60, "saved_at": 1e300},
        {"expires_in": math.inf, "saved_at": math.inf},
        {"expires_in": math.nan, "saved_at": -math.inf},
        {"expires_in": "soon", "saved_at": "then"},
    ],
)
async def test_absurd_times_in_a_file_show_safely(tmp_path: Path, stored: dict[str, Any]) -> None:
    """A file an older taskscope (or a hand) wrote with such times: `oauth status`, the server
    pane and the restored expiry all still work, every time within a year from now."""
    store = CredentialStore(SERVER, tmp_path / "oauth")
    tokens = {"access_token": "access-5f4e", "expires_in": stored["expires_in"]}
    written(store, {"tokens": tokens, "saved_at": stored["saved_at"], "client": {}})
    document = status_document(store)
    assert document["signedIn"] is True
    status = store.status()
    assert status is not None
    shown = rows_of(sign_in=status, signs_in=True, now=0.0)["Sign-in"]
    if status.expires_at is not None:
        assert status.expires_at <= time.time() + MAX_TOKEN_LIFE_S
        assert "expiresAt" in document and "token expires in" in shown
    provider = SimpleNamespace(context=SimpleNamespace(current_tokens=TOKENS, token_expiry_time=0))
    restore_expiry(provider, store)  # type: ignore[arg-type]
    assert provider.context.token_expiry_time == status.expires_at


@pytest.mark.parametrize("token", ["access\r\nX-Injected: yes", "nul\x00byte", "lone\ud800"])
async def test_a_token_no_header_can_carry_is_not_stored(tmp_path: Path, token: str) -> None:
    store = CredentialStore(SERVER, tmp_path / "oauth")
    with pytest.raises(UnsendableToken, match="cannot be sent in an HTTP header"):
        await store.set_tokens(OAuthToken(access_token=token, refresh_token="refresh-3c2b"))
    assert store.status() is None
    written(store, {"tokens": {"access_token": token}, "saved_at": 1.0})
    assert await store.get_tokens() is None
