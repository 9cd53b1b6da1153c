"""The timeline's Textual-free parts: cells, index, layout, labels, axis, navigation.

No Pilot here: these are pure functions of the columns, checked against
brute-force models (per-cell loops over the events), the core's gap
intervals and a parse of what the ruler prints.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from tests import shared_traces as shared
from tests.builders.app_traces import write_training_trace
from tui.core.base.vocab import RowRole
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import TrackKind
from tui.view.axis import CURSOR_GLYPH, TICK_GLYPH, position_text, ruler
from tui.view.cells import (
    Drawing,
    LaneCells,
    Viewport,
    covered_cells,
    dense_cells,
    exact_cells,
    row_cells,
)
from tui.view.labels import distinct_labels
from tui.view.lanes import Lane, marked_lanes, split_lanes
from tui.view.layout import ZoneView, build_layout, first_cap_for
from tui.view.navigation import Picked, Selection, longest_in, next_on_row, row_of
from tui.view.timeline_index import DEFAULT_DEPTH_CAP, TimelineIndex

TRACES = shared.FOLDER
NS_TRACE = TRACES / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
CPU_ONLY = TRACES / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"


# -- a brute-force model of what a cell holds ----------------------------------


def brute_cells(
    starts: list[int], ends: list[int], edges: list[int]
) -> tuple[list[bool], list[float], list[int | None]]:
    """Per cell, by loops: touched by an event, busy fraction, and the event
    covering it whole while reaching past it (it spans several cells)."""
    touched, busy, whole = [], [], []
    for low, high in itertools.pairwise(edges):
        covered = 0
        hit = False
        covering = None
        for position, (start, end) in enumerate(zip(starts, ends, strict=True)):
            if start < high and end > low:
                hit = True
                covered += min(end, high) - max(start, low)
                if start <= low and end >= high and (start < low or end > high):
                    covering = position
        touched.append(hit)
        busy.append(covered / (high - low))
        whole.append(covering)
    return touched, busy, whole


def level(occupancy: float) -> int:
    """The occupancy glyph a busy fraction draws (0 to 7)."""
    return min(7, max(0, int(np.ceil(occupancy * 8)) - 1))


def random_lane(seed: int, count: int) -> Lane:
    """Back-to-back events of random lengths and gaps (one stream: no overlap)."""
    generator = np.random.default_rng(seed)
    lengths = generator.choice([50, 300, 900, 4_000, 25_000], size=count)
    gaps = generator.choice([0, 10, 200, 3_000], size=count)
    starts = np.cumsum(gaps + np.r_[0, lengths[:-1]]).astype(np.int64)
    ends = (starts + lengths).astype(np.int64)
    lanes = split_lanes(np.arange(count, dtype=np.int64), starts, ends)
    assert len(lanes) == 1
    return lanes[0]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("width", [37, 80])
def test_dense_and_exact_drawings_agree_with_a_brute_force_model(
    seed: int, width: int
) -> None:
    lane = random_lane(seed, 400)
    total = int(lane.ends[-1])
    # A cell is 1000 ns wide times k: edges are whole nanoseconds in both drawings.
    span = width * 1000 * max(1, total // (width * 1000 * 3))
    for start in (0, total // 3, total - span):
        view = Viewport(start, start + span, width)
        edges = view.edges().tolist()
        touched, busy, whole = brute_cells(
            lane.starts.tolist(), lane.ends.tolist(), edges
        )
        low, high = lane.visible(view.start_ns, view.end_ns)
        exact = exact_cells(lane, low, high, view) or LaneCells.empty(width)
        dense = dense_cells(lane, view)
        for drawn in (exact, dense):
            assert (drawn.owner >= 0).tolist() == touched
        first, last = view.cell_bounds(lane.starts[low:high], lane.ends[low:high])
        multi = np.zeros(width, dtype=bool)
        for a, b in zip(first.tolist(), last.tolist(), strict=True):
            if b - a > 1:
                multi[a:b] = True
        for cell in range(width):
            if whole[cell] is not None:
                # A cell inside one event: both draw that event across it.
                for drawn in (exact, dense):
                    assert drawn.wide[cell] and drawn.owner[cell] == whole[cell]
            if not dense.wide[cell]:
                assert level(float(dense.occupancy[cell])) == level(busy[cell])
            if not multi[cell] and touched[cell]:
                assert level(float(exact.occupancy[cell])) == level(busy[cell])


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_marked_cells_are_the_cells_a_marked_event_touches(seed: int) -> None:
    """Marks (search matches, an operator's occurrences) drawn from the row's own
    lanes, split into more lanes than MAX_LANES by deep overlap, sparse and dense."""
    generator = np.random.default_rng(seed)
    count = 3_000
    starts = np.sort(generator.integers(0, 2_000_000, count)).astype(np.int64)
    short = generator.choice([1, 40, 900, 30_000], size=count)
    long = generator.integers(1, 2_000_000, count)
    ends = starts + np.where(generator.random(count) < 0.7, short, long)
    lanes = split_lanes(np.arange(count, dtype=np.int64), starts, ends)
    assert len(lanes) > 2 and not lanes[-1].monotone
    leftover = np.zeros(count, dtype=np.bool_)
    leftover[lanes[-1].events] = True  # the lane whose ends go back and forth
    for marked in (
        generator.random(count) < 0.3,
        generator.random(count) < 0.02,
        leftover,
    ):
        chosen = np.flatnonzero(marked)
        marks = marked_lanes(lanes, marked)
        assert sorted(np.concatenate([lane.events for lane in marks]).tolist()) == (
            chosen.tolist()
        )
        for start, span, width in (
            (0, 4_000_000, 37),  # every event in view: the dense drawing
            (700_000, 5_000, 80),  # a few events per cell: the exact one
            (1_000_000, 120_000, 61),
        ):
            view = Viewport(start, start + span, width)
            touched, _, _ = brute_cells(
                starts[chosen].tolist(), ends[chosen].tolist(), view.edges().tolist()
            )
            assert covered_cells(marks, view).tolist() == touched
    assert not covered_cells([], Viewport(0, 100, 10)).any()


def test_dense_and_exact_rows_agree_on_a_small_real_trace(tmp_path: Path) -> None:
    """Every row of a small trace, at several zooms, forced one way then the
    other: the same cells drawn, and a cell that one event alone touches
    draws that event in both."""
    trace = load_trace(write_training_trace(tmp_path / "t.json", steps=3))
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    layout = build_layout(index, ZoneView.build(index, analysis), first_cap=8)
    span = int(trace.span_ns)
    compared = 0
    for width in (20, 57):
        for start, end in ((0, span), (span // 4, span // 2), (0, span // 30)):
            view = Viewport(start, end, width)
            edges = view.edges().tolist()
            for row in layout.rows:
                if not row.lanes:
                    continue
                exact, _ = row_cells(row.lanes, view, Drawing.EXACT)
                dense, examined = row_cells(row.lanes, view, Drawing.DENSE)
                assert examined == 0
                events = np.concatenate([lane.events for lane in row.lanes]).tolist()
                starts = [int(trace.start_ns[e]) for e in events]
                ends = [
                    s + int(trace.duration_ns[e])
                    for s, e in zip(starts, events, strict=False)
                ]
                for cell, (low, high) in enumerate(itertools.pairwise(edges)):
                    touching = [
                        event
                        for event, s, e in zip(events, starts, ends, strict=True)
                        if s < high and (e > low or (s == e and s >= low))
                    ]
                    assert (exact.owner[cell] >= 0) == bool(touching), row.label
                    assert (dense.owner[cell] >= 0) == bool(touching), row.label
                    if len(touching) == 1:
                        assert exact.owner[cell] == dense.owner[cell] == touching[0]
                    compared += 1
    assert compared > 1000


# -- the index and the layout ---------------------------------------------------


def test_index_rows_hold_every_event_of_a_track_once(tmp_path: Path) -> None:
    trace = load_trace(NS_TRACE) if NS_TRACE.exists() else None
    if trace is None:
        trace = load_trace(write_training_trace(tmp_path / "t.json"))
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    for track in index.track_order:
        for cap in (1, DEFAULT_DEPTH_CAP, 64):
            drawn = np.concatenate(
                [
                    lane.events
                    for _, _, lanes in index.rows_of(track, cap)
                    for lane in lanes
                ]
            )
            span = trace.track_slice(track)
            assert sorted(drawn.tolist()) == list(range(span.start, span.stop))
            # Every event sits on the row of its depth (or the folded last row).
            for depth, deeper, lanes in index.rows_of(track, cap):
                for lane in lanes:
                    depths = [index.depth_of(int(e)) for e in lane.events[:50]]
                    assert all(d == depth or (deeper and d >= depth) for d in depths)


@pytest.mark.usefixtures("shared_traces")
def test_main_thread_then_streams_and_the_first_stream_fits_a_small_screen() -> None:
    trace = load_trace(NS_TRACE)
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    first, second = index.track_order[:2]
    assert first == int(trace.track[analysis.steps[0].event])
    assert trace.tracks[second].kind == TrackKind.DEVICE
    zone = ZoneView.build(index, analysis)
    for visible in (2, 3, 5, 8, 30):
        layout = build_layout(index, zone, first_cap=first_cap_for(index, visible))
        body = layout.body
        stream_row = next(
            position
            for position, row in enumerate(body)
            if row.track is not None
            and trace.tracks[row.track].kind == TrackKind.DEVICE
        )
        assert stream_row < max(visible, 2)


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("width", [8, 12, 16, 28])
def test_track_labels_of_different_threads_never_read_the_same(width: int) -> None:
    trace = load_trace(CPU_ONLY)  # three threads all named (pt_main_thread)
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    layout = build_layout(index, ZoneView.build(index, analysis))
    labels = layout.track_labels(width)
    assert len(set(labels.values())) == len(labels) == len(index.track_order)
    assert all(len(label) <= width for label in labels.values())


@pytest.mark.parametrize("seed", range(20))
def test_distinct_labels_property(seed: int) -> None:
    generator = np.random.default_rng(seed)
    alphabet = list("ab_ (0123")
    stems = ["thread 1234 (pt_main_thread)", "GPU 0 stream ", "x"]
    names = sorted(
        {
            str(generator.choice(stems))
            + "".join(generator.choice(alphabet, size=int(generator.integers(0, 12))))
            for _ in range(int(generator.integers(2, 9)))
        }
    )
    width = int(generator.integers(4, 20))
    shown = distinct_labels(names, width)
    assert len(set(shown)) == len(names)
    assert all(len(label) <= width for label in shown)
    # A name that fits is shown whole.
    for label, name in zip(shown, names, strict=True):
        if len(name) <= width and names.count(name) == 1:
            assert label == name or label.startswith(name[: width - 3])


def test_the_zones_row_and_device_rows_carry_the_cores_gaps(tmp_path: Path) -> None:
    trace = load_trace(write_training_trace(tmp_path / "t.json"))
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    layout = build_layout(index, ZoneView.build(index, analysis))
    reading = analysis.zone_reading
    zones = next(row for row in layout.header if row.role is RowRole.ZONES)
    assert zones.gaps is not None
    assert np.array_equal(zones.gaps[0], reading.gap_union.starts)
    assert np.array_equal(zones.gaps[1], reading.gap_union.ends)
    for row in layout.body:
        if row.track is not None and trace.tracks[row.track].kind == TrackKind.DEVICE:
            device = trace.tracks[row.track].device
            assert row.gaps is not None
            assert np.array_equal(row.gaps[0], reading.gap_intervals[device].starts)
    # Another zone: the same index, other marks.
    other = analysis.with_zones(["aten::stack"])
    layout = build_layout(index, ZoneView.build(index, other))
    zones = next(row for row in layout.header if row.role is RowRole.ZONES)
    assert zones.gaps is not None
    assert np.array_equal(zones.gaps[0], other.zone_reading.gap_union.starts)
    assert zones.members is not None
    assert set(other.zone_reading.zone_events.tolist()) <= set(zones.members.tolist())


# -- navigation -------------------------------------------------------------------


def test_next_event_and_longest_under_the_cursor(tmp_path: Path) -> None:
    trace = load_trace(write_training_trace(tmp_path / "t.json"))
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    layout = build_layout(index, ZoneView.build(index, analysis), first_cap=8)
    row = next(r for r in layout.body if r.depth == 1)
    events = sorted(
        (int(trace.start_ns[e]), int(e))
        for lane in row.lanes
        for e in lane.events.tolist()
    )
    for (start, event), (_, following) in itertools.pairwise(events):
        assert next_on_row(row, (start, event), 1) == following
        assert (
            next_on_row(row, (int(trace.start_ns[following]), following), -1) == event
        )
    start, event = events[0]
    end = start + int(trace.duration_ns[event])
    assert longest_in(row, start, end) == event
    assert row_of(index, layout, event) == layout.rows.index(row)


def test_fit_follows_the_latest_selection(tmp_path: Path) -> None:
    trace = load_trace(write_training_trace(tmp_path / "t.json"))
    index = TimelineIndex.build(trace, Analysis(trace))
    selection = Selection(event=5, range=(100, 200), latest=Picked.RANGE)
    assert selection.fit_target(index) == (100, 200)
    selection.latest = Picked.EVENT
    start = int(trace.start_ns[5])
    assert selection.fit_target(index) == (start, start + int(trace.duration_ns[5]))
    assert Selection().fit_target(index) is None


# -- the axis ---------------------------------------------------------------------

TICK = re.compile(r"-?\d+(\.\d+)?(s|ms|µs|ns)")


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (0, 43_459_000_000),
        (0, 1_046_000_000),
        (500_000, 500_300),
        (2_700_000_000, 2_710_000_000),
        (123, 99_999),
    ],
)
def test_the_cursor_never_lands_on_a_tick_label(start: int, end: int) -> None:
    for width in (30, 63, 150):
        for cursor in range(width):
            line = ruler(start, end, width, cursor)
            assert len(line) == width and line[cursor] == CURSOR_GLYPH
            # Every word on the ruler is a whole time: none is cut by the cursor.
            words = re.split(f"[ {TICK_GLYPH}{CURSOR_GLYPH}]+", line)
            for word in filter(None, words):
                assert TICK.fullmatch(word), (line, word)


def test_positions_read_in_the_unit_of_the_zoom() -> None:
    assert position_text(2_706_161_714, 43_000_000_000) == "2.71 s"
    assert position_text(270_616_000, 590_000_000) == "270.6 ms"
    assert position_text(2_706_161_714, 1_000) == "2.706161714 s"
    assert position_text(1_500, 10_000) == "1.50 µs"
