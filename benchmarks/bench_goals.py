"""The speed goals, each next to the figure measured, in one run.

* **start-up**: ``steptrace --help``, ``--version`` and an unknown command
  (the installed console script), against 0.15 s;
* **from the cache** (the 1.1 GB generated trace, a private column cache
  filled first): ``summary``, ``ops``, ``gaps``, ``kernels`` as whole
  processes, against 0.30 s each;
* **cold 1.1 GB summary**: ``orjson.loads`` of the file against ``steptrace
  summary`` with the cache off, 1 and 2 workers (goal: 0.18x with 2), and
  the load's phases timed apart in a probe process (the loader's own progress
  callback, no product instrumentation): the parallel part (decoding the
  events array in ranges, until the last worker is done) against the serial
  rest (start-up and imports, locating the array, merging the ranges,
  building, sorting and the summary's figures). From 1 and 2 workers:
  the serial fraction and, by Amdahl's law with the parallel part's measured
  2-worker efficiency held, what 8 and 16 cores would give;
* **52 MB capture with memory events**: ``orjson.loads`` against a cold
  ``summary`` (goal: 0.8x); the capture is made with the collector
  (``steptrace capture --profile-memory`` of benchmarks/memory_train.py) when
  missing;
* **keys**: ``bench_app.py --summary-only`` on the same cache, its table as
  it prints it.

Every timing is the minimum of ``--repeat`` runs (``--cold-repeat`` for the
slow cold ones), bytecode compiled first; the load average is printed before
and after, since the machine may be shared. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
STEPTRACE = ROOT / ".venv" / "bin" / "steptrace"
DEFAULT_BIG = ROOT / "bench-out" / "big-1g.json"
DEFAULT_MEMORY = ROOT / "bench-out" / "memory-52mb.json"
TRAIN = Path(__file__).resolve().with_name("memory_train.py")

ORJSON_LOAD = r"""
import sys, orjson
with open(sys.argv[1], "rb") as f:
    orjson.loads(f.read())
"""

# Times the phases of one cold load through the loader's progress callback.
PHASES = r"""
import json, sys, time
start = time.perf_counter()
from tui.core.base.vocab import CacheUse, LoadPhase
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.summary import SummaryResult
imported = time.perf_counter()
marks = {}
def progress(step):
    now = time.perf_counter()
    marks.setdefault(step.phase.value, now)
    if step.phase is LoadPhase.DECODING:
        marks["decoding_first"] = marks.get("decoding_first", now)
        # Every piece decoded (workers take pieces as they go: their own
        # figures say only what they took so far).
        if step.workers and step.bytes_read >= step.bytes_total:
            marks.setdefault("decoded", now)
        marks["decoding_last"] = now
trace = load_trace(sys.argv[1], workers=int(sys.argv[2]), cache=CacheUse.OFF,
                   progress=progress)
