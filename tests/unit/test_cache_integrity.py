"""The column cache never lies: a file read while written, edited in place, or a
damaged entry is a miss (re-read, replaced, one warning), never stale figures."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from tests.builders.traces import training_steps, write_trace
from tui.core.base.vocab import CacheUse, LoadPhase
from tui.core.figures.analysis import Analysis
from tui.core.ingest import cache, cache_files
from tui.core.ingest.load import LoadProgress, load_trace


def _figures(trace: Any) -> Any:
    """Every column and table a figure is computed from, and the steps."""
    columns = [
        getattr(trace, name).tolist()
        for name in ("start_ns", "duration_ns", "track", "name_id", "kind")
    ]
    steps = [(s.number, s.start_ns, s.duration_ns) for s in Analysis(trace).steps]
    return columns, trace.names, trace.tracks, trace.origin_ns, steps


def _cache_warnings(trace: Any) -> list[str]:
    return [w for w in trace.warnings if "column cache" in w]


# 1. The key is the file's as it was read.


def test_a_file_rewritten_while_it_is_read_is_not_cached(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_trace(tmp_path / "t.json", training_steps(1))
    finished = orjson.dumps({"schemaVersion": 1, "traceEvents": training_steps(3)})
    rewritten: list[bool] = []

    def rewrite_once(progress: LoadProgress) -> None:
        # The profiler (or rsync) writes the finished file while we read.
        if progress.phase is LoadPhase.READING and not rewritten:
            rewritten.append(True)
            path.write_bytes(finished)

    first = load_trace(path, cache=CacheUse.ON, progress=rewrite_once)
    assert rewritten and len(Analysis(first).steps) == 1
    assert cache.load(path) is None
    assert len(Analysis(load_trace(path, cache=CacheUse.ON)).steps) == 3
    assert len(Analysis(load_trace(path, cache=CacheUse.AUTO)).steps) == 3


@pytest.mark.parametrize("gz", [False, True])
def test_a_read_that_was_cut_off_is_never_cached(
    tmp_path: Path, cache_dir: Path, gz: bool
) -> None:
    whole = orjson.dumps({"schemaVersion": 1, "traceEvents": training_steps(3)})
    cut = whole[: len(whole) * 2 // 3]
    path = tmp_path / "t.json"
    path.write_bytes(gzip.compress(whole)[:-40] if gz else cut)
    trace = load_trace(path, cache=CacheUse.ON)
    assert any("cut off" in warning for warning in trace.warnings)
    assert cache.load(path) is None
    assert not any(cache_dir.glob("*/tables.json"))


# 2. The key catches an in-place edit that keeps size and modification time.


def test_an_in_place_edit_keeping_size_and_mtime_misses(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_trace(tmp_path / "t.json", training_steps(2))
    assert "ProfilerStep#2" in load_trace(path, cache=CacheUse.ON).names
    before = path.stat()
    data = path.read_bytes()
    assert data.count(b"ProfilerStep#2") == 1
    with path.open("r+b") as handle:  # edited in place, as `dd conv=notrunc` would
        handle.seek(data.index(b"ProfilerStep#2"))
        handle.write(b"ProfilerStep#7")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -r
    assert path.stat().st_size == before.st_size
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert cache.load(path) is None
    assert "ProfilerStep#7" in load_trace(path, cache=CacheUse.AUTO).names


def test_the_sampled_crc_of_a_big_file_reads_only_blocks(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    size = cache_files.SAMPLE_WHOLE_BYTES * 2
    path.write_bytes(b" " * size)
    key = cache.file_key(path)
    with path.open("r+b") as handle:  # the last block is always sampled
        handle.seek(size - 10)
        handle.write(b"x")
    assert cache.file_key(path)["sample_crc"] != key["sample_crc"]


def test_the_key_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "t.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        cache.file_key(fifo)  # returns at once: never blocks on the pipe


# 3. A damaged entry is a miss: re-read, replaced, one warning.


def _column(entry: Path, name: str) -> np.ndarray[Any, Any]:
    column: np.ndarray[Any, Any] = np.load(entry / name)
    return column


def _overwrite_column_bytes(entry: Path) -> None:
    path = entry / "duration_ns.npy"
    size = path.stat().st_size
    with path.open("r+b") as handle:  # header intact, 8,000 bytes (or all) after it
        handle.seek(128)
        handle.write(b"\xff" * min(8000, size - 128))


def _edit_tables(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def damage(entry: Path) -> None:
        tables = orjson.loads((entry / "tables.json").read_bytes())
        change(tables)
        (entry / "tables.json").write_bytes(orjson.dumps(tables))

    return damage


def _set_track_kind(tables: dict[str, Any]) -> None:
    tables["tracks"][0][3] = 99


def _short_rows(tables: dict[str, Any]) -> None:
    tables["tracks"] = [row[:5] for row in tables["tracks"]]


def _wrong_length(entry: Path) -> None:
    np.save(entry / "start_ns.npy", _column(entry, "start_ns.npy")[:-1])


def _wrong_dtype(entry: Path) -> None:
    np.save(entry / "track.npy", _column(entry, "track.npy").astype(np.int64))


def _no_checksums(entry: Path) -> None:
    (entry / "checksums.json").unlink()


def _short_args(entry: Path) -> None:
    (entry / "args.bin").write_bytes(b"{}")


DAMAGES: dict[str, Callable[[Path], None]] = {
    "column bytes overwritten": _overwrite_column_bytes,
    "tables.json without origin_ns": _edit_tables(lambda t: t.pop("origin_ns")),
    "a track kind of 99": _edit_tables(_set_track_kind),
    "short rows": _edit_tables(_short_rows),
    "a column of the wrong length": _wrong_length,
    "a column of the wrong dtype": _wrong_dtype,
    "args.bin changed": _short_args,
    "no checksums": _no_checksums,
}


@pytest.mark.parametrize("damage", list(DAMAGES), ids=list(DAMAGES))
def test_a_damaged_entry_is_re_read_and_replaced(
    tmp_path: Path, cache_dir: Path, damage: str
) -> None:
    path = write_trace(tmp_path / "t.json", training_steps(3))
    parsed = load_trace(path, cache=CacheUse.ON)
    (entry,) = (item for item in cache_dir.iterdir() if not item.name.startswith("."))
    DAMAGES[damage](entry)

    again = load_trace(
        path, cache=CacheUse.ON
    )  # never a traceback, never wrong numbers
    assert not cache.is_mapped(again.start_ns)
    assert _figures(again) == _figures(parsed)
    assert len(_cache_warnings(again)) == 1
    assert again.warnings[:-1] == parsed.warnings

    replaced = load_trace(path, cache=CacheUse.AUTO)
    assert cache.is_mapped(replaced.start_ns)
    assert _figures(replaced) == _figures(parsed)
    assert replaced.warnings == parsed.warnings


def test_any_file_of_an_entry_emptied_is_re_read_and_replaced(
    tmp_path: Path, cache_dir: Path
) -> None:
    """A file of 0 bytes (a full disk, a crash before the data) in place of any
    of an entry's files: one warning, the same figures, the entry rebuilt."""
    path = write_trace(tmp_path / "t.json", training_steps(3))
    parsed = load_trace(path, cache=CacheUse.ON)
    (entry,) = (item for item in cache_dir.iterdir() if not item.name.startswith("."))
    names = sorted(item.name for item in entry.iterdir() if item.is_file())
    assert "start_ns.npy" in names and len(names) > 20
    for name in names:
        (entry / name).write_bytes(b"")
        again = load_trace(path, cache=CacheUse.ON)
        assert _figures(again) == _figures(parsed), name
        assert len(_cache_warnings(again)) == 1, name
        replaced = load_trace(path, cache=CacheUse.AUTO)
        assert cache.is_mapped(replaced.start_ns), name
        (entry,) = (
            item for item in cache_dir.iterdir() if not item.name.startswith(".")
        )


