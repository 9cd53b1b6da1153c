"""Every test of this layer reads ../shared/traces: without it, each is skipped
with the reason the `shared_traces` fixture gives."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _needs_shared_traces(shared_traces: Path) -> Path:
    return shared_traces
