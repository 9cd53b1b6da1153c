#!/usr/bin/env python3
"""Time the whole explorer on a big trace: first interactive frame, then keys.

Usage::

    bench_app.py [TRACE] [--presses 150] [--size 200x60] [--op-rows 100000]
                 [--memory-events 1000000]

Runs the app headless (`run_test`) on the trace (the 85 MB MTIA trace by
default) and prints: the time from start to the first frame of the main
screen (load in the worker included), the cost of zoom/pan keys with every
widget on screen (a full repaint of the screen after each key), and the
operator table's cost at `--op-rows` distinct operators (a synthetic table:
render the visible rows, sort, filter, toggle self/total), the keys of the
Kernels and Copies tabs and of rows by input shape (with the time their
workers take to read), and a memory lane over `--memory-events` allocations.
The goal is under 50 ms per keypress. Figures are for reading; nothing is
asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

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
            # The UI thread's CPU is what the key costs the user; work a key
            # hands to a worker thread (S: a step's table) is counted apart.
            ui_began = time.thread_time()
            cpu_began = time.process_time()
            await pilot.press(key)
            repaint(app)
            ui = (time.thread_time() - ui_began) * 1000
            await app.workers.wait_for_complete()
            await pilot.pause()
            repaint(app)
            print(
                f"  key {key!r:<24} UI CPU {ui:7.1f} ms, all threads "
                f"{(time.process_time() - cpu_began) * 1000:7.1f} ms"
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
        await bench_views(app, pilot)


async def timed_key(app: App[object], pilot: Any, name: str, *keys: str) -> float:
    """UI-thread CPU time of a key and a full repaint (workers it starts are
    timed apart, by `until_read`), printed; milliseconds per key."""
    cpu_began = time.thread_time()
    await pilot.press(*keys)
    repaint(app)
    cost = (time.thread_time() - cpu_began) * 1000 / len(keys)
    per = f" (per key, {len(keys)} keys)" if len(keys) > 1 else ""
    print(f"  {name:<34} UI CPU {cost:7.1f} ms{per}")
    return cost


async def until_read(app: App[object], pilot: Any, name: str, ready: Any) -> None:
    """Wall time until a tab's worker has read its figures and they are drawn."""
    began = time.perf_counter()
    while not ready():
        await app.workers.wait_for_complete()
        await pilot.pause()
    repaint(app)
    print(
        f"  {name:<34} {(time.perf_counter() - began) * 1000:7.0f} ms to read and draw"
    )


async def bench_views(app: App[object], pilot: Any) -> None:
    """The Kernels and Copies tabs and rows by shape: keys on the UI, reading in workers."""
    from tui.app.widgets.copies_view import CopiesView
    from tui.app.widgets.kernel_table import KernelTable

    screen = app.screen
    assert isinstance(screen, MainScreen)
    print("views (Kernels, Copies, rows by shape)")
    kernels = screen.query_one(KernelTable)
    await timed_key(app, pilot, "key '4' (Kernels tab opens)", "4")
    await until_read(
        app,
        pilot,
        "kernels",
        lambda: kernels.message is None or kernels.rows is not None,
    )
    for name, keys in (
        ("cursor down", ("down",)),
        ("sort by next column (o)", ("o",)),
        ("reverse (r)", ("r",)),
        ("Enter: mark a kernel's occurrences", ("enter",)),
        ("n: next occurrence", ("n",)),
        ("F (filter prompt)", ("F",)),
        ("type 'mul'", tuple("mul")),
        ("Enter (filter applied)", ("enter",)),
    ):
        await timed_key(app, pilot, name, *keys)
    await timed_key(app, pilot, "v (details opens)", "v")
    await timed_key(app, pilot, "Esc (details closes)", "escape")
    copies = screen.query_one(CopiesView)
    await timed_key(app, pilot, "key '5' (Copies tab opens)", "5")
    await until_read(
        app,
        pilot,
        "copies",
        lambda: (
            copies.reading is not None
            or (copies.message or "").startswith(("Copies:", "No copy"))
        ),
    )
    await timed_key(app, pilot, "cursor down", "down")
    await timed_key(app, pilot, "Enter: mark a line's copies", "enter")
    await timed_key(app, pilot, "n: next copy", "n")
    ops = screen.ops
    await timed_key(app, pilot, "key '1' (operators)", "1")
    await timed_key(app, pilot, "i (rows by shape)", "i")
    await until_read(app, pilot, "rows by shape", lambda: ops.shapes_state != "reading")
    await timed_key(app, pilot, "i (back to rows by name)", "i")


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


def bench_memory_lane(events: int, width: int) -> None:
    """The memory lane's cost at many allocations: build once, then one view."""
    from tui.core.memory import DeviceMemory
    from tui.view.cells import Viewport
    from tui.view.memory_lane import MemoryLane

    generator = np.random.default_rng(7)
    times = np.cumsum(generator.integers(1, 1000, events)).astype(np.int64)
    totals = generator.integers(0, 1 << 34, events).astype(np.int64)
    began = time.perf_counter()
    lane = MemoryLane.build(DeviceMemory("cuda:0", times, totals))
    built = time.perf_counter() - began
    view = Viewport(0, int(times[-1]), width)
    began = time.perf_counter()
    cells = lane.cells(view)
    drawn = time.perf_counter() - began
    print(
        f"memory lane, {events:,} allocations: index {built * 1000:.1f} ms, "
        f"one line at {width} cells {drawn * 1000:.2f} ms ({cells.examined:,} nodes read)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", default=str(DEFAULT_TRACE))
    parser.add_argument("--presses", type=int, default=150)
    parser.add_argument("--size", default="200x60")
    parser.add_argument("--op-rows", type=int, default=100_000)
    parser.add_argument("--memory-events", type=int, default=1_000_000)
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    print(f"trace: {Path(args.trace).name}")
    asyncio.run(bench_app(Path(args.trace), args.presses, (width, height)))
    asyncio.run(bench_table(args.op_rows, (width, height)))
    bench_memory_lane(args.memory_events, width)


if __name__ == "__main__":
    main()
