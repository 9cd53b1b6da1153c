"""The collector never pulls in the explorer (textual, tui); compare and the CLI plumbing never pull in torch."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import collector

REPO = Path(__file__).resolve().parents[2]
MODULES = [
    "collector",
    *(f"collector.{info.name}" for info in pkgutil.iter_modules(collector.__path__)),
]
TORCH_FREE = [
    "collector",
    "collector.compare",
    "collector.errors",
    "collector.labels",
    "collector.launch",
    "collector.paths",
    "collector.schema",
    "collector.stats",
    "collector.tracefile",
    "collector.environment",
    "tui.commands.capture",
    "tui.commands.bench",
    "tui.commands.compare",
]


def imported_after(modules: list[str]) -> set[str]:
    code = "import importlib, sys\nfor name in sys.argv[1:]: importlib.import_module(name)\nprint('\\n'.join(sys.modules))\n"
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [sys.executable, "-c", code, *modules],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=True,
    )
    return set(completed.stdout.split())


def test_every_collector_module_is_listed() -> None:
    assert {
        "collector.capture_api",
        "collector.bench_api",
        "collector.demo",
        "collector.zerocode",
    } <= set(MODULES)


def test_collector_never_imports_textual_or_tui() -> None:
    pytest.importorskip("torch")
    loaded = imported_after(MODULES)
    assert not {
        name for name in loaded if name == "textual" or name.startswith("textual.")
    }
    assert not {name for name in loaded if name == "tui" or name.startswith("tui.")}


def test_torch_free_modules_do_not_import_torch() -> None:
    loaded = imported_after(TORCH_FREE)
    assert "torch" not in loaded
    assert "textual" not in loaded
