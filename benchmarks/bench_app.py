#!/usr/bin/env python3
"""Time the whole explorer on a big trace: first interactive frame, then keys.

Usage::

    bench_app.py [TRACE] [--presses 150] [--size 200x60] [--op-rows 100000]

Runs the app headless (`run_test`) on the trace (the 85 MB MTIA trace by
default) and prints: the time from start to the first frame of the main
screen (load in the worker included), the cost of zoom/pan keys with every
widget on screen (a full repaint of the screen after each key), and the
operator table's cost at `--op-rows` distinct operators (a synthetic table:
render the visible rows, sort, filter, toggle self/total). The goal is under
50 ms per keypress. Figures are for reading; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

import numpy as np
from textual.app import App, ComposeResult

from tui.app.app import StepTraceApp
from tui.app.screens.main import MainScreen
from tui.app.widgets.op_table import OperatorTable
from tui.core.analysis import OpTable

DEFAULT_TRACE = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "traces"
    / "mtia_trace_single_rank-mtia_rank_0.json.gz"
)
PATTERN = ["w"] * 12 + ["d"] * 8 + ["a"] * 8 + ["right", "left"] * 4 + ["s"] * 12


def summary(name: str, timings: list[float]) -> str:
    """Mean, median, p95 and max of milliseconds."""
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{name:<34} mean {statistics.fmean(timings):6.1f} ms  "
        f"p50 {statistics.median(timings):6.1f}  p95 {p95:6.1f}  "
        f"max {ordered[-1]:6.1f}"
    )


def repaint(app: App[object]) -> None:
    """Render every line of the screen, as a terminal refresh would."""
    app.screen._compositor.render_update(full=True)


async def bench_app(path: Path, presses: int, size: tuple[int, int]) -> None:
    """First frame, then per-key cost in the full app."""
    app = StepTraceApp(path)
    app.animation_level = "none"
    began = time.perf_counter()
    async with app.run_test(size=size) as pilot:
        while not isinstance(app.screen, MainScreen):
            await asyncio.sleep(0.005)
        await pilot.pause()
        repaint(app)
        first_frame = time.perf_counter() - began
        print(f"first interactive frame: {first_frame:.2f} s (load + analysis + mount)")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        print(
            f"events: {screen.trace.event_count:,}  operators: {len(screen.window_table):,}"
        )
        cpu: list[float] = []
        wall: list[float] = []
        frame: list[float] = []
        for index in range(presses):
            key = PATTERN[index % len(PATTERN)]
            wall_began = time.perf_counter()
            cpu_began = time.process_time()
            await pilot.press(key)
            frame_began = time.perf_counter()
            repaint(app)
            frame.append((time.perf_counter() - frame_began) * 1000)
            cpu.append((time.process_time() - cpu_began) * 1000)
            wall.append((time.perf_counter() - wall_began) * 1000)
        print(f"terminal {size[0]}x{size[1]}, {presses} zoom/pan keys")
        print(summary("key + full repaint, CPU time", cpu))
        print(summary("full repaint alone", frame))
        print(summary("key, wall (pilot waits included)", wall))
        for key in ("g", "b", "t", "right_square_bracket", "S", "n"):
            cpu_began = time.process_time()
            await pilot.press(key)
            repaint(app)
            print(
                f"  key {key!r:<24} CPU {(time.process_time() - cpu_began) * 1000:7.1f} ms"
            )
        # The zone picker: open it, then switch zones (recomputed in a worker).
        cpu_began = time.process_time()
        await pilot.press("z")
        repaint(app)
        print(
            f"  key 'z' (picker opens)         CPU {(time.process_time() - cpu_began) * 1000:7.1f} ms"
        )
        await pilot.press("escape")
        names = [c.name for c in screen.analysis.zone_candidates()[:1]]
        began = time.perf_counter()
        cpu_began = time.process_time()
        screen.apply_zone(tuple(names))
        await app.workers.wait_for_complete()
        await pilot.pause()
        repaint(app)
        print(
            f"  zone -> {names[0][:30]!r}: {(time.perf_counter() - began) * 1000:.0f} ms"
            f" to redraw (worker included), CPU {(time.process_time() - cpu_began) * 1000:.0f} ms"
        )
        cpu_began = time.process_time()
        found = screen.search("aten")
        repaint(app)
        print(
            f"  search 'aten' ({found:,} matches)  "
            f"{(time.process_time() - cpu_began) * 1000:7.1f} ms"
        )


def synthetic_table(rows: int) -> OpTable:
    """`rows` distinct operators with random figures."""
    generator = np.random.default_rng(7)
    calls = generator.integers(1, 1000, rows).astype(np.int64)
    self_cpu = generator.integers(1_000, 10_000_000, rows).astype(np.int64)
    self_gpu = generator.integers(0, 10_000_000, rows).astype(np.int64)
    return OpTable(
        names=[f"aten::synthetic_op_{index:06d}" for index in range(rows)],
        calls=calls,
        self_cpu_ns=self_cpu,
        total_cpu_ns=self_cpu * 2,
        self_gpu_ns=self_gpu,
        total_gpu_ns=self_gpu * 2,
    )


class TableOnly(App[None]):
    """Just the operator table."""

    def __init__(self, table: OpTable) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        yield OperatorTable(self.table)


async def bench_table(rows: int, size: tuple[int, int]) -> None:
    """Operator table costs at many rows: visible-only rendering."""
    table = synthetic_table(rows)
    began = time.perf_counter()
    app = TableOnly(table)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        widget = app.query_one(OperatorTable)
        repaint(app)
        print(
            f"operator table, {rows:,} rows: first frame {time.perf_counter() - began:.2f} s"
        )

        def timed(name: str, action: object) -> None:
            start = time.perf_counter()
            action()  # type: ignore[operator]
            repaint(app)
            print(f"  {name:<32} {(time.perf_counter() - start) * 1000:7.1f} ms")

        timed("repaint", lambda: None)
        timed("cursor down x1", lambda: widget.action_cursor(1))
        timed("page down", lambda: widget.action_page(1))
        timed("end", lambda: widget.action_edge(1))
        timed("toggle self/total", lambda: widget.set_mode("total"))
        timed("sort by calls", lambda: widget.set_sort("calls"))
        timed("sort by name", lambda: widget.set_sort("name"))
        timed("filter '0123'", lambda: widget.set_filter("0123"))
        timed("clear filter", lambda: widget.set_filter(""))
        await pilot.pause()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", default=str(DEFAULT_TRACE))
    parser.add_argument("--presses", type=int, default=150)
    parser.add_argument("--size", default="200x60")
    parser.add_argument("--op-rows", type=int, default=100_000)
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    print(f"trace: {Path(args.trace).name}")
    asyncio.run(bench_app(Path(args.trace), args.presses, (width, height)))
    asyncio.run(bench_table(args.op_rows, (width, height)))


if __name__ == "__main__":
    main()
