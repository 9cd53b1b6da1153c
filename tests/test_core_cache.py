"""The column cache reopens a trace with the same figures, and misses when the file changes."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from tests.trace_builders import metadata, training_step_events, write_trace
from tui.core import cache
from tui.core.analysis import Analysis
from tui.core.load import load_trace
from tui.core.report import gaps_dict, summary_dict


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(root))
    return root


def test_reopened_trace_gives_identical_figures(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_trace(
        tmp_path / "t.json",
        metadata() + training_step_events(1, 0) + training_step_events(2, 1000),
    )
    parsed = load_trace(path, cache="on")
    reopened = cache.load(path)
    assert reopened is not None
    assert isinstance(reopened.start_ns, np.memmap)
    for column in (
        "start_ns",
        "duration_ns",
        "track",
        "name_id",
        "kind",
        "correlation",
        "external_id",
    ):
        assert np.array_equal(getattr(parsed, column), getattr(reopened, column)), (
            column
        )
    assert reopened.event_args(0) == parsed.event_args(0)
    first, second = summary_dict(parsed), summary_dict(reopened)
    assert first == second
    assert gaps_dict(parsed, Analysis(parsed)) == gaps_dict(
        reopened, Analysis(reopened)
    )
    # load_trace takes the cached entry.
    assert isinstance(load_trace(path, cache="auto").start_ns, np.memmap)


def test_a_changed_file_misses(tmp_path: Path, cache_dir: Path) -> None:
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    load_trace(path, cache="on")
    write_trace(
        path, metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    )
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache.load(path) is None
    assert len(Analysis(load_trace(path, cache="auto")).steps) == 2


def test_unwritable_cache_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(blocker / "cache"))
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    assert load_trace(path, cache="on").event_count == 14


def test_off_by_default_and_by_environment(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    load_trace(path)
    assert not cache_dir.exists()
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    load_trace(path, cache="on")
    assert not cache_dir.exists()
