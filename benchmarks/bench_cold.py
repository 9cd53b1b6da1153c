"""Cold open side by side: ``steptrace summary`` against ``orjson.loads``, with and without GC.

For each input (a generated trace, made when missing, and a real capture),
one table row block, each figure a whole process run by ``benchmarks.rss``
(wall seconds, peak memory of its process tree):

* **steptrace cold summary**: ``python -m tui summary TRACE --json`` with the
  column cache off (``STEPTRACE_NO_CACHE=1``); with ``--native``, a second row
  with the native decoder switched on (``STEPTRACE_DECODER=native``);
* **orjson.loads**: read the file (gunzip if ``.gz``) and ``orjson.loads`` it;
* **orjson.loads, GC off**: the same with the garbage collector disabled
  first, so the millions of objects it makes are never walked.

The file is read once first so every run finds it in the page cache; the
minimum of ``--repeat`` runs is kept. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from benchmarks.bench_load import (
    DEFAULT_MTIA,
    ORJSON_LOAD,
    ROOT,
    Run,
    ensure_big,
    measure_once,
    warm_page_cache,
)

DEFAULT_GENERATED = ROOT / "bench-out" / "gen-300m.json"

ORJSON_NO_GC = "import gc; gc.disable()\n" + ORJSON_LOAD


def best_of(
    label: str, command: list[str], env: dict[str, str | None], repeat: int
) -> Run:
    """The fastest of `repeat` whole-process runs (a failure stops at once)."""
    best: Run | None = None
    for index in range(repeat):
        run = measure_once(command, 3600, env)
        state = (
            f"{run.wall_s:.2f} s, {run.peak_mib:.0f} MiB"
            if run.ok
            else f"FAILED ({run.error})"
        )
        print(f"  {label} {index + 1}/{repeat}: {state}", file=sys.stderr, flush=True)
        if not run.ok:
            return run
        if best is None or run.wall_s < best.wall_s:
            best = run
    assert best is not None
    return best


def bench_input(path: Path, repeat: int, native: bool) -> list[tuple[str, Run]]:
    """Every figure of one input, in the table's order."""
    print(f"{path}", file=sys.stderr, flush=True)
    warm_page_cache(path)
    python = sys.executable
    summary = [python, "-m", "tui", "summary", str(path), "--json"]
    cold: dict[str, str | None] = {"STEPTRACE_NO_CACHE": "1", "STEPTRACE_DECODER": None}
    rows = [("steptrace cold summary", best_of("summary", summary, cold, repeat))]
    if native:
        switched = {**cold, "STEPTRACE_DECODER": "native"}
        rows.append(
            (
                "steptrace cold summary, native",
                best_of("native", summary, switched, repeat),
            )
        )
    orjson = [python, "-c", ORJSON_LOAD, str(path)]
    rows.append(("orjson.loads", best_of("orjson", orjson, {}, repeat)))
    no_gc = [python, "-c", ORJSON_NO_GC, str(path)]
    rows.append(("orjson.loads, GC off", best_of("orjson no-GC", no_gc, {}, repeat)))
    return rows


def table(path: Path, rows: list[tuple[str, Run]]) -> list[str]:
    """The row block of one input: wall, peak, and each as a multiple of orjson's."""
    found = dict(rows)
    orjson = found.get("orjson.loads")
    no_gc = found.get("orjson.loads, GC off")
    size = path.stat().st_size / 1e6
    lines = [f"{path.name} ({size:,.0f} MB file)"]
    lines.append(
        f"  {'':32} {'wall s':>8} {'peak MiB':>9} {'x orjson':>9} {'x no-GC':>8} "
        f"{'x memory':>9}"
    )
    for label, run in rows:
        if not run.ok:
            lines.append(f"  {label:32} failed: {run.error}")
            continue
        ratios = [
            _ratio(run.wall_s, orjson.wall_s if orjson and orjson.ok else None),
            _ratio(run.wall_s, no_gc.wall_s if no_gc and no_gc.ok else None),
            _ratio(run.peak_mib, orjson.peak_mib if orjson and orjson.ok else None),
        ]
        lines.append(
            f"  {label:32} {run.wall_s:8.2f} {run.peak_mib:9.0f} {ratios[0]:>9} "
            f"{ratios[1]:>8} {ratios[2]:>9}"
        )
    return lines


def _ratio(value: float, base: float | None) -> str:
    return f"{value / base:.2f}x" if base else "-"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "traces",
        nargs="*",
        type=Path,
        help=f"traces to measure (default: {DEFAULT_GENERATED.relative_to(ROOT)}, "
        "made when missing, and the shared MTIA capture)",
    )
    parser.add_argument(
        "--size-gb", type=float, default=0.3, help="size of the generated trace to make"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per figure (min)")
    parser.add_argument(
        "--native",
        action="store_true",
        help="also time the native decoder (STEPTRACE_DECODER=native)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    traces: list[Path] = args.traces
    if not traces:
        ensure_big(DEFAULT_GENERATED, args.size_gb)
        traces = [DEFAULT_GENERATED, DEFAULT_MTIA]
    load_before = os.getloadavg()
    results = [(path, bench_input(path, args.repeat, args.native)) for path in traces]
    load_after = os.getloadavg()
    for path, rows in results:
        print("\n".join(table(path, rows)))
    print(
        "load average (1/5/15 min) before {:.1f}/{:.1f}/{:.1f}, after "
        "{:.1f}/{:.1f}/{:.1f}".format(*load_before, *load_after)
    )
    failed = any(not run.ok for _, rows in results for _, run in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
