"""The floors of ARCHITECTURE.md hold: `lint-imports` keeps every contract of
`[tool.importlinter]` in pyproject.toml, the contracts name every floor, the
tool really fails on a broken contract, and no module of `tui` sits in an
import cycle (counting imports made only for type checking: a dependency
drawn for the type checker is still a dependency of the design)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import grimp  # import-linter's graph, installed with it (the dev extra)
import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# ARCHITECTURE.md's table, top floor first; `a | b` share a floor and
# import nothing of each other.
TUI_FLOORS = [
    "cli",
    "commands",
    "app | serve",
    "view",
    "report",
    "notes | scrub",
    "core",
]
APP_FLOORS = ["app", "screens", "dialogs", "widgets", "messages"]
CORE_FLOORS = [
    "opening | results",
    "diff | runs",
    "findings",
    "figures | ingest",
    "model",
    "base",
]


def _lint_imports(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Runs the venv's `lint-imports` at the repository root, caching nothing."""
    assert LINT_IMPORTS.exists(), (
        f"lint-imports is not installed next to {sys.executable}: "
        "install the dev extra (pip install -e '.[dev]')"
    )
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _contracts() -> dict[str, dict[str, Any]]:
    """The contracts of pyproject.toml by id."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return {contract["id"]: contract for contract in contracts}


def test_every_contract_is_kept() -> None:
    done = _lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_contracts_name_every_floor() -> None:
    contracts = _contracts()
    assert contracts["tui-floors"]["layers"] == TUI_FLOORS
    assert contracts["core-floors"]["layers"] == CORE_FLOORS
    assert contracts["app-floors"]["layers"] == APP_FLOORS
    assert contracts["tui-floors"]["exhaustive"] is True
    assert contracts["core-floors"]["exhaustive"] is True
    forbidden = {
        (source, target)
        for contract in contracts.values()
        if contract["type"] == "forbidden"
        for source in contract["source_modules"]
        for target in contract["forbidden_modules"]
    }
    assert {
        ("tui.core", "tui.notes"),
        ("tui.core", "tui.report"),
        ("tui.core", "tui.view"),
        ("tui.core", "tui.app"),
        ("tui.core", "tui.commands"),
        ("tui.view", "textual"),
        ("tui.app", "tui.commands"),
        ("tui.app.widgets", "tui.app.screens"),
        ("tui.notes", "tui.app"),
        ("tui.scrub", "tui.app"),
        ("tui", "torch"),
        ("collector", "tui"),
        ("collector", "textual"),
    } <= forbidden


def test_a_broken_contract_fails(tmp_path: Path) -> None:
    """The tool sees this code's imports: a contract the app cannot keep
    (it draws with textual and reads the core) comes out broken."""
    config = tmp_path / "broken.toml"
    config.write_text(
        "[tool.importlinter]\n"
        'root_packages = ["tui"]\n'
        "include_external_packages = true\n"
        "[[tool.importlinter.contracts]]\n"
        'name = "the app imports neither the core nor textual"\n'
        'type = "forbidden"\n'
        'source_modules = ["tui.app"]\n'
        'forbidden_modules = ["tui.core", "textual"]\n',
        encoding="utf-8",
    )
    done = _lint_imports("--config", str(config))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "BROKEN" in done.stdout
    assert "tui.app" in done.stdout and "tui.core" in done.stdout


def _cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(imports[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return found


def test_cycles_are_found() -> None:
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(imports) == [["a", "b", "c"]]


def test_no_module_of_tui_is_in_an_import_cycle() -> None:
    """Module by module, a package's `__init__` included (import-linter's
    acyclic_siblings contract compares siblings only)."""
    graph = grimp.build_graph("tui", cache_dir=None)
    imports = {
        module: set(graph.find_modules_directly_imported_by(module))
        for module in graph.modules
    }
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(imports)))
    cycles = _cycles(imports)
    assert not cycles, "import cycles:\n" + "\n".join(map(" ".join, cycles))
