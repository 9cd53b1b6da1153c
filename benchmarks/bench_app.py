"""Time the explorer on big traces: the first frame, then every key, against the 50 ms goal.

Usage::

    python -m benchmarks.bench_app [TRACE ...] [--repeat 5] [--presses 60] [--size 200x60]
                                   [--op-rows 100000] [--memory-events 1000000] [--summary-only]

Without TRACE: the 85 MB shared MTIA trace and `bench-out/big-1g.json` (the
1.1 GB generated trace; `python -m tests.support.tracegen --size-gb 1.1 -o
bench-out/big-1g.json` makes it). Traces are read from the column cache:
`$STEPTRACE_CACHE_DIR` when set (bench_load.py sets its own), else a private
temporary cache filled by one cold `steptrace summary` first — never the
user's cache.

For each trace it prints:

* the first interactive frame, `--repeat` times, each in a fresh process: from
  starting the command (interpreter, imports, the app) to the main screen's
  first paint, and the same from the app's creation;
* every key of a scripted session (timeline, steps and gaps, search, the
  bottom tabs, the operator, kernel and copy tables, filters, dialogs): the
  CPU time of the UI thread from the key press until the workers it starts
  are done and the app is idle again, with a full repaint of the screen as a
  terminal would get it. The workers' own CPU (a step's operator table, the
  kernels read) is not counted; handling their results on the UI thread is.
  The keys that start workers also show the wall time until those are done. A key pressed several times shows its first press, the median and
  the maximum.

Then one table of every key on both traces with the goal (under 50 ms each,
every press), and the operator table and memory lane at sizes no trace here
has (synthetic). Figures are for reading; nothing is asserted. With
`--summary-only` it prints the table of every key alone (bench_goals.py
reads it), without the synthetic sizes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STARTED = time.perf_counter()
ROOT = Path(__file__).resolve().parents[1]
MTIA = ROOT.parent / "shared" / "traces" / "mtia_trace_single_rank-mtia_rank_0.json.gz"
BIG = ROOT / "bench-out" / "big-1g.json"
KEY_GOAL_MS = 50.0
FRAME_GOAL_S = 1.5
# Zoom in a while, pan both ways, zoom back out: every press moves the view.
PATTERN = ["w"] * 12 + ["d"] * 8 + ["a"] * 8 + ["right", "left"] * 4 + ["s"] * 12


# -- the first frame, in a fresh process --------------------------------------------


def first_frame_child(path: Path, size: tuple[int, int]) -> None:
    """Open the app, print when the main screen is first painted, exit."""
    from tui.app.app import StepTraceApp
    from tui.app.screens.main import MainScreen

    async def run() -> None:
        app = StepTraceApp(path)
        app.animation_level = "none"
        created = time.perf_counter()
        async with app.run_test(size=size) as pilot:
            while not isinstance(app.screen, MainScreen):
                await asyncio.sleep(0.002)
            painted = asyncio.Event()
            app.screen.call_after_refresh(painted.set)
            await painted.wait()
            now = time.perf_counter()
            print(f"painted {now - created:.4f} {now - STARTED:.4f}", flush=True)
            await pilot.pause()

    asyncio.run(run())


@dataclass
class Frames:
    """First-frame seconds of each run: from the command, and from the app's creation."""

    command: list[float] = field(default_factory=list)
    app: list[float] = field(default_factory=list)


def first_frames(path: Path, size: tuple[int, int], repeat: int) -> Frames:
    """`repeat` fresh processes, each timed until the main screen is painted."""
    frames = Frames()
    for _ in range(repeat):
        began = time.perf_counter()
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmarks.bench_app",
                str(path),
                "--first-frame",
                "--size",
                f"{size[0]}x{size[1]}",
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        line = child.stdout.readline()
        seen = time.perf_counter() - began
        _, stderr = child.communicate(timeout=900)
        if not line.startswith("painted"):
            raise SystemExit(f"first-frame run failed: {stderr.strip()[-500:]}")
        frames.command.append(seen)
        frames.app.append(float(line.split()[1]))
    return frames


