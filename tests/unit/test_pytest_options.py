"""The suite's own pytest setup: it runs without pytest-xdist (`-p no:xdist`),
and with -n it hands whole modules to a worker (`--dist loadfile`) unless
`--dist` names another mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A few quick tests of a module with no fixtures of its own.
FEW_TESTS = ["tests/unit/test_units.py", "-k", "test_durations_keep_four"]


def pytest_in_child(*options: str) -> subprocess.CompletedProcess[str]:
    """pytest in a child, in the checkout, free of this run's xdist settings."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("PYTEST_")
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            *options,
            *FEW_TESTS,
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_runs_without_xdist() -> None:
    result = pytest_in_child("-q", "-p", "no:xdist")
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "scheduling"),
    [
        (["-n", "1"], "LoadFileScheduling"),
        (["-n", "1", "--dist", "load"], "LoadScheduling"),
    ],
)
def test_workers_take_whole_modules_unless_told(
    options: list[str], scheduling: str
) -> None:
    result = pytest_in_child("-v", *options)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"scheduling tests via {scheduling}\n" in result.stdout
