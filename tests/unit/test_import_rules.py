"""The layering holds: the core (and notes, scrub, view) import no textual and no
torch; the CLI, commands and app import no torch. Each check runs in a fresh
interpreter so modules imported by other tests cannot hide a violation."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _modules(package: str) -> list[str]:
    """Every module under a package, found from its files (nothing imported)."""
    folder = ROOT.joinpath(*package.split("."))
    if not folder.is_dir():
        return []
    names = [package]
    for info in pkgutil.walk_packages([str(folder)], prefix=package + "."):
        names.append(info.name)
    return names


def _imported_after(modules: list[str]) -> set[str]:
    """Top-level packages in sys.modules after importing `modules` in a child."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return set(json.loads(output.strip().splitlines()[-1]))


HEADLESS = [
    name
    for package in ("tui.core", "tui.notes", "tui.scrub", "tui.view")
    for name in _modules(package)
]
FRONT = ["tui", "tui.cli", *_modules("tui.commands"), *_modules("tui.app")]


def test_headless_modules_found() -> None:
    assert "tui.core.findings.readings" in HEADLESS
    assert "tui.view.timeline_index" in HEADLESS and "tui.view.cells" in HEADLESS
    assert "tui.app.app" in FRONT and "tui.commands.open" in FRONT


@pytest.mark.parametrize("forbidden", ["textual", "torch"])
def test_headless_core_imports_no_ui_and_no_torch(forbidden: str) -> None:
    assert forbidden not in _imported_after(HEADLESS)


def test_cli_commands_and_app_import_no_torch() -> None:
    imported = _imported_after(FRONT)
    assert "torch" not in imported
    assert "textual" in imported  # the app modules really were imported
