"""Time the timeline's response to zoom and pan keys on a big trace, re-render included.

Usage::

    python -m benchmarks.bench_timeline [TRACE] [--presses 200] [--size 200x60]

Loads the trace (the 85 MB MTIA trace by default), mounts only the timeline in
a headless app, presses zoom/pan keys and, after each press, waits for the
screen to be redrawn. Prints mean and p95 milliseconds per keypress; the goal
is under 50 ms at 456k events. No assertion: figures are for reading.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from textual.app import App, ComposeResult

from tui.app.widgets.timeline import Timeline
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Trace
from tui.view.layout import ZoneView
from tui.view.timeline_index import TimelineIndex

DEFAULT_TRACE = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "traces"
    / "mtia_trace_single_rank-mtia_rank_0.json.gz"
)
# Zoom in a while, pan both ways, zoom back out: every press moves the view.
PATTERN = ["w"] * 12 + ["d"] * 8 + ["a"] * 8 + ["right", "left"] * 4 + ["s"] * 12


class TimelineOnly(App[None]):
    """Just the timeline, as the explorer would show it."""

    def __init__(self, trace: Trace, analysis: Analysis) -> None:
        super().__init__()
        self.trace = trace
        self.analysis = analysis

    def compose(self) -> ComposeResult:
        yield Timeline(self.trace, self.analysis)


@dataclass
class Figures:
    """Per-keypress costs, in milliseconds."""

    cpu: list[float]  # process CPU time of press + redraw: the work done
    wall: list[float]  # includes the pilot's waits for the app to go idle
    render: list[float]  # the key's action plus rendering every visible line
    examined: int


async def measure(
    trace: Trace, analysis: Analysis, presses: int, size: tuple[int, int]
) -> Figures:
    """Press keys through the pilot, then repeat the same actions straight on the widget."""
    app = TimelineOnly(trace, analysis)
    figures = Figures([], [], [], 0)
    async with app.run_test(size=size) as pilot:
        timeline = app.query_one(Timeline)
        timeline.focus()
        await pilot.pause()
        timeline.events_examined = 0
        for index in range(presses):
            key = PATTERN[index % len(PATTERN)]
            wall_began = time.perf_counter()
            cpu_began = time.process_time()
            await pilot.press(key)
            await pilot.pause()
            figures.cpu.append((time.process_time() - cpu_began) * 1000)
            figures.wall.append((time.perf_counter() - wall_began) * 1000)
        figures.examined = timeline.events_examined
        # The same keys without the event loop: action, then every visible line.
        timeline.fit(0, timeline.total_ns)
        height = timeline.size.height
        for index in range(presses):
            key = PATTERN[index % len(PATTERN)]
            began = time.perf_counter()
            if key == "w":
                timeline.action_zoom_in()
            elif key == "s":
                timeline.action_zoom_out()
            else:
                timeline.action_pan(1 if key in ("d", "right") else -1)
            for y in range(height):
                timeline.render_line(y)
            figures.render.append((time.perf_counter() - began) * 1000)
    return figures


def summary(name: str, timings: list[float]) -> str:
    """Mean, median, p95 and max of a list of milliseconds."""
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{name:<28} mean {statistics.fmean(timings):6.1f} ms  "
        f"p50 {statistics.median(timings):6.1f} ms  p95 {p95:6.1f} ms  "
        f"max {ordered[-1]:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", default=str(DEFAULT_TRACE))
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--size", default="200x60")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))

    began = time.perf_counter()
    trace = load_trace(args.trace)
    analysis = Analysis(trace)
    _ = analysis.depth, analysis.gaps, analysis.steps
    loaded = time.perf_counter() - began
    print(f"trace: {Path(args.trace).name}")
    print(f"events: {trace.event_count:,}  load+analysis: {loaded:.2f} s")

    began = time.perf_counter()
    index = TimelineIndex.build(trace, analysis)
    zone_view = ZoneView.build(index, analysis)
    built = time.perf_counter() - began
    print(f"timeline index build (in the load worker): {built * 1000:.0f} ms")
    began = time.perf_counter()
    Timeline(trace, analysis, index=index, zone_view=zone_view)
    print(
        f"timeline widget from the index: {(time.perf_counter() - began) * 1000:.0f} ms"
    )

    figures = asyncio.run(measure(trace, analysis, args.presses, (width, height)))
    print(f"terminal: {width}x{height}  presses: {args.presses}")
    print(summary("keypress, CPU time", figures.cpu))
    print(summary("keypress, wall (pilot)", figures.wall))
    print(
        "  (wall includes the pilot's idle polling: at least 3 sleeps of 20 ms per press)"
    )
    print(summary("action + render all lines", figures.render))
    print(f"events examined per keypress: {figures.examined / args.presses:,.0f}")


if __name__ == "__main__":
    main()
