"""No function or method in tui/ or collector/ runs past 80 lines.

A longer one is split into named stages, each doing one job; its length is
counted from its `def` (decorators left out) to its last line, docstring and
comments included.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tui", "collector")
MOST_LINES = 80


def long_functions(source: str, where: str) -> list[str]:
    """`where:line name (N lines)` for each function or method of `source` past MOST_LINES."""
    offenders = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MOST_LINES:
                offenders.append(f"{where}:{node.lineno} {node.name} ({length} lines)")
    return offenders


def _function(name: str, body_lines: int, indent: str = "") -> str:
    body = "".join(f"{indent}    x{line} = {line}\n" for line in range(body_lines))
    return f"{indent}def {name}() -> None:\n{body}"


def test_a_function_past_the_limit_is_named_with_its_length() -> None:
    source = (
        _function("short", MOST_LINES - 1)
        + "class Holder:\n"
        + _function("long_method", MOST_LINES, indent="    ")
    )
    assert long_functions(source, "m.py") == [
        f"m.py:{MOST_LINES + 2} long_method ({MOST_LINES + 1} lines)"
    ]


def test_a_function_at_the_limit_passes() -> None:
    assert long_functions(_function("at_limit", MOST_LINES - 1), "m.py") == []


def test_no_function_in_tui_or_collector_is_longer_than_the_limit() -> None:
    files = [path for package in PACKAGES for path in (ROOT / package).rglob("*.py")]
    assert files
    offenders = [
        offender
        for path in sorted(files)
        for offender in long_functions(
            path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))
        )
    ]
    assert not offenders, (
        f"functions longer than {MOST_LINES} lines (split them into named stages):\n"
        + "\n".join(offenders)
    )
