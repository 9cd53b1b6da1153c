"""Figures kept in a cache entry (the GPU idle split, the step split) read back
as the very figures computed from the columns, and never across a change of the
code that computes them or a damaged file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.builders.traces import training_steps, write_trace
from tui.core.base.vocab import CacheUse
from tui.core.figures.analysis import Analysis
from tui.core.figures.breakdown.idle import gpu_idle
from tui.core.figures.step_split import step_breakdown
from tui.core.ingest import cache
from tui.core.ingest.load import load_trace


@pytest.fixture
def trace_path(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "t.json", training_steps(4))


def _computed(path: Path) -> tuple[Any, Any]:
    """The figures computed from the columns by the functions themselves, no cache."""
    trace = load_trace(path)
    steps = Analysis(trace).steps
    return gpu_idle(trace, steps), step_breakdown(trace, steps)


def _kept_files(root: Path) -> list[str]:
    return sorted(path.name.split(".")[1] for path in root.glob("*/kept.*.bin"))


def test_a_reopened_trace_reads_its_figures_back(
    cache_dir: Path, trace_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _computed(trace_path)
    assert expected[0] is not None and expected[1] is not None
    first = Analysis(load_trace(trace_path, cache=CacheUse.ON))
    assert (first.gpu_idle, first.step_breakdown) == expected
    assert _kept_files(cache_dir) == ["gpu_idle", "step_breakdown", "steps"]

    def never(*_args: Any) -> Any:
        raise AssertionError("computed again")

    monkeypatch.setattr("tui.core.figures.breakdown.idle.gpu_idle", never)
    monkeypatch.setattr("tui.core.figures.step_split.step_breakdown", never)
    again = Analysis(load_trace(trace_path, cache=CacheUse.AUTO))
    assert cache.is_mapped(again.trace.start_ns)
    assert (again.gpu_idle, again.step_breakdown) == expected


def test_another_version_of_the_code_is_a_miss(
    cache_dir: Path, trace_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _computed(trace_path)
    _ = Analysis(load_trace(trace_path, cache=CacheUse.ON)).gpu_idle
    monkeypatch.setattr(cache, "figure_version", lambda roots: "another version")
    again = Analysis(load_trace(trace_path, cache=CacheUse.AUTO))
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return gpu_idle(*args)

    monkeypatch.setattr("tui.core.figures.breakdown.idle.gpu_idle", counted)
    assert again.gpu_idle == expected[0]
    assert calls == [1]
    # The older versions replaced: one file a figure.
    assert _kept_files(cache_dir) == ["gpu_idle", "steps"]


def test_a_damaged_kept_figure_is_computed_again(
    cache_dir: Path, trace_path: Path
) -> None:
    expected = _computed(trace_path)
    _ = Analysis(load_trace(trace_path, cache=CacheUse.ON)).step_breakdown
    (kept,) = cache_dir.glob("*/kept.step_breakdown.*.bin")
    written = kept.read_bytes()
    data = bytearray(written)
    data[len(data) // 2] ^= 0x55
    kept.write_bytes(bytes(data))
    again = Analysis(load_trace(trace_path, cache=CacheUse.AUTO))
    assert again.step_breakdown == expected[1]
    assert kept.read_bytes() == written  # the damaged file replaced


def test_a_trace_read_without_the_cache_keeps_nothing(
    cache_dir: Path, trace_path: Path
) -> None:
    analysis = Analysis(load_trace(trace_path))
    assert (analysis.gpu_idle, analysis.step_breakdown) == _computed(trace_path)
    assert _kept_files(cache_dir) == []


def test_the_operator_table_is_kept_and_read_back(
    cache_dir: Path, trace_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = Analysis(load_trace(trace_path)).op_table()
    first = Analysis(load_trace(trace_path, cache=CacheUse.ON)).op_table()

    def never(*_args: Any) -> Any:
        raise AssertionError("computed again")

    monkeypatch.setattr("tui.core.figures.analysis.build_op_table", never)
    again = Analysis(load_trace(trace_path, cache=CacheUse.AUTO)).op_table()
    for table in (first, again):
        assert table.names == plain.names
        for column in ("calls", "self_cpu_ns", "total_cpu_ns"):
            kept, computed = getattr(table, column), getattr(plain, column)
            assert kept.dtype == computed.dtype and kept.tolist() == computed.tolist()
        for column in ("self_gpu_ns", "total_gpu_ns"):
            kept, computed = getattr(table, column), getattr(plain, column)
            assert (kept is None) == (computed is None)
            assert kept is None or kept.tolist() == computed.tolist()


def test_graph_ids_read_back_whole() -> None:
    from tui.core.figures.launches import _full_ids, _sparse_ids

    ids = np.full(1000, -1, dtype=np.int64)
    ids[[3, 500, 999]] = [7, 2**40, 1]
    back = _full_ids(ids.size, _sparse_ids(ids))
    assert back.dtype == ids.dtype and back.tolist() == ids.tolist()
