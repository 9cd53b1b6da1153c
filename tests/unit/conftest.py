"""Fixtures shared by the unit tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A column cache of the test's own (STEPTRACE_CACHE_DIR), not the run's shared one."""
    root = tmp_path / "cache"
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(root))
    return root