# -- keys, in one session --------------------------------------------------------------


@dataclass
class Key:
    """One line of the session: a label, the keys pressed, how many times."""

    label: str
    keys: tuple[str, ...]
    times: int = 1
    per_key: bool = False  # typing: the cost of each key of `keys`
    then: tuple[str, ...] = ()  # pressed after each time, not timed (closing a dialog)


SESSION: list[Key | str] = [
    "timeline: steps, gaps, view",
    Key("g: next gap", ("g",), 3),
    Key("G: previous gap", ("G",)),
    Key("b: biggest gap", ("b",)),
    Key("]: next step", ("right_square_bracket",), 3),
    Key("[: previous step", ("left_square_bracket",)),
    Key("f: fit the selection", ("f",)),
    Key("f again: the whole window", ("f",)),
    "operator table from the timeline",
    Key("t: self/total", ("t",), 2),
    Key("S: scope step/window", ("S",), 4),
    "search",
    Key("/: the prompt opens", ("slash",)),
    Key("typing in the prompt (per key)", tuple("aten"), per_key=True),
    Key("Enter: matches marked", ("enter",)),
    Key("n: next match", ("n",), 3),
    Key("N: previous match", ("N",)),
    Key("Enter: event details open", ("enter",), 3, then=("escape",)),
    Key("Esc: event details close", ("enter", "escape"), 3),
    Key("Esc: marks cleared", ("escape",)),
    "bottom tabs",
    Key("2: Findings tab", ("2",)),
    Key("3: Notes tab", ("3",)),
    Key("4: Kernels tab (first: reading starts)", ("4",)),
    Key("5: Copies tab (first: reading starts)", ("5",)),
    Key("1: Operators tab", ("1",)),
    Key("1-5: each tab again (per key)", tuple("23451") * 2, per_key=True),
    "operators tab",
    Key("1: Operators", ("1",)),
    Key("cursor down", ("down",), 3),
    Key("o: sort by next column", ("o",), 2),
    Key("r: reverse", ("r",)),
    Key("i: rows by input shape", ("i",)),
    Key("i: back to rows by name", ("i",)),
    Key("F: the filter prompt opens", ("F",)),
    Key("typing a filter (per key)", tuple("mm"), per_key=True),
    Key("Enter: filter applied", ("enter",)),
    Key("F, Ctrl+U, Enter: filter cleared", ("F", "ctrl+u", "enter")),
    "kernels tab",
    Key("4: Kernels", ("4",)),
    Key("cursor down", ("down",), 3),
    Key("o: sort by next column", ("o",), 2),
    Key("r: reverse", ("r",)),
    Key("Enter: a kernel's occurrences marked", ("enter",)),
    Key("n: next occurrence", ("n",), 3),
    Key("4, F: the filter prompt opens", ("4", "F")),
    Key("typing a filter (per key)", tuple("mul"), per_key=True),
    Key("Enter: filter applied", ("enter",)),
    Key("v: details open", ("v",), 3, then=("escape",)),
    Key("Esc: details close", ("v", "escape"), 3),
    "copies tab",
    Key("5: Copies", ("5",)),
    Key("cursor down", ("down",), 3),
    Key("Enter: a line's copies marked", ("enter",)),
    Key("n: next copy", ("n",), 3),
    Key("5, v: details open", ("5", "v"), 3, then=("escape",)),
    "findings tab",
    Key("2: Findings", ("2",)),
    Key("cursor down", ("down",), 2),
    Key("Enter: a finding shown", ("enter",)),
    "dialogs",
    Key("?: help opens", ("question_mark",), 3, then=("escape",)),
    Key("Esc: help closes", ("question_mark", "escape"), 3),
    Key("z: zone picker opens", ("z",), 3, then=("escape",)),
    Key("Esc: zone picker closes", ("z", "escape"), 3),
    Key("m: note form opens", ("m",), 3, then=("escape",)),
    Key("Esc: note form closes", ("m", "escape"), 3),
]
# The keys bench_load.py reads (its `key 'K' UI CPU` lines), by label.
LOAD_KEYS = {
    "g: next gap": "g",
    "b: biggest gap": "b",
    "t: self/total": "t",
    "]: next step": "right_square_bracket",
    "S: scope step/window": "S",
    "n: next match": "n",
}


