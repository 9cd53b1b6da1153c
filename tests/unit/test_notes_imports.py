"""The notes code is headless: importing it never pulls in textual or torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODULES = [
    "tui.notes",
    "tui.notes.model",
    "tui.notes.store",
    "tui.notes.paths",
    "tui.notes.disk",
    "tui.notes.merge",
    "tui.notes.hashing",
    "tui.report.notes",
    "tui.commands.notes",
    "tui.commands.notes_run",
]


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_without_textual_or_torch(module: str) -> None:
    code = (
        "import importlib, sys\n"
        f"importlib.import_module({module!r})\n"
        "heavy = sorted(m for m in ('textual', 'torch') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""
