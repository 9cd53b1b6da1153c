"""Shared test setup: snapshots in top-level `snapshots/<module>/`, and a
notes data folder under tmp_path for tests that must not touch the home folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from syrupy.location import PyTestLocation

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"


class TopLevelSVGExtension(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    """The plugin's SVG snapshots, kept in `snapshots/<test module>/`."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOTS / test_location.basename)


@pytest.fixture(autouse=True)
def _snapshots_at_top_level(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`snap_compare` picks the extension up by name when the test asks for it."""
    monkeypatch.setattr(
        pytest_textual_snapshot, "SVGImageExtension", TopLevelSVGExtension
    )
    yield


@pytest.fixture
def isolated_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Notes fall back to a folder under the test's tmp_path, never to ~."""
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(tmp_path / "steptrace-data"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return tmp_path / "steptrace-data"