@dataclass
class Session:
    """What one session measured on one trace."""

    name: str
    events: int = 0
    zoom_pan: list[float] = field(default_factory=list)
    keys: dict[str, list[float]] = field(default_factory=dict)
    reads: dict[str, float] = field(default_factory=dict)  # worker wall ms
    order: list[str] = field(default_factory=list)


def repaint(app: Any) -> None:
    """Render every line of the screen, as a terminal refresh would."""
    app.screen._compositor.render_update(full=True)


async def workers_finished(app: Any) -> None:
    """Wait for the workers running now; one cancelled (a marking superseded
    by the next key, a dismissed screen's) is finished too."""
    from textual.worker import WorkerCancelled

    for worker in list(app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


async def settle(app: Any, pilot: Any) -> None:
    """Let the workers finish and their results be shown (not timed)."""
    for _ in range(3):
        await workers_finished(app)
        await pilot.pause()


async def ui_cost(app: Any, pilot: Any, *keys: str) -> tuple[float, float]:
    """UI-thread CPU (ms) from pressing `keys` until the workers they start are done
    and the app is idle again, with a full repaint; and the wall time (ms) of it."""
    wall = time.perf_counter()
    began = time.thread_time()
    await pilot.press(*keys)
    await workers_finished(app)
    read = time.perf_counter() - wall
    await settle(app, pilot)
    repaint(app)
    return (time.thread_time() - began) * 1000, read * 1000


async def run_session(path: Path, size: tuple[int, int], presses: int) -> Session:
    """The scripted session on one trace; every key's UI-thread CPU."""
    from tui.app.app import StepTraceApp
    from tui.app.screens.main import MainScreen

    session = Session(path.name)
    app = StepTraceApp(path)
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        while not isinstance(app.screen, MainScreen):
            await asyncio.sleep(0.005)
        await settle(app, pilot)
        screen = app.screen
        session.events = screen.trace.event_count
        for index in range(presses):
            cost, _ = await ui_cost(app, pilot, PATTERN[index % len(PATTERN)])
            session.zoom_pan.append(cost)
        section = ""
        for item in SESSION:
            if isinstance(item, str):
                section = item
                continue
            label = f"{section}: {item.label}"
            costs = session.keys.setdefault(label, [])
            session.order.append(label)
            for _ in range(item.times):
                if item.per_key:
                    for key in item.keys:
                        costs.append((await ui_cost(app, pilot, key))[0])
                    continue
                # Untimed keys first (open the dialog, show the tab), then the last.
                if len(item.keys) > 1:
                    await pilot.press(*item.keys[:-1])
                    await settle(app, pilot)
                cost, wall = await ui_cost(app, pilot, item.keys[-1])
                costs.append(cost)
                if item.keys[-1] in ("4", "5", "S", "i") and label not in session.reads:
                    session.reads[label] = wall
                if item.then:
                    await pilot.press(*item.then)
                    await settle(app, pilot)
        session.reads.update(await zone_switch(app, pilot))
    return session


async def zone_switch(app: Any, pilot: Any) -> dict[str, float]:
    """Choose another data zone: the worker's wall time until the screen shows it."""
    screen = app.screen
    names = tuple(c.name for c in screen.analysis.zone_candidates()[:1])
    if not names:
        return {}
    began = time.perf_counter()
    screen.apply_zone(names)
    await settle(app, pilot)
    repaint(app)
    return {f"zone -> {names[0][:30]} (worker)": (time.perf_counter() - began) * 1000}


# -- synthetic sizes: the operator table and the memory lane ---------------------------


async def bench_table(rows: int, size: tuple[int, int]) -> list[str]:
    """Operator table costs at many rows: only visible rows are drawn."""
    import numpy as np
    from textual.app import App, ComposeResult

    from tui.app.widgets.op_table import OperatorTable
    from tui.core.figures.analysis import OpTable

    generator = np.random.default_rng(7)
    calls = generator.integers(1, 1000, rows).astype(np.int64)
    self_cpu = generator.integers(1_000, 10_000_000, rows).astype(np.int64)
    self_gpu = generator.integers(0, 10_000_000, rows).astype(np.int64)
    table = OpTable(
        names=[f"aten::synthetic_op_{index:06d}" for index in range(rows)],
        calls=calls,
        self_cpu_ns=self_cpu,
        total_cpu_ns=self_cpu * 2,
        self_gpu_ns=self_gpu,
        total_gpu_ns=self_gpu * 2,
    )

    class TableOnly(App[None]):
        def compose(self) -> ComposeResult:
            yield OperatorTable(table)

    lines = []
    began = time.perf_counter()
    app = TableOnly()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        widget = app.query_one(OperatorTable)
        repaint(app)
        lines.append(
            f"operator table, {rows:,} rows: first frame {time.perf_counter() - began:.2f} s"
        )
        actions: list[tuple[str, Callable[[], object]]] = [
            ("repaint", lambda: None),
            ("cursor down x1", lambda: widget.action_cursor(1)),
            ("page down", lambda: widget.action_page(1)),
            ("end", lambda: widget.action_edge(1)),
            ("toggle self/total", lambda: widget.set_mode("total")),
            ("sort by calls", lambda: widget.set_sort("calls")),
            ("sort by name", lambda: widget.set_sort("name")),
            ("filter '0123'", lambda: widget.set_filter("0123")),
            ("clear filter", lambda: widget.set_filter("")),
        ]
        for name, action in actions:
            start = time.perf_counter()
            action()
            repaint(app)
            lines.append(f"  {name:<32} {(time.perf_counter() - start) * 1000:7.1f} ms")
        await pilot.pause()
    return lines


def bench_memory_lane(events: int, width: int) -> str:
    """The memory lane's cost at many allocations: build once, then one view."""
    import numpy as np

    from tui.core.figures.memory import DeviceMemory
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
    return (
        f"memory lane, {events:,} allocations: index {built * 1000:.1f} ms, "
        f"one line at {width} cells {drawn * 1000:.2f} ms ({cells.examined:,} nodes read)"
    )


# -- printing ------------------------------------------------------------------------------


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def print_trace(session: Session, frames: Frames, size: tuple[int, int]) -> None:
    """One trace's figures, in the lines bench_load.py reads, then the session's."""
    command = statistics.median(frames.command)
    print(
        f"first interactive frame: {command:.2f} s (median of {len(frames.command)} "
        f"fresh processes, from the command; {min(frames.command):.2f}-"
        f"{max(frames.command):.2f} s; from the app's creation "
        f"{statistics.median(frames.app):.2f} s)"
    )
    print(f"events: {session.events:,}  terminal {size[0]}x{size[1]}")
    zoom = session.zoom_pan
    print(
        f"key + full repaint, CPU time       mean {statistics.fmean(zoom):6.1f} ms  "
        f"p50 {statistics.median(zoom):6.1f}  p95 {_p95(zoom):6.1f}  "
        f"max {max(zoom):6.1f}  ({len(zoom)} zoom/pan keys)"
    )
    for label, key in LOAD_KEYS.items():
        costs = next(c for name, c in session.keys.items() if name.endswith(label))
        print(f"  key {key!r:<24} UI CPU {max(costs):7.1f} ms")
    for label, wall in session.reads.items():
        print(f"  {label[:52]:<52} {wall:7.0f} ms until its workers are done")


def _cell(costs: list[float] | None) -> str:
    if not costs:
        return f"{'-':>17}"
    if len(costs) == 1:
        return f"{costs[0]:7.1f}{'':>10}"
    return f"{costs[0]:7.1f} {statistics.median(costs):4.0f} {max(costs):4.0f}"


def print_table(sessions: list[Session], frames: list[Frames]) -> None:
    """Every key on every trace, first press / median / max, against the goal."""
    print()
    names = "".join(f"{s.name[:17]:>19}" for s in sessions)
    print(f"{'UI-thread CPU per key, ms':<46}{names}  goal < {KEY_GOAL_MS:.0f} ms")
    heads = "".join(f"{'first  med  max':>19}" for _ in sessions)
    print(f"{'':<46}{heads}")
    missed: list[str] = []
    section = ""
    for item in [Key("zoom/pan (timeline)", ()), *SESSION]:
        if isinstance(item, str):
            section = item
            print(f"-- {item}")
            continue
        rows = [
            s.zoom_pan
            if item.label.startswith("zoom/pan")
            else s.keys.get(f"{section}: {item.label}")
            for s in sessions
        ]
        worst = max((max(r) for r in rows if r), default=0.0)
        met = worst < KEY_GOAL_MS
        if not met:
            missed.append(f"{section}: {item.label} ({worst:.0f} ms)")
        cells = "".join(f"  {_cell(r)}" for r in rows)
        print(f"  {item.label[:44]:<44}{cells}  {'met' if met else 'NOT MET'}")
    print()
    for session, frame in zip(sessions, frames, strict=True):
        command = statistics.median(frame.command)
        print(
            f"first frame, {session.name}: {command:.2f} s from the command "
            f"({statistics.median(frame.app):.2f} s from the app's creation): goal "
            f"<= {FRAME_GOAL_S} s: {'MET' if command <= FRAME_GOAL_S else 'NOT MET'}"
        )
    print(
        "every key under 50 ms, every press: "
        + ("MET" if not missed else "NOT MET: " + "; ".join(missed))
    )


# -- main ------------------------------------------------------------------------------------


def private_cache(paths: list[Path]) -> tempfile.TemporaryDirectory[str] | None:
    """A temporary cache filled by one cold summary of each trace (unless the caller set one)."""
    if os.environ.get("STEPTRACE_CACHE_DIR"):
        return None
    folder = tempfile.TemporaryDirectory(prefix="steptrace-bench-app-")
    os.environ["STEPTRACE_CACHE_DIR"] = folder.name
    os.environ.pop("STEPTRACE_NO_CACHE", None)
    for path in paths:
        print(
            f"filling a private cache: steptrace summary {path.name}", file=sys.stderr
        )
        subprocess.run(
            [sys.executable, "-m", "tui", "summary", str(path)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            check=True,
        )
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=5, help="first-frame runs")
    parser.add_argument("--presses", type=int, default=60, help="zoom/pan keys")
    parser.add_argument("--size", default="200x60")
    parser.add_argument("--op-rows", type=int, default=100_000)
    parser.add_argument("--memory-events", type=int, default=1_000_000)
    parser.add_argument(
        "--summary-only",
        action="store_true",
        help="print only the table of every key on every trace",
    )
    parser.add_argument("--first-frame", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    size = (width, height)
    if args.first_frame:
        first_frame_child(args.traces[0], size)
        return
    paths = args.traces or [path for path in (MTIA, BIG) if path.exists()]
    if not args.traces and not BIG.exists():
        print(
            f"{BIG} is missing (python -m tests.support.tracegen --size-gb 1.1 -o {BIG}): "
            "timing the 85 MB trace only",
            file=sys.stderr,
        )
    cache = private_cache(paths)
    sessions, frames = [], []
    try:
        for path in paths:
            if not args.summary_only:
                print(f"trace: {path.name}")
            # One app opens first, so the cache holds what the app computes.
            first_frames(path, size, 1)
            frame = first_frames(path, size, args.repeat)
            session = asyncio.run(run_session(path, size, args.presses))
            if not args.summary_only:
                print_trace(session, frame, size)
            sessions.append(session)
            frames.append(frame)
        print_table(sessions, frames)
        if args.summary_only:
            return
        print()
        for line in asyncio.run(bench_table(args.op_rows, size)):
            print(line)
        print(bench_memory_lane(args.memory_events, width))
    finally:
        if cache is not None:
            cache.cleanup()


if __name__ == "__main__":
    main()
