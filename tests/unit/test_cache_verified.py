"""A cache entry's files are CRC-checked once: a reopen reads no file whole to
check it again, yet a file written since its check is checked (and refused)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import training_steps, write_trace
from tui.core.base.vocab import CacheUse
from tui.core.ingest import cache, cache_files, cache_verified
from tui.core.ingest.load import load_trace


@pytest.fixture
def cache_dir(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cache_verified, "SETTLED_NS", 0)  # no 2 s wait here
    return cache_dir


@pytest.fixture
def trace_path(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "t.json", training_steps(3))


@pytest.fixture
def checked_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every buffer the cache computes a CRC of."""
    sizes: list[int] = []
    real = cache_files.crc32

    def counted(data: Any, value: int = 0) -> int:
        sizes.append(len(memoryview(data).cast("B")))
        return real(data, value)

    monkeypatch.setattr(cache, "crc32", counted)
    return sizes


def test_a_checked_entry_is_not_read_whole_again(
    cache_dir: Path, trace_path: Path, checked_sizes: list[int]
) -> None:
    written = load_trace(trace_path, cache=CacheUse.ON)
    first = load_trace(
        trace_path, cache=CacheUse.AUTO
    )  # checks every file, stamps them
    assert cache.is_mapped(first.start_ns)
    checked_sizes.clear()
    again = load_trace(trace_path, cache=CacheUse.AUTO)
    assert cache.is_mapped(again.start_ns)
    (tables,) = cache_dir.glob("*/tables.json")
    assert checked_sizes == [tables.stat().st_size]  # only the small tables file
    assert again.start_ns.tolist() == written.start_ns.tolist()
    assert bytes(again.args_blob) == bytes(written.args_blob)


def test_a_file_written_after_its_check_is_checked_again(
    cache_dir: Path, trace_path: Path
) -> None:
    written = load_trace(trace_path, cache=CacheUse.ON)
    load_trace(trace_path, cache=CacheUse.AUTO)
    assert list(cache_dir.glob("*/verified.json"))
    time.sleep(0.05)  # past the change time's clock tick
    (column,) = cache_dir.glob("*/duration_ns.npy")
    with column.open("r+b") as handle:  # the same size, other bytes
        handle.seek(128)
        handle.write(b"\xff" * 16)
    again = load_trace(trace_path, cache=CacheUse.AUTO)
    assert not cache.is_mapped(again.start_ns)
    assert any("column cache entry" in warning for warning in again.warnings)
    assert again.duration_ns.tolist() == written.duration_ns.tolist()


def test_a_fresh_file_is_not_stamped(
    tmp_path: Path, trace_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "cache"))
    load_trace(trace_path, cache=CacheUse.ON)
    load_trace(trace_path, cache=CacheUse.AUTO)  # written a moment ago: not settled
    assert not list((tmp_path / "cache").glob("*/verified.json"))
