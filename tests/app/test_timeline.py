"""The timeline widget: keys move the view, lines show gaps and selections, text stays text.

The widget is mounted alone in a tiny app, over hand-made traces whose gaps
are known by construction, over real traces, and over a synthetic stream of a
million kernels to show that drawing a line only looks at what is visible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.message import Message

from tests import shared_traces as shared
from tests.pilot import pilot_test
from tui.app.messages import EventActivated, EventSelected, ViewChanged
from tui.app.widgets.timeline import GAP_GLYPH, Timeline
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Flows, Kind, Trace, Track, TrackKind
from tui.view.axis import tick_label, unit_for

TRACES = shared.FOLDER
NS_TRACE = TRACES / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
CPU_ONLY_TRACE = TRACES / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
SIZE = (120, 30)
BASE_US = 1_712_195_495_000_000
HOSTILE_NAMES = ("[@click=app.quit]", "\x1b[2J", "aten::foo [/]")


# -- fixtures ------------------------------------------------------------------


def _event(
    name: str, ts: float, dur: float, cat: str, pid: int, tid: int, **args: Any
) -> dict[str, Any]:
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": pid,
        "tid": tid,
        "ts": BASE_US + ts,
        "dur": dur,
        "args": args,
    }


def write_training_trace(path: Path, *, steps: int = 3, gpu: bool = True) -> Path:
    """Steps of 1000 µs: lecture_batch_cpu reads (no GPU work), then kernels run outside it.

    Per step at offset t: lecture_batch_cpu [t+10, t+410) holding two
    aten::empty children [t+50, t+150) and [t+250, t+300); entrainement
    [t+450, t+950) with hostile-named ops and aten::mm launching a kernel on
    stream 7 at [t+500, t+900). The GPU is idle for the whole data zone.
    """
    events: list[dict[str, Any]] = [
        {
            "ph": "M",
            "name": "process_name",
            "pid": 1,
            "tid": 0,
            "args": {"name": "python"},
        },
        {
            "ph": "M",
            "name": "thread_name",
            "pid": 1,
            "tid": 11,
            "args": {"name": "main \x1b]0;owned\x07 [b]thread"},
        },
    ]
    if gpu:
        events.append(
            {
                "ph": "M",
                "name": "process_name",
                "pid": 0,
                "tid": 0,
                "args": {"name": "GPU 0"},
            }
        )
    for step in range(steps):
        t = step * 1000.0
        events.append(
            _event(f"ProfilerStep#{step + 1}", t, 990, "user_annotation", 1, 11)
        )
        events.append(
            _event("lecture_batch_cpu", t + 10, 400, "user_annotation", 1, 11)
        )
        events.append(_event("aten::empty", t + 50, 100, "cpu_op", 1, 11))
        events.append(_event("aten::empty", t + 250, 50, "cpu_op", 1, 11))
        events.append(_event("entrainement", t + 450, 500, "user_annotation", 1, 11))
        for index, name in enumerate(HOSTILE_NAMES):
            events.append(_event(name, t + 460 + index * 10, 8, "cpu_op", 1, 11))
        events.append(_event("aten::mm", t + 490, 20, "cpu_op", 1, 11))
        if gpu:
            correlation = 100 + step
            events.append(
                _event(
                    "cudaLaunchKernel",
                    t + 495,
                    5,
                    "cuda_runtime",
                    1,
                    11,
                    correlation=correlation,
                )
            )
            events.append(
                _event(
                    "gemm_kernel",
                    t + 500,
                    400,
                    "kernel",
                    0,
                    7,
                    correlation=correlation,
                    device=0,
                    stream=7,
                )
            )
    path.write_text(json.dumps({"traceEvents": events}))
    return path


class TimelineApp(App[None]):
    """Only the timeline, and a record of the messages it posts."""

    def __init__(self, trace: Trace, analysis: Analysis | None = None) -> None:
        super().__init__()
        self.trace = trace
        self.analysis = analysis or Analysis(trace)
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        yield Timeline(self.trace, self.analysis, id="timeline")

    def on_event_selected(self, message: EventSelected) -> None:
        self.messages.append(message)

    def on_event_activated(self, message: EventActivated) -> None:
        self.messages.append(message)

    def on_view_changed(self, message: ViewChanged) -> None:
        self.messages.append(message)


@pytest.fixture(scope="module")
def gpu_trace(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    path = tmp_path_factory.mktemp("traces") / "train.json"
    return load_trace(write_training_trace(path))


@pytest.fixture(scope="module")
def cpu_trace(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    path = tmp_path_factory.mktemp("traces") / "train_cpu.json"
    return load_trace(write_training_trace(path, gpu=False))


def lines(timeline: Timeline) -> list[str]:
    """The text of every line on screen."""
    return [timeline.render_line(y).text for y in range(timeline.size.height)]


def lane_text(timeline: Timeline, y: int) -> str:
    """The time lanes of one line, without its label column."""
    return timeline.render_line(y).text[timeline._label_width() + 1 :]


def screen_row(timeline: Timeline, predicate: Any) -> int:
    """The screen line of the first row matching `predicate(row)`."""
    for index, row in enumerate(timeline._rows):
        if predicate(row):
            header = len(timeline._header)
            return index if index < header else index - round(timeline.scroll_y)
    raise AssertionError("no such row")


def span(timeline: Timeline) -> int:
    return timeline.view_end_ns - timeline.view_start_ns


# -- drawn lines kept -------------------------------------------------------------


@pilot_test
async def test_focus_alone_keeps_the_drawn_lines_a_theme_draws_them_again(
    gpu_trace: Trace,
) -> None:
    """Focus leaving or coming back changes nothing the lines show (a prompt
    closing drew every track again); a theme changes their styles."""
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        await pilot.pause()
        drawn = [timeline.render_line(y) for y in range(timeline.size.height)]
        app.set_focus(None)
        await pilot.pause()
        assert all(timeline.render_line(y) is drawn[y] for y in range(len(drawn)))
        timeline.focus()
        await pilot.pause()
        assert all(timeline.render_line(y) is drawn[y] for y in range(len(drawn)))
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        again = [timeline.render_line(y) for y in range(len(drawn))]
        assert [strip.text for strip in again] == [strip.text for strip in drawn]
        assert [list(strip) for strip in again] != [list(strip) for strip in drawn]


# -- keys move the view --------------------------------------------------------


@pilot_test
async def test_zoom_keys_narrow_and_widen_around_the_centre(gpu_trace: Trace) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        timeline.fit(1_000_000, 2_000_000)
        centre = (timeline.view_start_ns + timeline.view_end_ns) // 2
        before = span(timeline)
        await pilot.press("w")
        assert span(timeline) < before
        assert abs((timeline.view_start_ns + timeline.view_end_ns) // 2 - centre) <= 2
        narrowed = span(timeline)
        await pilot.press("s", "s")
        assert span(timeline) > narrowed
        assert span(timeline) > before
        assert abs((timeline.view_start_ns + timeline.view_end_ns) // 2 - centre) <= 2
        await pilot.press("plus")
        assert span(timeline) < before * 1.5
        await pilot.press("minus")
        await pilot.pause()
        views = [m for m in app.messages if isinstance(m, ViewChanged)]
        assert views and views[-1].start_ns == timeline.view_start_ns


@pilot_test
async def test_pan_keys_shift_the_view_and_clamp_at_the_ends(gpu_trace: Trace) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        timeline.fit(1_000_000, 1_400_000)
        await pilot.press("d")
        assert timeline.view_start_ns > 1_000_000
        assert span(timeline) == 400_000
        await pilot.press("a", "left")
        assert timeline.view_start_ns < 1_000_000
        assert span(timeline) == 400_000
        await pilot.press("home")
        assert timeline.view_start_ns == 0
        await pilot.press("left")
        assert timeline.view_start_ns == 0
        await pilot.press("end")
        assert timeline.view_end_ns == timeline.total_ns
        await pilot.press("right")
        assert timeline.view_end_ns == timeline.total_ns
        assert span(timeline) == 400_000


@pilot_test
async def test_fit_shows_exactly_the_range_and_reactives_clamp(
    gpu_trace: Trace,
) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE):
        timeline = app.query_one(Timeline)
        timeline.fit(123_456, 789_012)
        assert (timeline.view_start_ns, timeline.view_end_ns) == (123_456, 789_012)
        timeline.fit(-500, timeline.total_ns * 3)
        assert (timeline.view_start_ns, timeline.view_end_ns) == (0, timeline.total_ns)
        timeline.view_end_ns = timeline.total_ns * 2
        assert timeline.view_end_ns == timeline.total_ns
        timeline.view_start_ns = timeline.total_ns + 10
        assert timeline.view_start_ns < timeline.view_end_ns


@pilot_test
async def test_select_event_brings_it_into_view_and_onto_its_row(
    gpu_trace: Trace,
) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE):
        timeline = app.query_one(Timeline)
        kernels = np.flatnonzero(gpu_trace.kind == Kind.KERNEL)
        last_kernel = int(kernels[-1])
        timeline.fit(0, 50_000)
        timeline.select_event(last_kernel)
        start = int(gpu_trace.start_ns[last_kernel])
        end = start + int(gpu_trace.duration_ns[last_kernel])
        assert timeline.view_start_ns <= start and end <= timeline.view_end_ns
        assert timeline.selected_event == last_kernel
        row = timeline._rows[timeline.cursor_row]
        assert row.track == int(gpu_trace.track[last_kernel])
        line = timeline.render_line(screen_row(timeline, lambda r: r is row))
        reversed_cells = [
            segment.text for segment in line if segment.style and segment.style.reverse
        ]
        assert "".join(reversed_cells).strip(), "the selection is drawn reversed"


# -- what lines show -------------------------------------------------------------


def _gap_cells(timeline: Timeline, start: int, end: int) -> range:
    """Cells lying wholly inside [start, end) in the current view."""
    width = timeline._lane_width()
    scale = width / span(timeline)
    first = int(np.ceil((start - timeline.view_start_ns) * scale))
    last = int(np.floor((end - timeline.view_start_ns) * scale))
    return range(max(first, 0), min(last, width))


@pilot_test
async def test_gpu_idle_gap_is_drawn_with_the_gap_glyph(gpu_trace: Trace) -> None:
    analysis = Analysis(gpu_trace)
    gaps = analysis.gaps
    assert gaps and all(gap.kind == "gpu_idle" for gap in gaps)
    app = TimelineApp(gpu_trace, analysis)
    async with app.run_test(size=SIZE):
        timeline = app.query_one(Timeline)
        gap = gaps[1]
        timeline.fit(gap.start_ns - 100_000, gap.start_ns + gap.duration_ns + 100_000)
        cells = _gap_cells(timeline, gap.start_ns, gap.start_ns + gap.duration_ns)
        assert len(cells) > 10
        gpu_y = screen_row(
            timeline,
            lambda r: (
                r.track is not None
                and gpu_trace.tracks[r.track].kind == TrackKind.DEVICE
            ),
        )
        zones_y = screen_row(timeline, lambda r: r.role == "zones")
        before = _gap_cells(timeline, gap.start_ns - 100_000, gap.start_ns)
        text = lane_text(timeline, gpu_y)
        assert all(text[c] == GAP_GLYPH for c in cells), text
        assert GAP_GLYPH not in "".join(text[c] for c in before)
        # On the zone, its name comes first, then the gap glyph.
        text = lane_text(timeline, zones_y)
        name_at = text.index("lecture_batch_cpu" + GAP_GLYPH)
        assert abs(name_at - cells.start) <= 1
        named = range(name_at + len("lecture_batch_cpu"), cells.stop)
        assert all(text[c] == GAP_GLYPH for c in named), text
        assert GAP_GLYPH not in "".join(text[c] for c in before)
        assert "GPU idle" in timeline.render_line(zones_y).text
        # Not colour alone: the glyph carries the meaning, bold marks it too.
        gap_segments = [s for s in timeline.render_line(gpu_y) if GAP_GLYPH in s.text]
        assert all(s.style is not None and s.style.bold for s in gap_segments)


@pilot_test
async def test_untraced_time_is_marked_on_the_zone_and_named_so(
    cpu_trace: Trace,
) -> None:
    analysis = Analysis(cpu_trace)
    gaps = analysis.gaps
    assert gaps and all(gap.kind == "untraced" for gap in gaps)
    app = TimelineApp(cpu_trace, analysis)
    async with app.run_test(size=SIZE):
        timeline = app.query_one(Timeline)
        zone = gaps[0].zone_event
        zone_start = int(cpu_trace.start_ns[zone])
        timeline.fit(zone_start, zone_start + 400_000)
        zones_y = screen_row(timeline, lambda r: r.role == "zones")
        label = timeline.render_line(zones_y).text
        assert "untraced" in label and "GPU" not in label
        text = lane_text(timeline, zones_y)
        # Waiting between and after the two aten::empty children (the name comes first).
        for start_us, end_us in ((140, 240), (290, 400)):
            cells = _gap_cells(
                timeline, zone_start + start_us * 1000, zone_start + end_us * 1000
            )
            assert all(text[c] == GAP_GLYPH for c in cells), text
        busy = _gap_cells(timeline, zone_start + 40_000, zone_start + 140_000)
        assert GAP_GLYPH not in "".join(text[c] for c in busy)
        # What the zones row marks is the core's gap set, not a recomputation.
        zones_row = next(row for row in timeline._rows if row.role == "zones")
        assert zones_row.gaps is not None
        union = analysis.zone_reading.gap_union
        assert np.array_equal(zones_row.gaps[0], union.starts)
        assert np.array_equal(zones_row.gaps[1], union.ends)
        assert union.total_ns == sum(gap.duration_ns for gap in gaps)


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("path", [NS_TRACE, CPU_ONLY_TRACE], ids=["cuda", "cpu-only"])
@pilot_test
async def test_real_traces_draw_axis_steps_and_tracks(path: Path) -> None:
    trace = load_trace(path)
    app = TimelineApp(trace)
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        shown = lines(timeline)
        assert "╵" in shown[0] and "span" in shown[0]
        assert shown[1].startswith("steps")
        assert "#" in shown[1]
        assert any("thread" in line for line in shown)
        await pilot.press("w", "w", "d", "down", "down", "x", "s", "end", "home")
        await pilot.pause()
        assert all(len(line) == 80 for line in lines(timeline))


def test_tick_units_follow_the_zoom() -> None:
    assert tick_label(1_500, 500, *unit_for(1_500)) == "1.5µs"
    assert tick_label(2_500_000, 500_000, *unit_for(2_500_000)) == "2.5ms"
    assert tick_label(3_000_000_000, 10**9, *unit_for(3_000_000_000)) == "3s"
    assert tick_label(12, 1, *unit_for(12)) == "12ns"


@pilot_test
async def test_axis_units_change_with_zoom(gpu_trace: Trace) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE):
        timeline = app.query_one(Timeline)
        assert "ms" in timeline.render_line(0).text
        timeline.fit(500_000, 520_000)
        assert "µs" in timeline.render_line(0).text
        timeline.fit(500_000, 500_300)
        assert "ns" in timeline.render_line(0).text


# -- untrusted text ----------------------------------------------------------------


@pilot_test
async def test_hostile_names_render_escaped_and_the_app_keeps_running(
    gpu_trace: Trace,
) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=(200, 30)) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        start = 460_000
        timeline.fit(start - 500, start + 30_000)
        await pilot.pause()
        shown = "\n".join(lines(timeline))
        assert "[@click=app.quit]" in shown
        assert "\\x1b[2J" in shown
        assert "aten::foo [/]" in shown
        assert "\x1b" not in shown and "\x07" not in shown
        assert "main \\x1b]0" in shown and "[b]thread" in shown
        every_segment: list[Segment] = [
            segment
            for y in range(timeline.size.height)
            for segment in timeline.render_line(y)
        ]
        assert not any(
            segment.style and segment.style.meta for segment in every_segment
        )
        await pilot.click(Timeline, offset=(60, 5))
        await pilot.press("down", "enter", "w", "s")
        await pilot.pause()
        assert app.is_running


# -- selection keys --------------------------------------------------------------


@pilot_test
async def test_up_down_pick_the_event_under_the_cursor_and_enter_activates(
    gpu_trace: Trace,
) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        # Cursor in the middle: at 100 µs into step 1, inside lecture_batch_cpu.
        timeline.fit(0, 200_000)
        await pilot.press("up")
        while timeline._rows[timeline.cursor_row].role != "track":
            await pilot.press("down")
        await pilot.pause()
        selected = [m for m in app.messages if isinstance(m, EventSelected)]
        assert selected
        picked = selected[-1].event
        assert picked is not None
        assert gpu_trace.event_name(picked) == "ProfilerStep#1"
        await pilot.press("down")
        await pilot.pause()
        assert gpu_trace.event_name(timeline.selected_event or 0) == "lecture_batch_cpu"
        await pilot.press("enter")
        await pilot.pause()
        activated = [m for m in app.messages if isinstance(m, EventActivated)]
        assert activated and activated[-1].event == timeline.selected_event
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert gpu_trace.event_name(timeline.selected_event or 0) == "entrainement"
        await pilot.press("right_square_bracket")
        assert gpu_trace.event_name(timeline.selected_event or 0) == "lecture_batch_cpu"
        assert timeline.selected_event == picked + 11  # step 2 starts at event 10
        await pilot.press("left_square_bracket", "comma")
        assert gpu_trace.event_name(timeline.selected_event or 0) == "lecture_batch_cpu"
        assert timeline.selected_event == picked + 1


@pilot_test
async def test_marked_events_are_underlined_and_ranges_reversed(
    gpu_trace: Trace,
) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE):
        timeline = app.query_one(Timeline)
        kernels = np.flatnonzero(gpu_trace.kind == Kind.KERNEL)
        timeline.mark_events(kernels)
        gpu_y = screen_row(
            timeline,
            lambda r: (
                r.track is not None
                and gpu_trace.tracks[r.track].kind == TrackKind.DEVICE
            ),
        )
        assert any(
            segment.style and segment.style.underline and segment.text.strip()
            for segment in timeline.render_line(gpu_y)
        )
        timeline.mark_events(np.array([], dtype=np.int64))
        assert not any(
            segment.style and segment.style.underline
            for segment in timeline.render_line(gpu_y)
        )
        timeline.select_range(1_000_000, 1_400_000)
        assert timeline.selected_range == (1_000_000, 1_400_000)
        assert timeline.view_start_ns <= 1_000_000 and timeline.view_end_ns >= 1_400_000
        axis = timeline.render_line(0)
        assert any(segment.style and segment.style.reverse for segment in axis)


# -- cost follows the view -------------------------------------------------------


def synthetic_streams(
    streams: int, per_stream: int, names: tuple[str, ...] = ("kernel",)
) -> Trace:
    """`streams` device streams of `per_stream` back-to-back 0.9 µs kernels, as columns."""
    count = streams * per_stream
    track_of = np.repeat(np.arange(streams, dtype=np.int32), per_stream)
    starts = np.tile(np.arange(per_stream, dtype=np.int64) * 1_000, streams)
    zeros = np.zeros(count, dtype=np.int64)
    tracks = [
        Track(i, 0, i, TrackKind.DEVICE, f"GPU 0 stream {i}", "GPU 0", 0, (1, 0, i))
        for i in range(streams)
    ]
    return Trace(
        path=Path("synthetic.json"),
        origin_ns=0,
        names=list(names),
        categories=["kernel"],
        tracks=tracks,
        start_ns=starts,
        duration_ns=zeros + 900,
        track=track_of,
        name_id=(np.arange(count) % len(names)).astype(np.int32),
        category_id=np.zeros(count, dtype=np.int32),
        kind=np.full(count, Kind.KERNEL, dtype=np.uint8),
        correlation=zeros - 1,
        external_id=zeros - 1,
        stream_arg=zeros - 1,
        args_begin=zeros,
        args_end=zeros,
        args_blob=b"",
        track_start=np.arange(streams + 1, dtype=np.int64) * per_stream,
        flows=Flows(
            np.zeros(0, np.int64),
            np.zeros(0, np.int32),
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
        ),
        description=None,
        metadata={},
    )


@pilot_test
async def test_drawing_a_line_only_looks_at_visible_events() -> None:
    count = 1_000_000
    trace = synthetic_streams(1, count, names=("kernel_a", "kernel_b"))
    app = TimelineApp(trace)
    async with app.run_test(size=SIZE):
        timeline = app.query_one(Timeline)
        timeline.fit(600_000_000, 600_005_000)  # 5 kernels in view
        timeline.events_examined = 0
        shown = lines(timeline)
        assert timeline.events_examined <= 6
        assert any("kernel_a" in line or "kernel_b" in line for line in shown)
        # Zoomed out, all kernels are in view: cells are summarised, not events visited.
        timeline.fit(0, timeline.total_ns)
        timeline.events_examined = 0
        shown = lines(timeline)
        assert timeline.events_examined == 0
        stream_y = screen_row(timeline, lambda r: r.role == "track")
        assert "▇" in shown[stream_y] or "█" in shown[stream_y]
        # Marks as dense as the events are summarised the same way.
        timeline.mark_events(np.arange(0, count, 7))
        underlined = [
            segment
            for segment in timeline.render_line(stream_y)
            if segment.style is not None and segment.style.underline
        ]
        assert (
            sum(len(segment.text) for segment in underlined) == timeline._lane_width()
        )
        assert timeline.events_examined == 0


@pilot_test
async def test_selecting_an_event_below_the_screen_scrolls_its_track_in() -> None:
    trace = synthetic_streams(60, 10)
    app = TimelineApp(trace)
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        await pilot.press("x")  # GPU 0's 60 streams, unfolded under its row
        assert "stream 59" not in "\n".join(lines(timeline))
        last = trace.event_count - 1
        timeline.select_event(last)
        await pilot.pause()
        assert timeline.scroll_y > 0
        shown = lines(timeline)
        cursor_y = screen_row(timeline, lambda r: r.track == 59)
        assert "stream 59" in shown[cursor_y]
        label = next(iter(timeline.render_line(cursor_y)))
        assert label.style is not None and label.style.reverse
        # The axis stays on top while tracks scroll.
        assert shown[0].startswith("span")
        await pilot.press("up", "up")
        assert timeline._rows[timeline.cursor_row].track == 57
        await pilot.press("shift+up")
        assert timeline._rows[timeline.cursor_row].track == 56
        await pilot.press("shift+down", "shift+down")
        assert timeline._rows[timeline.cursor_row].track == 58


@pilot_test
async def test_an_empty_trace_draws_and_ignores_keys() -> None:
    trace = synthetic_streams(1, 0)
    app = TimelineApp(trace)
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        await pilot.press("w", "s", "a", "d", "up", "down", "enter", "x", "home", "end")
        assert len(lines(timeline)) == 24
        assert app.is_running


@pilot_test
async def test_shift_up_down_jump_between_tracks(gpu_trace: Trace) -> None:
    app = TimelineApp(gpu_trace)
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        first = timeline.cursor_row
        assert timeline._rows[first].first_of_track
        await pilot.press("shift+down")
        row = timeline._rows[timeline.cursor_row]
        assert row.first_of_track and row.track != timeline._rows[first].track
        await pilot.press("shift+up")
        assert timeline.cursor_row == first


@pytest.mark.usefixtures("shared_traces")
@pilot_test
async def test_x_unfolds_a_deep_track_and_folds_it_back() -> None:
    trace = load_trace(NS_TRACE)
    app = TimelineApp(trace)
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        deep = next(row for row in timeline._rows if row.deeper)
        assert (
            "+" in timeline.render_line(screen_row(timeline, lambda r: r is deep)).text
        )
        while timeline._rows[timeline.cursor_row].track != deep.track:
            await pilot.press("shift+down")
        folded = sum(row.track == deep.track for row in timeline._rows)
        await pilot.press("x")
        unfolded = [row for row in timeline._rows if row.track == deep.track]
        assert len(unfolded) == folded + deep.deeper
        assert not any(row.deeper for row in unfolded)
        assert timeline._rows[timeline.cursor_row].track == deep.track
        await pilot.press("x")
        assert sum(row.track == deep.track for row in timeline._rows) == folded


@pytest.mark.usefixtures("shared_traces")
@pilot_test
async def test_the_timeline_draws_exactly_the_cores_gaps_on_a_real_trace() -> None:
    """On a real CUDA trace with a chosen zone: the gap glyph lies exactly on the
    core's gap intervals (zones row: their union; each GPU row: its device's)."""
    trace = load_trace(NS_TRACE)
    analysis = Analysis(trace, ["## forward ##"])
    reading = analysis.zone_reading
    assert reading.gaps and reading.kind == "gpu_idle"
    app = TimelineApp(trace, analysis)
    async with app.run_test(size=(200, 60)):
        timeline = app.query_one(Timeline)
        step = analysis.steps[1]
        timeline.fit(step.start_ns, step.end_ns)
        width = timeline._lane_width()
        edges = timeline._edges(width)
        rows = [("zones", None)] + [
            ("track", track.device)
            for track in trace.tracks
            if track.kind == TrackKind.DEVICE
        ]
        checked = 0
        for role, device in rows:
            y = screen_row(
                timeline,
                lambda row, role=role, device=device: (
                    row.role == role
                    and (
                        role == "zones"
                        or (trace.tracks[row.track].device == device and row.depth == 0)
                    )
                ),
            )
            text = lane_text(timeline, y)
            gaps = (
                reading.gap_union if role == "zones" else reading.gap_intervals[device]
            )
            for cell in range(width):
                low, high = int(edges[cell]), int(edges[cell + 1])
                covered = gaps.covered_ns(low, high)
                if covered == high - low:
                    assert text[cell] == GAP_GLYPH, (role, cell)
                    checked += 1
                elif covered == 0:
                    assert text[cell] != GAP_GLYPH, (role, device, cell)
                    checked += 1
        assert checked > width
