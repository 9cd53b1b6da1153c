"""The memory lane without Textual: per-cell peaks against a brute-force model over
the raw events, a cost bound by the width, and the rows the layout gives it."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from tests.builders.app_traces import BASE_US, write_training_trace
from tests.builders.memory import write_memory_trace
from tui.core.base.vocab import RowRole
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import DeviceMemory
from tui.core.ingest.load import load_trace
from tui.core.model.trace import TrackKind
from tui.view.cells import Viewport
from tui.view.layout import ZoneView, build_layout
from tui.view.memory_lane import LEVEL_GLYPHS, MemoryLane
from tui.view.timeline_index import TimelineIndex


def brute_peaks(
    times: list[int], totals: list[int], edges: list[int]
) -> list[int | None]:
    """Per cell, by loops: the highest known total of the events in the cell
    and of the last event before it (the level the cell starts at)."""
    peaks: list[int | None] = []
    for low, high in itertools.pairwise(edges):
        candidates = [
            total
            for time, total in zip(times, totals, strict=True)
            if low <= time < high and total >= 0
        ]
        before = [i for i, time in enumerate(times) if time < low]
        if before and totals[before[-1]] >= 0:
            candidates.append(totals[before[-1]])
        peaks.append(max(candidates) if candidates else None)
    return peaks


def _lane(times: list[int], totals: list[int]) -> MemoryLane:
    return MemoryLane.build(
        DeviceMemory(
            "cuda:0", np.array(times, dtype=np.int64), np.array(totals, dtype=np.int64)
        )
    )


def _as_model(peaks: npt.NDArray[np.int64]) -> list[int | None]:
    return [None if value < 0 else int(value) for value in peaks.tolist()]


@pytest.mark.parametrize("seed", range(6), ids=lambda seed: f"seed-{seed}")
def test_random_lanes_match_the_brute_force_model(seed: int) -> None:
    generator = np.random.default_rng(seed)
    count = int(generator.integers(1, 300))
    times = np.sort(generator.integers(0, 50_000, count)).tolist()
    totals = generator.integers(0, 1 << 30, count)
    totals[generator.random(count) < 0.1] = -1  # totals not written
    lane = _lane(times, totals.tolist())
    for _ in range(8):
        start = int(generator.integers(-5_000, 50_000))
        span = int(generator.integers(20, 60_000))
        width = int(generator.integers(1, 150))
        view = Viewport(start, start + span, width)
        got = lane.cells(view)
        want = brute_peaks(times, totals.tolist(), view.edges().tolist())
        assert _as_model(got.peaks) == want
        known = [value for value in want if value is not None]
        assert got.peak == (max(known) if known else 0)


def test_the_fixture_lane_reads_the_raw_events(tmp_path: Path) -> None:
    """Peaks per cell from the JSON's own totals, and the highest cell drawn full."""
    path = write_memory_trace(tmp_path / "memory.json")
    raw = json.loads(path.read_text())["traceEvents"]
    device_events = [
        event
        for event in raw
        if event.get("name") == "[memory]" and event["args"]["Device Type"] == 1
    ]
    times = [round((event["ts"] - BASE_US) * 1000) for event in device_events]
    totals = [event["args"]["Total Allocated"] for event in device_events]
    trace = load_trace(path)
    index = TimelineIndex.build(trace, Analysis(trace))
    lanes = {lane.label: lane for lane in index.memory}
    assert sorted(lanes) == ["cpu", "cuda:0"]
    view = Viewport(0, trace.span_ns, 97)
    cells = lanes["cuda:0"].cells(view)
    want = brute_peaks(times, totals, view.edges().tolist())
    assert _as_model(cells.peaks) == want
    assert cells.peak == max(totals)
    glyphs = cells.glyphs()
    assert len(glyphs) == 97
    for glyph, value in zip(glyphs, want, strict=True):
        if not value:
            assert glyph == " "
        else:
            eighths = math.ceil(value * 8 / max(totals))
            assert glyph == LEVEL_GLYPHS[eighths - 1]
    assert "█" in glyphs


def test_cost_is_bound_by_the_width_not_the_events() -> None:
    """A million memory events in view: each cell reads at most two tree nodes a level."""
    count = 1_000_000
    generator = np.random.default_rng(3)
    times = np.cumsum(generator.integers(1, 100, count)).astype(np.int64)
    totals = generator.integers(0, 1 << 32, count).astype(np.int64)
    lane = MemoryLane.build(DeviceMemory("cuda:0", times, totals))
    levels = int(math.log2(lane.leaves)) + 1
    for width in (80, 200):
        view = Viewport(0, int(times[-1]) + 1, width)
        cells = lane.cells(view)
        assert cells.examined <= 2 * width * levels
        assert cells.peak == int(totals.max())
        # Spot-check some cells against the columns themselves.
        edges = view.edges()
        for cell in (0, width // 2, width - 1):
            inside = (times >= edges[cell]) & (times < edges[cell + 1])
            first = int(np.argmax(inside))
            chosen = totals[max(first - 1, 0) : first + int(inside.sum())]
            assert cells.peaks[cell] == int(chosen.max())


def test_memory_rows_follow_the_device_streams(tmp_path: Path) -> None:
    trace = load_trace(write_memory_trace(tmp_path / "memory.json"))
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    rows = build_layout(index, ZoneView.build(index, analysis)).body
    roles = [row.role for row in rows]
    memory = [position for position, role in enumerate(roles) if role is RowRole.MEMORY]
    assert [rows[position].label for position in memory] == [
        "alloc cpu",
        "alloc cuda:0",
    ]
    last_device = max(
        position
        for position, row in enumerate(rows)
        if row.track is not None and trace.tracks[row.track].kind == TrackKind.DEVICE
    )
    assert memory == [last_device + 1, last_device + 2]


def test_no_memory_events_no_memory_rows(tmp_path: Path) -> None:
    trace = load_trace(write_training_trace(tmp_path / "plain.json"))
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    assert index.memory == []
    rows = build_layout(index, ZoneView.build(index, analysis)).rows
    assert all(row.role is not RowRole.MEMORY for row in rows)
