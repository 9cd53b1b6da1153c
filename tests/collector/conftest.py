"""Captures shared by the collector's tests: taken once a session, read only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.compile_captures import capture_tiny_model


@pytest.fixture(scope="session")
def eager(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh CPU capture of the tiny model run eagerly, with Python stacks."""
    folder = tmp_path_factory.mktemp("eager")
    return capture_tiny_model(
        folder / "eager.json",
        compiled=False,
        with_stack=True,
        recompile_in_window=False,
    )
