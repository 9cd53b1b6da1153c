"""Views benchmark: `steptrace kernels` (and copies, memory, ops by shape) from the column cache.

The goal: `steptrace kernels` on the 85 MB shared MTIA trace in under
1 s once the trace is in the column cache. One run fills a private cache
(the first open), then each command runs `--repeat` times as a fresh process
(`python -m tui COMMAND TRACE --json`, output discarded), and the median,
min and max wall times are printed. An in-process breakdown of one kernels
run (load from the cache, analysis, the result, its JSON) says where the
time goes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = (
    ROOT.parent / "shared" / "traces" / "mtia_trace_single_rank-mtia_rank_0.json.gz"
)
GOAL_S = 1.0
COMMANDS = (
    ("kernels", ["kernels"]),
    ("copies", ["copies"]),
    ("memory", ["memory"]),
    ("ops by shape", ["ops", "--group-by", "shape"]),
)


def _run(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tui", *argv],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def _breakdown(trace: Path) -> list[tuple[str, float]]:
    """One kernels run in this process, phase by phase (the cache is already filled)."""
    from tui.core.base.vocab import CacheUse
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace
    from tui.core.results.kernels import KernelsResult

    marks: list[tuple[str, float]] = []
    started = time.perf_counter()
    loaded = load_trace(trace, cache=CacheUse.AUTO)
    marks.append(("load from the cache", time.perf_counter() - started))
    started = time.perf_counter()
    result = KernelsResult.of(Analysis(loaded))
    marks.append(("kernel figures", time.perf_counter() - started))
    started = time.perf_counter()
    result.to_json()
    marks.append(("JSON", time.perf_counter() - started))
    return marks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--repeat", type=int, default=5, help="runs per command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="steptrace-bench-views-") as cache:
        env = dict(os.environ, STEPTRACE_CACHE_DIR=cache)
        env.pop("STEPTRACE_NO_CACHE", None)
        first = _run(["summary", str(args.trace), "--json"], env)
        print(f"{args.trace.name}: first open (fills the cache) {first:.2f} s")
        print(
            f"{'command':<14} {'median':>8} {'min':>8} {'max':>8}  (s, {args.repeat} runs)"
        )
        medians: dict[str, float] = {}
        for label, words in COMMANDS:
            times = [
                _run([*words, str(args.trace), "--json"], env)
                for _ in range(args.repeat)
            ]
            medians[label] = statistics.median(times)
            print(
                f"{label:<14} {medians[label]:>8.3f} {min(times):>8.3f} "
                f"{max(times):>8.3f}"
            )
        os.environ["STEPTRACE_CACHE_DIR"] = cache
        print("kernels in one process:")
        for phase, seconds in _breakdown(args.trace):
            print(f"  {phase:<22} {seconds:.3f} s")
    verdict = "met" if medians["kernels"] < GOAL_S else "NOT met"
    print(f"goal: kernels from the cache under {GOAL_S:.0f} s — {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
