"""The loader keeps the `[memory]` events of a profile_memory capture as columns:
equal to a raw JSON parse, the same on the sequential and parallel paths, and
kept by the column cache."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from tests.builders.torch_captures import capture_training
from tui.core.base.vocab import CacheUse
from tui.core.ingest import cache as column_cache
from tui.core.ingest import load as load_module
from tui.core.ingest.assemble.assembler import build_trace
from tui.core.ingest.decode.document import decode_trace
from tui.core.ingest.load import load_trace
from tui.core.ingest.parallel import driver as parallel
from tui.core.ingest.source import read_trace_bytes
from tui.core.model.trace import MemoryColumns, Trace

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("memory") / "capture.json"
    capture_training(path, profile_memory=True)
    return path


def _same(got: MemoryColumns, want: MemoryColumns) -> None:
    for column in MemoryColumns.COLUMNS:
        np.testing.assert_array_equal(
            getattr(got, column), getattr(want, column), err_msg=column
        )
        assert getattr(got, column).dtype == getattr(want, column).dtype, column


def _sequential(path: Path) -> Trace:
    raw = read_trace_bytes(path)
    return build_trace(
        decode_trace(raw.data, str(path)),
        path,
        file_size=raw.file_size,
        compressed=raw.compressed,
        read_warnings=raw.warnings,
    )


def test_columns_match_the_raw_events(capture: Path) -> None:
    document = json.loads(capture.read_text(), parse_float=Decimal)
    events = document["traceEvents"]
    memory = [e for e in events if e.get("ph") == "i" and e.get("name") == "[memory]"]
    assert memory, "profile_memory wrote no [memory] event"
    origin = min(int(Decimal(e["ts"]) * 1000) for e in events if e.get("ph") == "X")
    expected = sorted(
        (
            int(Decimal(e["ts"]) * 1000) - origin,
            e["args"]["Bytes"],
            e["args"]["Total Allocated"],
            e["args"]["Total Reserved"],
            e["args"]["Device Type"],
            e["args"]["Device Id"],
        )
        for e in memory
    )
    trace = load_trace(capture)
    columns = trace.memory
    ours = sorted(
        zip(
            columns.time_ns.tolist(),
            columns.bytes.tolist(),
            columns.total_allocated.tolist(),
            columns.total_reserved.tolist(),
            columns.device_type.tolist(),
            columns.device_id.tolist(),
            strict=True,
        )
    )
    assert ours == expected
    assert (np.diff(columns.time_ns) >= 0).all()
    assert trace.instant_count >= len(memory)


def test_parallel_and_sequential_paths_keep_the_same_columns(
    capture: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(load_module, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "RANGE_STEP_BYTES", 4096)
    monkeypatch.setenv("STEPTRACE_SCRATCH_DIR", str(tmp_path))
    raw = read_trace_bytes(capture)
    for workers in (1, 2):
        got = parallel.load_parallel(
            capture,
            workers,
            data=None,
            file_size=raw.file_size,
            compressed=raw.compressed,
            read_warnings=raw.warnings,
        )
        assert got is not None, "the parallel path gave the file back"
        _same(got.memory, _sequential(capture).memory)
    assert len(_sequential(capture).memory) > 0


def test_the_column_cache_keeps_them(
    capture: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STEPTRACE_NO_CACHE", raising=False)
    fresh = load_trace(capture, cache=CacheUse.ON)
    cached = column_cache.load(capture)
    assert cached is not None
    _same(cached.memory, fresh.memory)
    assert len(cached.memory) == len(fresh.memory) > 0


def test_a_trace_without_memory_events_has_empty_columns(shared_traces: Path) -> None:
    trace = load_trace(
        shared_traces / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    )
    assert len(trace.memory) == 0 and trace.instant_count > 0