def test_an_emptied_derived_column_is_computed_again(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_trace(tmp_path / "t.json", training_steps(2))
    load_trace(path, cache=CacheUse.ON)
    trace = cache.load(path)
    assert trace is not None
    assert cache.save_derived(trace, "probe", np.arange(trace.event_count))
    (stored,) = (item for item in cache_dir.glob("*/derived.probe.*.npy"))
    stored.write_bytes(b"")
    assert cache.load_derived(trace, "probe") is None
    assert not stored.exists()


def test_a_damaged_entry_is_removed_even_when_not_written_again(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_trace(tmp_path / "t.json", training_steps(2))
    load_trace(path, cache=CacheUse.ON)
    (entry,) = (item for item in cache_dir.iterdir() if not item.name.startswith("."))
    _overwrite_column_bytes(entry)
    assert len(_cache_warnings(load_trace(path, cache=CacheUse.AUTO))) == 1
    assert _cache_warnings(load_trace(path, cache=CacheUse.AUTO)) == []  # said once


def test_a_damaged_derived_column_is_computed_again(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_trace(tmp_path / "t.json", training_steps(2))
    load_trace(path, cache=CacheUse.ON)
    trace = cache.load(path)
    assert trace is not None
    column = np.arange(trace.event_count, dtype=np.int64)
    assert cache.save_derived(trace, "probe", column)
    loaded = cache.load_derived(trace, "probe")
    assert loaded is not None and np.array_equal(loaded, column)
    (stored,) = (item for item in cache_dir.glob("*/derived.probe.*.npy"))
    with stored.open("r+b") as handle:
        handle.seek(130)
        handle.write(b"\x7f")
    assert cache.load_derived(trace, "probe") is None
    assert not stored.exists()


# 4. A writer killed while it writes an entry leaves nothing for long.

_KILLED_WRITER = """
import os, signal, sys
import numpy as np
from tui.core.ingest import cache
from tui.core.ingest.load import load_trace

real_save = np.save
def save_then_die(path, array, *args, **kwargs):
    real_save(path, array, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)  # kill -9 with the entry half written
np.save = save_then_die
load_trace(sys.argv[1], cache="on")
"""


def test_a_killed_writers_staging_folder_is_removed_on_the_next_run(
    tmp_path: Path, cache_dir: Path
) -> None:

    path = write_trace(tmp_path / "t.json", training_steps(2))
    repo = Path(__file__).resolve().parents[2]
    environment = {**os.environ, "PYTHONPATH": str(repo)}
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, str(path)], env=environment, check=False
    )
    assert killed.returncode == -9
    left = [item for item in cache_dir.iterdir() if item.name != cache.CODE_MEMO]
    assert [item.name[:9] for item in left] == [".staging-"]
    load_trace(path, cache=CacheUse.ON)
    assert not [
        item
        for item in cache_dir.iterdir()
        if item.name.startswith(".") and item.name != cache.CODE_MEMO
    ]
    assert cache.is_mapped(load_trace(path, cache=CacheUse.AUTO).start_ns)


def test_a_live_writers_staging_folder_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    staging, lock = cache_files.stage(root)
    try:
        cache_files.remove_stale_staging(root)  # another run meanwhile
        assert staging.is_dir()
    finally:
        cache_files.release(staging, lock)
    fresh = root / ".staging-nolock"
    fresh.mkdir()  # a writer that has not taken its lock yet
    cache_files.remove_stale_staging(root)
    assert fresh.is_dir()
    old = time.time() - cache_files.STALE_AFTER_S - 60
    os.utime(fresh, (old, old))
    cache_files.remove_stale_staging(root)
    assert not fresh.exists()
