"""Files only the user can read, in a folder only the user can write: where credentials are kept.

The folder is created 0700 and checked on every use (the user's own, writable by nobody else);
everything in it is reached through the opened folder, never through a symbolic link, so a folder
or a link planted by another user cannot redirect a read or a write. A file is written whole to
a fresh temporary name (`O_EXCL | O_NOFOLLOW`) and renamed over the old one.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

FileSignature = tuple[int, int, int, int]
"""(device, inode, mtime in ns, size) of a file as read: it changed when this did."""
_NO_FOLLOW = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class Untrusted(Exception):
    """A folder or file that must not be used; the text says why and how to put it right."""


@contextlib.contextmanager
def private_folder(path: Path) -> Iterator[int]:
    """The folder at `path` (created 0700 when missing), opened without following a symbolic link
    once it is checked to be the user's own and writable by nobody else; raises `Untrusted`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
        folder = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _NO_FOLLOW)
    except OSError as exc:
        raise Untrusted(
            f"the credential folder {path} cannot be used ({exc.strerror or exc}): it must be a "
            "folder (not a symbolic link) that taskscope can create; remove whatever is there"
        ) from None
    try:
        _check_folder(os.fstat(folder), path)
        yield folder
    finally:
        os.close(folder)


def _check_folder(found: os.stat_result, path: Path) -> None:
    me = os.geteuid()
    if found.st_uid != me:
        raise Untrusted(
            f"the credential folder {path} belongs to user {found.st_uid}, not to you (user "
            f"{me}); remove it, or make it yours and private: chown {me} {path} && chmod 700 "
            f"{path}"
        )
    mode = stat.S_IMODE(found.st_mode)
    if mode & 0o022:
        raise Untrusted(
            f"the credential folder {path} can be written by others (mode {mode:04o}); make it "
            f"private: chmod 700 {path}"
        )


def read_private(
    folder: int, name: str, max_bytes: int, cached: FileSignature | None
) -> tuple[FileSignature, bytes | None] | None:
    """The file `name` of `folder`: its signature, and its bytes unless the signature is `cached`
    (None: not read again) or it holds more than `max_bytes` (None too); None when there is no
    such file. Raises `Untrusted` for a symbolic link, something else than a file, or a file that
    is not the user's own or that others may read."""
    try:
        handle = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _NO_FOLLOW, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Untrusted(f"it cannot be opened as a file ({exc.strerror or exc})") from None
    with os.fdopen(handle, "rb") as file:
        found = os.fstat(file.fileno())
        _check_file(found)
        signature = (found.st_dev, found.st_ino, found.st_mtime_ns, found.st_size)
        if signature == cached:
            return signature, None
        raw = file.read(max_bytes + 1)
    return signature, raw if len(raw) <= max_bytes else None


def _check_file(found: os.stat_result) -> None:
    if not stat.S_ISREG(found.st_mode):
        raise Untrusted("it is not a regular file")
    me = os.geteuid()
    if found.st_uid != me:
        raise Untrusted(f"it belongs to user {found.st_uid}, not to you (user {me})")
    mode = stat.S_IMODE(found.st_mode)
    if mode & 0o077:
        raise Untrusted(f"others may read or change it (mode {mode:04o})")


def write_private(folder: int, name: str, data: bytes) -> None:
    """Replace the file `name` of `folder` with `data`, readable by the user alone (0600): written
    to a new temporary file, then renamed over it (a symbolic link there is replaced, never
    followed)."""
    import secrets  # with hmac and random: only when a credential is written

    temporary = f"{name}.{os.getpid()}.{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW
    handle = os.open(temporary, flags, 0o600, dir_fd=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            os.fchmod(file.fileno(), 0o600)
            file.write(data)
        os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise


def remove_private(folder: int, name: str) -> bool:
    """Delete the file (or link) `name` of `folder`; whether there was one."""
    try:
        os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        return False
    return True
