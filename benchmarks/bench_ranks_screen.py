"""Time the ranks screen over a big synthetic run: first frame, then keys.

Usage::

    python -m benchmarks.bench_ranks_screen [--ranks 1024] [--steps 200] [--presses 60] [--size 200x60]

Builds the summaries of a run in memory (no trace is read: the ranks
screen draws from summaries only), with random step times and arrivals,
then opens the ranks screen headless (`run_test`) and prints the time to
its first frame and the CPU time per key (moves, page, sort, values, bars),
each with a full repaint of the screen (as bench_app.py measures). The goal is under 50 ms per keypress. Figures
are for reading; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from tui.app.messages import RunLoaded
from tui.app.screens.ranks import RanksScreen
from tui.core.base.vocab import CollectiveSide, RankSource, StepPhase
from tui.core.figures.breakdown.gpu import Breakdown, KernelTypeTime
from tui.core.figures.collectives import StepCollectives
from tui.core.results.ranks import RanksResult
from tui.core.runs.across import RunAnalysis
from tui.core.runs.discover import RankFile, RunLayout
from tui.core.runs.pool import RankOutcome
from tui.core.runs.rank_summary import RankStep, RankSummary


def _breakdown(span: int, rng: random.Random) -> Breakdown:
    compute = int(span * rng.uniform(0.3, 0.6))
    comm = int(span * rng.uniform(0.1, 0.3))
    idle = span - compute - comm
    return Breakdown(
        span,
        idle,
        compute,
        comm,
        rng.uniform(0, 50),
        (
            KernelTypeTime("COMPUTATION", compute, 60.0),
            KernelTypeTime("COMMUNICATION", comm, 40.0),
        ),
        (),
    )


def synthetic_run(ranks: int, steps: int, seed: int = 7) -> RanksResult:
    """A run of `ranks` ranks and `steps` steps, made of summaries alone."""
    rng = random.Random(seed)
    folder = Path("/synthetic/run")
    files = []
    outcomes = []
    for rank in range(ranks):
        path = folder / f"rank-{rank}.pt.trace.json"
        rank_steps = []
        start = 0
        for number in range(steps):
            duration = int(48e6 * rng.uniform(0.9, 1.3))
            arrival = int(duration * rng.uniform(0.2, 0.9))
            rank_steps.append(
                RankStep(
                    number,
                    StepPhase.ACTIVE,
                    start,
                    duration,
                    None,
                    StepCollectives(arrival, duration - arrival, 3),
                    None,
                    _breakdown(duration, rng),
                )
            )
            start += duration
        summary = RankSummary(
            str(path), 0, rank, ranks, "ms/step", True, None, CollectiveSide.GPU,
            (), tuple(rank_steps), None, _breakdown(start, rng), 0, (),
        )  # fmt: skip
        files.append(RankFile(path, rank, RankSource.DISTRIBUTED_INFO, 0))
        outcomes.append(RankOutcome(str(path), summary, None, 0.0))
    layout = RunLayout(folder, tuple(files), ranks, ())
    return RanksResult.of(RunAnalysis.of(layout, outcomes))


async def measure(result: RanksResult, size: tuple[int, int], presses: int) -> None:
    from textual.app import App

    class Bench(App[None]):
        CSS_PATH = Path(__file__).resolve().parents[1] / "tui/app/steptrace.tcss"

        def on_mount(self) -> None:
            self.push_screen(RanksScreen(RunLoaded(Path("/synthetic/run"), result)))

    began = time.perf_counter()
    app = Bench()
    async with app.run_test(size=size) as pilot:
        while not isinstance(app.screen, RanksScreen):
            await pilot.pause()
        await pilot.pause()
        print(f"first frame of the ranks screen: {time.perf_counter() - began:.3f} s")
        for keys, label in (
            (["down"] * presses, "down"),
            (["right"] * presses, "right"),
            (["pagedown"] * (presses // 4), "pagedown"),
            (["o"] * 5, "o (sort)"),
            (["v"] * 4, "v (values)"),
            (["i"] * 4, "i (idle share)"),
            (["b"] * 4, "b (bars scope)"),
        ):
            times: list[float] = []
            for key in keys:
                started = time.process_time()
                await pilot.press(key)
                app.screen._compositor.render_update(full=True)
                times.append(time.process_time() - started)
            print(
                f"{label:>15}: key + full repaint, CPU median"
                f" {1000 * statistics.median(times):6.1f} ms,"
                f" max {1000 * max(times):6.1f} ms over {len(times)}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--presses", type=int, default=60)
    parser.add_argument("--size", default="200x60")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    began = time.perf_counter()
    result = synthetic_run(args.ranks, args.steps)
    built = time.perf_counter() - began
    print(
        f"{args.ranks} ranks x {args.steps} steps; summaries read across in {built:.2f} s"
    )
    asyncio.run(measure(result, (width, height), args.presses))


if __name__ == "__main__":
    main()
