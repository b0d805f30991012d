"""pyproject.toml tells the truth: each floor can be installed beside the packages that need it,
every third-party import is declared and every declaration imported, and the snapshot tests' exact
textual lives in the test extra, not in what users install.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("app", "widgets")
"""The packages the wheel ships; their imports are what a user's install must satisfy."""


@cache
def project() -> dict[str, Any]:
    table: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return table


def requirements(extra: str | None = None) -> dict[str, Requirement]:
    """The project's dependencies (or one extra's), by normalised name."""
    table = project()
    listed = table["dependencies"] if extra is None else table["optional-dependencies"][extra]
    return {canonicalize_name(req.name): req for req in map(Requirement, listed)}


def floor(requirement: Requirement) -> str | None:
    """The version a `>=` (or `==`) bound names: the oldest release the project claims to take."""
    bounds = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==")]
    return bounds[0] if bounds else None


def demands_on(name: str) -> list[tuple[str, Requirement]]:
    """What the installed releases of the declared dependencies require of `name` here.

    Only declared ones: textual and mcp are held to a minor series, so what they demand is a hard
    bound, while a package they pull in may be resolved older than the one installed.
    """
    found = []
    for dependency in requirements():
        dist = metadata.distribution(dependency)
        for text in dist.requires or ():
            req = Requirement(text)
            if canonicalize_name(req.name) != name:
                continue
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            found.append((dependency, req))
    return found


def shipped_imports() -> set[str]:
    """Top-level third-party modules imported by the shipped code (not under `if TYPE_CHECKING`)."""
    modules: set[str] = set()
    for package in SHIPPED:
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            typing_only = {
                id(inner)
                for node in ast.walk(tree)
                if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
                for inner in ast.walk(node)
            }
            for node in ast.walk(tree):
                if id(node) in typing_only:
                    continue
                if isinstance(node, ast.Import):
                    modules.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names and m not in SHIPPED}


def test_each_floor_is_allowed_by_every_installed_package_that_needs_it() -> None:
    # rich>=13 beside textual's rich>=14.2.0, pydantic>=2.7 beside mcp's >=2.12.0: unresolvable.
    problems = []
    for name, requirement in requirements().items():
        oldest = floor(requirement)
        assert oldest is not None, f"{name} has no floor"
        for needer, demand in demands_on(name):
            if not demand.specifier.contains(oldest, True):
                problems.append(f"{name}>={oldest}, but {needer} requires {demand}")
    assert problems == []


def test_every_third_party_import_is_declared_and_every_dependency_imported() -> None:
    by_module = metadata.packages_distributions()
    imported = {canonicalize_name(by_module[m][0]) for m in shipped_imports()}
    declared = set(requirements())
    assert imported - declared == set(), "imported but not declared"
    assert declared - imported == set(), "declared but never imported"


def test_users_get_a_textual_range_and_the_tests_the_exact_snapshot_version() -> None:
    runtime = requirements()["textual"]
    pinned = requirements("test").get("textual")
    assert pinned is not None, "the test extra pins textual for the snapshots"
    assert [spec.operator for spec in runtime.specifier] != ["=="]
    assert [spec.operator for spec in pinned.specifier] == ["=="]
    exact = floor(pinned)
    assert exact is not None and runtime.specifier.contains(exact)
    assert metadata.version("textual") == exact, "snapshots are rendered with the pinned textual"


def test_the_declared_mit_license_ships_with_its_text() -> None:
    assert project()["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the taskscope authors\n")
    assert "WITHOUT WARRANTY OF ANY KIND" in text