loaded = time.perf_counter()
SummaryResult.of(Analysis(trace))
done = time.perf_counter()
decoding_start = marks.get("decoding_first", imported)
decoded = marks.get("decoded", marks.get("decoding_last", loaded))
print(json.dumps({
    "imports_s": imported - start,
    "before_decoding_s": decoding_start - imported,
    "decoding_s": decoded - decoding_start,
    "after_decoding_s": loaded - decoded,
    "summary_s": done - loaded,
    "total_s": done - start,
}))
"""


def environment(cache: Path | None, *, no_cache: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: bytecode cached
    env.pop("STEPTRACE_NO_CACHE", None)
    if cache is not None:
        env["STEPTRACE_CACHE_DIR"] = str(cache)
    if no_cache:
        env["STEPTRACE_NO_CACHE"] = "1"
    return env


def wall(command: list[str], env: dict[str, str], repeat: int) -> float:
    """The fastest of `repeat` whole runs of a command (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            command,
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        best = min(best, time.perf_counter() - start)
    return best


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def row(goal: str, measured: str, met: bool | None) -> None:
    verdict = {True: "met", False: "MISSED", None: "-"}[met]
    print(f"  {goal:<52} {measured:<34} {verdict}")


def startup(repeat: int) -> None:
    print("start-up (goal: <= 0.15 s each)")
    command = [str(STEPTRACE)] if STEPTRACE.exists() else [str(PYTHON), "-m", "tui"]
    env = environment(None)
    wall([*command, "--version"], env, 1)  # compiles the bytecode
    for label, args in (
        ("steptrace --help", ["--help"]),
        ("steptrace --version", ["--version"]),
        ("steptrace nosuchcommand (argument error)", ["nosuchcommand"]),
    ):
        seconds = wall([*command, *args], env, repeat)
        row(label, f"{seconds:.3f} s", seconds <= 0.15)


def from_cache(big: Path, cache: Path, repeat: int) -> None:
    print(f"from the cache, {big.name} (goal: <= 0.30 s each)")
    env = environment(cache)
    for command in ("summary", "ops", "gaps", "kernels"):
        # The first reopen keeps what it computes (figures, checked files).
        wall([str(PYTHON), "-m", "tui", command, str(big)], env, 1)
    time.sleep(2.5)  # files of an entry are stamped once 2 s old
    floor = wall([str(PYTHON), "-c", "import numpy"], env, repeat)
    row("(floor: python -c 'import numpy')", f"{floor:.3f} s", None)
    for command in ("summary", "ops", "gaps", "kernels"):
        seconds = wall([str(PYTHON), "-m", "tui", command, str(big)], env, repeat)
        row(f"steptrace {command} (cached)", f"{seconds:.3f} s", seconds <= 0.30)


def probe(path: Path, workers: int) -> dict[str, float]:
    result = subprocess.run(
        [str(PYTHON), "-c", PHASES, str(path), str(workers)],
        env=environment(None, no_cache=True),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    phases: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return phases


def cold(big: Path, repeat: int) -> None:
    print(f"cold summary, {big.name} (goal: <= 0.18x orjson.loads with 2 workers)")
    env = environment(None, no_cache=True)
    orjson_s = wall([str(PYTHON), "-c", ORJSON_LOAD, str(big)], env, repeat)
    row("orjson.loads (read + loads)", f"{orjson_s:.2f} s", None)
    summary: dict[int, float] = {}
    for workers in (1, 2):
        summary[workers] = wall(
            [str(PYTHON), "-m", "tui", "summary", str(big), "--workers", str(workers)],
            env,
            repeat,
        )
        ratio = summary[workers] / orjson_s
        row(
            f"summary, {workers} worker{'s' if workers > 1 else ''}",
            f"{summary[workers]:.2f} s = {ratio:.3f}x",
            ratio <= 0.18 if workers == 2 else None,
        )
    phases = {workers: probe(big, workers) for workers in (1, 2)}
    for workers, part in phases.items():
        print(
            f"    phases, {workers} worker(s): "
            + ", ".join(f"{name[:-2]} {value:.2f} s" for name, value in part.items())
        )
    parallel_1 = phases[1]["decoding_s"]
    parallel_2 = phases[2]["decoding_s"]
    serial = phases[1]["total_s"] - parallel_1
    fraction = serial / phases[1]["total_s"]
    efficiency = parallel_1 / (2 * parallel_2) if parallel_2 > 0 else 1.0
    row(
        "serial fraction (1 worker)",
        f"{fraction:.2f} ({serial:.2f} s of {phases[1]['total_s']:.2f} s)",
        None,
    )
    row("parallel part's 2-worker efficiency", f"{efficiency:.2f}", None)
    for cores in (8, 16):
        # Amdahl: the serial part as measured, the parallel part split over
        # `cores` at the 2-worker efficiency (Python's own start, ~0.05 s,
        # is in neither).
        estimate = serial + parallel_1 / (cores * efficiency)
        row(
            f"estimated summary on {cores} cores",
            f"{estimate:.2f} s = {estimate / orjson_s:.3f}x",
            None,
        )


def memory_trace(path: Path) -> Path | None:
    """The 52 MB capture with memory events, made with the collector when missing."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"  capturing {path.name} (about a minute)...", flush=True)
    result = subprocess.run(
        [
            str(PYTHON),
            "-m",
            "tui",
            "capture",
            "--profile-memory",
            "--window",
            "1,1,35",
            "-o",
            str(path),
            "--",
            "python",
            str(TRAIN),
        ],
        cwd=ROOT,
        env=environment(None),
        capture_output=True,
        check=False,
    )
    return path if result.returncode == 0 and path.exists() else None


def memory(path: Path, repeat: int) -> None:
    print(f"cold summary, {path.name} (goal: <= 0.8x orjson.loads)")
    env = environment(None, no_cache=True)
    orjson_s = wall([str(PYTHON), "-c", ORJSON_LOAD, str(path)], env, repeat)
    summary_s = wall([str(PYTHON), "-m", "tui", "summary", str(path)], env, repeat)
    row("orjson.loads (read + loads)", f"{orjson_s:.2f} s", None)
    ratio = summary_s / orjson_s
    row("summary", f"{summary_s:.2f} s = {ratio:.3f}x", ratio <= 0.8)


def keys(big: Path, cache: Path) -> None:
    print("keys (goal: every key < 50 ms): bench_app.py --summary-only")
    result = subprocess.run(
        [str(PYTHON), "-m", "benchmarks.bench_app", "--summary-only"],
        env=environment(cache),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    print(result.stdout.rstrip() or result.stderr[-2000:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", type=Path, default=DEFAULT_BIG)
    parser.add_argument("--memory", type=Path, default=DEFAULT_MEMORY)
    parser.add_argument("--repeat", type=int, default=5, help="runs of quick ones")
    parser.add_argument("--cold-repeat", type=int, default=1, help="runs of cold ones")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=("startup", "cache", "cold", "memory", "keys"),
    )
    args = parser.parse_args()
    print(f"load average before: {load_average()} ({os.cpu_count()} cores)")
    if "startup" not in args.skip:
        startup(args.repeat)
    cache = Path(tempfile.mkdtemp(prefix="steptrace-goals-"))
    try:
        if args.big.exists():
            env = environment(cache)
            if "cache" not in args.skip or "keys" not in args.skip:
                print(f"  filling a private cache from {args.big.name}...", flush=True)
                wall([str(PYTHON), "-m", "tui", "summary", str(args.big)], env, 1)
            if "cache" not in args.skip:
                from_cache(args.big, cache, args.repeat)
            if "cold" not in args.skip:
                cold(args.big, args.cold_repeat)
        else:
            print(
                f"no {args.big} (python -m tests.support.tracegen --size-gb 1.1 makes it)"
            )
        if "memory" not in args.skip:
            found = memory_trace(args.memory)
            if found is None:
                print(f"  no {args.memory.name}: the capture failed (torch needed)")
            else:
                memory(found, args.repeat)
        if "keys" not in args.skip and args.big.exists():
            keys(args.big, cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
