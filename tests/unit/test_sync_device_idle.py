"""What syncs cost the device: the idle after each, cut at its step's end, the
union over threads per step, and a pageable upload that drained the stream
counted as a sync. Expectations are recomputed here from the built intervals
with plain sets of whole microseconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.builders.syncs import runtime
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.core.base.vocab import SyncKind
from tui.core.figures.analysis import Analysis
from tui.core.figures.sync_reading import SyncReading
from tui.core.figures.syncs import SYNC_KINDS
from tui.core.ingest.load import load_trace

OTHER_TID = 101


def _copy(name: str, ts: float, dur: float, corr: int) -> dict[str, Any]:
    return gpu(name, ts, dur, cat="gpu_memcpy", correlation=corr)


def _events() -> list[dict[str, Any]]:
    """Two steps of 1 ms (µs):

    - k1 20..100;
    - aten::to's cudaMemcpyAsync 200..290 of a pageable upload that runs
      250..280: the call returns after the copy: a sync, blocked 90, the
      device idle until k2 at 330 (40);
    - cudaMemcpyAsync 410..415 of a pageable upload run 450..480: the call
      returned before the copy ran: no sync;
    - a pinned upload's call 420..440 ending after its copy 425..430: no sync;
    - cudaStreamSynchronize 500..600 on the main thread and 520..620 on
      another, k3 at 700: idle 100 and 80, one 100 µs union;
    - cudaDeviceSynchronize 900..950, the next device work (k4) at 1100 in
      step 2: idle 50, cut at the step's end (1000).
    """
    return [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("ProfilerStep#2", 1000, 1000, cat="user_annotation"),
        runtime("cudaLaunchKernel", 10, 5, 1),
        gpu("k1", 20, 80, correlation=1),
        cpu("aten::to", 190, 110),
        runtime("cudaMemcpyAsync", 200, 90, 2),
        _copy("Memcpy HtoD (Pageable -> Device)", 250, 30, 2),
        runtime("cudaLaunchKernel", 320, 5, 3),
        gpu("k2", 330, 70, correlation=3),
        runtime("cudaMemcpyAsync", 410, 5, 4),
        _copy("Memcpy HtoD (Pageable -> Device)", 450, 30, 4),
        runtime("cudaMemcpyAsync", 420, 20, 8),
        _copy("Memcpy HtoD (Pinned -> Device)", 425, 5, 8),
        runtime("cudaStreamSynchronize", 500, 100, 5),
        cpu(
            "cudaStreamSynchronize",
            520,
            100,
            cat="cuda_runtime",
            tid=OTHER_TID,
            correlation=6,
        ),
        runtime("cudaLaunchKernel", 690, 5, 7),
        gpu("k3", 700, 50, correlation=7),
        runtime("cudaDeviceSynchronize", 900, 50, 9),
        runtime("cudaLaunchKernel", 1090, 5, 10),
        gpu("k4", 1100, 100, correlation=10),
    ]


# (end of the sync, start of the next device work, cut) per sync, from the layout.
IDLE_AFTER = [(290, 330, 1000), (600, 700, 900), (620, 700, 1000), (950, 1100, 1000)]


@pytest.fixture
def reading(tmp_path: Path) -> SyncReading:
    path = write_trace(tmp_path / "idle.json", _events())
    return SyncReading.of(Analysis(load_trace(path)))


def test_a_pageable_upload_that_drained_the_stream_is_a_sync(
    reading: SyncReading,
) -> None:
    columns = reading.columns
    trace = reading.trace
    starts = [int(ns) // 1000 for ns in columns.start_ns - trace.start_ns.min()]
    names = [trace.event_name(int(event)) for event in columns.events]
    assert list(zip(names, starts, strict=True)) == [
        ("cudaMemcpyAsync", 200),
        ("cudaStreamSynchronize", 500),
        ("cudaStreamSynchronize", 520),
        ("cudaDeviceSynchronize", 900),
    ]
    assert SYNC_KINDS[int(columns.kind[0])] is SyncKind.COPY
    assert columns.blocked_ns.tolist() == [90_000, 100_000, 100_000, 50_000]


def test_idle_after_is_cut_at_the_step_end(reading: SyncReading) -> None:
    expected = [min(following, cut) - end for end, following, cut in IDLE_AFTER]
    assert expected == [40, 100, 80, 50]
    assert reading.columns.idle_after_ns.tolist() == [us * 1000 for us in expected]


def test_device_idle_per_step_counts_overlapping_syncs_once(
    reading: SyncReading,
) -> None:
    idle: set[int] = set()
    for end, following, cut in IDLE_AFTER:
        idle.update(range(end, min(following, cut)))
    assert len(idle) == 190  # 40 + 100 (the two threads' 100 and 80 overlap) + 50
    assert reading.device_idle_after_by_step() == [len(idle) * 1000, 0]
    assert reading.device_idle_after_ns_per_step == len(idle) * 1000 / 2
    # The columns' plain sum counts the overlap twice.
    assert int(reading.columns.idle_after_ns.sum()) == 270_000


def test_without_steps_the_capture_is_one_step(tmp_path: Path) -> None:
    events = [e for e in _events() if not e["name"].startswith("ProfilerStep")]
    path = write_trace(tmp_path / "nosteps.json", events)
    reading = SyncReading.of(Analysis(load_trace(path)))
    # Nothing cuts the last sync's idle now: 950 to k4 at 1100.
    idle: set[int] = set()
    for end, following, cut in IDLE_AFTER:
        idle.update(range(end, following if cut == 1000 else min(following, cut)))
    assert reading.device_idle_after_ns_per_step == len(idle) * 1000
