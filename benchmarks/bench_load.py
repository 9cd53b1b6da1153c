"""Load benchmark: ``steptrace summary`` against ``orjson.loads`` and the typed-decoding floor.

One run prints, for each input (the 87 MB MTIA trace from the shared test
data and a generated trace of more than 1 GB), side by side:

* **orjson.loads**: read the file (gunzip if ``.gz``), ``orjson.loads`` it,
  exit: what having the trace in memory as Python objects costs;
* **typed floor**: read the file, find the events array and msgspec-decode
  every event into its typed record, nothing more, on one core: what no
  loader built on that decoding can beat per core;
* **summary cold, N workers** (``--workers N``, N in 1/2/4/8 by default):
  ``python -m tui summary TRACE --workers N`` with the column cache off;
* **summary / ops / gaps from cache**: the same commands once a first run
  has filled a private column cache, the first time (it keeps in the entry
  what it had to compute: the nesting, for ops) and then as usual;
* **the app** (the big input only; ``--no-app`` skips it): ``bench_app.py``
  on the same private cache: the first interactive frame and the UI thread's
  CPU per key (zoom/pan, g, b, t, ], S, n).

Each measurement runs in a fresh wrapper process (``benchmarks.rss``) that
starts the command, samples the proportional set size (PSS, so pages shared
by forked workers count once) of the command's whole process tree every
20 ms, and reads its CPU time from ``getrusage(RUSAGE_CHILDREN)``. Peak memory is the larger of
that sampled tree peak and the biggest single process's exact ``ru_maxrss``.
Medians of ``--repeat`` runs are shown with the loader's goals. See
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED_TRACES = ROOT.parent / "shared" / "traces"
DEFAULT_MTIA = SHARED_TRACES / "mtia_trace_single_rank-mtia_rank_0.json.gz"
DEFAULT_BIG = ROOT / "bench-out" / "big-1g.json"
MIB = 1024 * 1024

# The baseline: what loading the same bytes with orjson costs.
ORJSON_LOAD = r"""
import gzip, json, sys, orjson
path = sys.argv[1]
if path.endswith(".gz"):
    with gzip.open(path, "rb") as f:
        raw = f.read()
else:
    with open(path, "rb") as f:
        raw = f.read()
data = orjson.loads(raw)
events = data["traceEvents"] if isinstance(data, dict) else data
print(json.dumps({"raw_bytes": len(raw), "events": len(events)}))
"""

# The loader alone (no analysis): what `--workers` changes.
LOAD_ONLY = r"""
import json, sys
from tui.core.ingest.load import load_trace
trace = load_trace(sys.argv[1], workers=int(sys.argv[2]))
print(json.dumps({"events": trace.event_count}))
"""

# The floor: typed decoding of every event, nothing built from it, one core.
TYPED_FLOOR = r"""
import json, mmap, sys
import msgspec
from tui.core.ingest.decode.records import RawEvent
from tui.core.ingest.parallel.layout import event_ranges, locate_events
from tui.core.ingest.source import read_trace_bytes
decoder = msgspec.json.Decoder(list[RawEvent])

def framed(data, begin, end):
    text = bytearray(end - begin + 2)
    text[0], text[-1] = ord("["), ord("]")
    with memoryview(text) as view:
        view[1:-1] = memoryview(data)[begin:end]
    return text

path = sys.argv[1]
if path.endswith(".gz"):
    data = read_trace_bytes(path).data
else:
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
layout = locate_events(data)
events = 0
for begin, end in event_ranges(data, layout.start, layout.end, max(1, (layout.end - layout.start) >> 23)):
    events += len(decoder.decode(framed(data, begin, end)))
print(json.dumps({"events": events}))
"""


@dataclass
class Run:
    """One run of one command."""

    ok: bool
    wall_s: float
    peak_mib: float
    cpu_s: float
    rc: int | str
    error: str = ""
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Measure:
    """The runs of one command on one input; medians when all succeeded."""

    label: str
    runs: list[Run]
    note: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.runs) and all(run.ok for run in self.runs)

    def median(self, attr: str) -> float | None:
        if not self.ok:
            return None
        return float(statistics.median(getattr(run, attr) for run in self.runs))

    @property
    def error(self) -> str:
        failed = [run for run in self.runs if not run.ok]
        return failed[0].error if failed else ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "ok": self.ok,
            "wall_s": self.median("wall_s"),
            "peak_mib": self.median("peak_mib"),
            "cpu_s": self.median("cpu_s"),
            "note": self.note,
            "error": self.error or None,
            "runs": [asdict(run) for run in self.runs],
        }


def measure_once(cmd: list[str], timeout: float, env: dict[str, str | None]) -> Run:
    """Run ``cmd`` under a fresh wrapper: wall, CPU and peak memory of its tree."""
    spec = json.dumps([cmd, str(ROOT), timeout, env])
    wrapper = subprocess.run(
        [sys.executable, "-m", "benchmarks.rss", spec],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if wrapper.returncode != 0:
        why = wrapper.stderr.strip()[-500:]
        return Run(False, 0.0, 0.0, 0.0, "wrapper", f"wrapper failed: {why}")
    rep = json.loads(wrapper.stdout)
    peak = rep["peak_bytes"] / MIB
    if rep["rc"] != 0:
        lines = (rep["stderr_tail"] or rep["stdout_tail"]).strip().splitlines()
        error = f"exit {rep['rc']}: {lines[-1] if lines else ''}"
        return Run(False, rep["wall_s"], peak, rep["cpu_s"], rep["rc"], error)
    info: dict[str, Any] = {}
    last = rep["stdout_tail"].strip().splitlines()
    if last and last[-1].startswith("{"):
        try:
            info = json.loads(last[-1])
        except ValueError:
            info = {}
    return Run(True, rep["wall_s"], peak, rep["cpu_s"], 0, info=info)


def measure(
    label: str,
    cmd: list[str],
    args: argparse.Namespace,
    env: dict[str, str | None],
    note: str = "",
) -> Measure:
    runs: list[Run] = []
    for index in range(args.repeat):
        run = measure_once(cmd, args.timeout, env)
        runs.append(run)
        state = (
            f"{run.wall_s:.2f} s wall, {run.cpu_s:.2f} s CPU, {run.peak_mib:.0f} MiB"
            if run.ok
            else f"FAILED ({run.error})"
        )
        print(f"  {label} {index + 1}/{args.repeat}: {state}", file=sys.stderr)
        if not run.ok:
            break  # a failing command fails the same way again
    return Measure(label, runs, note)


def warm_page_cache(path: Path) -> None:
    """Read the file once so that every measured run finds it in memory."""
    with open(path, "rb") as handle:
        while handle.read(1 << 24):
            pass


def ensure_big(path: Path, size_gb: float) -> None:
    if path.exists():
        return
    print(f"generating {path} ({size_gb} GB) ...", file=sys.stderr, flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "tests.support.tracegen", "--size-gb", str(size_gb)]
    subprocess.run([*cmd, "-o", str(path)], cwd=ROOT, check=True, stdout=sys.stderr)


def bench_input(
    name: str, path: Path, args: argparse.Namespace, cores: int
) -> dict[str, Any]:
    print(f"{name}: {path}", file=sys.stderr, flush=True)
    warm_page_cache(path)
    python = sys.executable
    cold = {"STEPTRACE_NO_CACHE": "1"}
    measures: list[Measure] = [
        measure("orjson.loads", [python, "-c", ORJSON_LOAD, str(path)], args, {}),
        measure(
            "typed floor (1 core)",
            [python, "-c", TYPED_FLOOR, str(path)],
            args,
            {"PYTHONPATH": str(ROOT)},
        ),
    ]
    for workers in args.workers:
        note = f"oversubscribes {cores} cores" if workers > cores else ""
        measures.append(
            measure(
                f"load only, {workers} worker{'s' if workers > 1 else ''}",
                [python, "-c", LOAD_ONLY, str(path), str(workers)],
                args,
                {**cold, "PYTHONPATH": str(ROOT)},
                note,
            )
        )
    for workers in args.workers:
        note = f"oversubscribes {cores} cores" if workers > cores else ""
        measures.append(
            measure(
                f"summary cold, {workers} worker{'s' if workers > 1 else ''}",
                [python, "-m", "tui", "summary", str(path), "--workers", str(workers)],
                args,
                dict(cold),
                note,
            )
        )
    with tempfile.TemporaryDirectory(prefix="steptrace-bench-cache-") as cache_dir:
        # A private cache directory: never reuse nor fill the user's cache.
        warm: dict[str, str | None] = {
            "STEPTRACE_NO_CACHE": None,
            "STEPTRACE_CACHE_DIR": cache_dir,
        }
        fill = measure_once(
            [python, "-m", "tui", "summary", str(path)], args.timeout, warm
        )
        print(f"  cache filled: ok={fill.ok} {fill.wall_s:.2f} s", file=sys.stderr)
        for command in ("summary", "ops", "gaps"):
            # The first reopen computes what the cache does not hold yet (the
            # nesting, for ops) and keeps it in the entry; later ones read it.
            once = argparse.Namespace(**{**vars(args), "repeat": 1})
            measures.append(
                measure(
                    f"{command} from cache, first",
                    [python, "-m", "tui", command, str(path)],
                    once,
                    warm,
                )
            )
            measures.append(
                measure(
                    f"{command} from cache",
                    [python, "-m", "tui", command, str(path)],
                    args,
                    warm,
                )
            )
        app = bench_app(path, args, warm) if name == "big" and args.app else None
        shutil.rmtree(cache_dir, ignore_errors=True)
    first = measures[0].runs[0] if measures[0].runs else None
    return {
        "app": app,
        "input": name,
        "path": str(path),
        "file_bytes": path.stat().st_size,
        "raw_bytes": first.info.get("raw_bytes") if first else None,
        "events": first.info.get("events") if first else None,
        "measures": [m.as_dict() for m in measures],
    }


def bench_app(
    path: Path, args: argparse.Namespace, env: dict[str, str | None]
) -> dict[str, Any]:
    """The explorer on the cached trace: first frame and UI CPU per key (bench_app.py)."""
    environment = dict(os.environ)
    for key, value in env.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    environment["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "benchmarks.bench_app", str(path), "--presses", "60"]
    cmd += ["--op-rows", "1000", "--memory-events", "1000"]
    print("  app: bench_app.py ...", file=sys.stderr, flush=True)
    try:
        done = subprocess.run(
            cmd,
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=args.timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": "timed out"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit {done.returncode}"}
    return parse_app(done.stdout)


def parse_app(text: str) -> dict[str, Any]:
    """The figures bench_app.py prints: first frame, zoom/pan CPU, UI CPU per key."""
    figures: dict[str, Any] = {"keys": {}}
    for line in text.splitlines():
        words = line.split()
        if line.startswith("first interactive frame:"):
            figures["first_frame_s"] = float(words[3])
        elif line.startswith("key + full repaint, CPU time"):
            figures["zoom_pan_mean_ms"] = float(words[words.index("mean") + 1])
            figures["zoom_pan_p95_ms"] = float(words[words.index("p95") + 1])
        elif len(words) > 4 and words[0] == "key" and words[2:4] == ["UI", "CPU"]:
            figures["keys"][words[1].strip("'")] = float(words[4])
    return figures


def _find(row: dict[str, Any], label: str) -> dict[str, Any] | None:
    return next((m for m in row["measures"] if m["label"] == label and m["ok"]), None)


def goals(row: dict[str, Any], cores: int) -> list[str]:
    """The loader's goals that this input and machine can judge."""
    lines: list[str] = []
    orjson = _find(row, "orjson.loads")
    two = _find(row, "summary cold, 2 workers")
    if row["input"] == "big" and orjson and two:
        wall, peak = two["wall_s"], two["peak_mib"]
        parts = (
            (f"{wall:.2f} s <= 7 s", wall <= 7),
            (
                f"{wall / orjson['wall_s']:.2f}x orjson time <= 0.22x",
                wall <= 0.22 * orjson["wall_s"],
            ),
            (f"{peak:.0f} MiB <= 2.5 GB", peak <= 2.5 * 1024),
            (
                f"{peak / orjson['peak_mib']:.2f}x orjson memory <= 0.35x",
                peak <= 0.35 * orjson["peak_mib"],
            ),
        )
        lines.append(
            "cold summary, 2 workers: "
            + "; ".join(f"{text} {'MET' if ok else 'NOT MET'}" for text, ok in parts)
            + ("" if cores >= 2 else f" (this machine has {cores} core)")
        )
        eight = _find(row, "summary cold, 8 workers")
        if eight is not None:
            lines.append(
                f"cold summary, 8 workers: {eight['wall_s']:.2f} s: goal <= 2.5 s on "
                + (
                    "8 cores: " + ("MET" if eight["wall_s"] <= 2.5 else "NOT MET")
                    if cores >= 8
                    else f"8 cores, not judged here ({cores} cores)"
                )
            )
    if row["input"] == "mtia" and orjson:
        best = min(
            (
                m
                for m in row["measures"]
                if m["ok"] and m["label"].startswith("summary cold")
            ),
            key=lambda m: m["wall_s"],
            default=None,
        )
        if best is not None:
            met = (
                best["wall_s"] <= orjson["wall_s"]
                and best["peak_mib"] <= 0.5 * orjson["peak_mib"]
            )
            lines.append(
                f"{best['label']}: {best['wall_s'] / orjson['wall_s']:.2f}x orjson time, "
                f"{best['peak_mib'] / orjson['peak_mib']:.2f}x its memory: goal <= 1.0x "
                f"and <= 0.5x, start-up included: {'MET' if met else 'NOT MET'}"
            )
    app = row.get("app")
    if app and "first_frame_s" in app:
        frame = app["first_frame_s"]
        lines.append(
            f"app, first interactive frame from the cache: {frame:.2f} s: goal <= 1.5 s: "
            + ("MET" if frame <= 1.5 else "NOT MET")
        )
        keys = {"zoom/pan (mean)": app.get("zoom_pan_mean_ms", 0.0), **app["keys"]}
        slow = [f"{key} {ms:.0f} ms" for key, ms in keys.items() if ms >= 50]
        lines.append(
            "app, UI CPU per key: "
            + ", ".join(f"{key} {ms:.0f}" for key, ms in keys.items())
            + " ms: goal < 50 ms each: "
            + ("MET" if not slow else f"NOT MET ({', '.join(slow)})")
        )
    for command, limit in (("summary", 0.3), ("ops", 0.5), ("gaps", 0.3)):
        cached = _find(row, f"{command} from cache")
        if cached is not None and row["input"] == "big":
            lines.append(
                f"{command} from cache: {cached['wall_s']:.2f} s: goal <= {limit} s: "
                + ("MET" if cached["wall_s"] <= limit else "NOT MET")
            )
    return lines


def print_table(rows: list[dict[str, Any]], repeat: int, cores: int) -> None:
    head = (
        "input",
        "command",
        "wall s",
        "CPU s",
        "peak MiB",
        "x orjson s",
        "x orjson MiB",
        "note",
    )
    table: list[tuple[str, ...]] = [head]
    for row in rows:
        orjson = _find(row, "orjson.loads")
        for m in row["measures"]:
            if not m["ok"]:
                table.append(
                    (row["input"], m["label"], "FAILED", "", "", "", "", m["error"])
                )
                continue
            table.append(
                (
                    row["input"],
                    m["label"],
                    f"{m['wall_s']:.2f}",
                    f"{m['cpu_s']:.2f}",
                    f"{m['peak_mib']:.0f}",
                    f"{m['wall_s'] / orjson['wall_s']:.2f}" if orjson else "-",
                    f"{m['peak_mib'] / orjson['peak_mib']:.2f}" if orjson else "-",
                    m["note"],
                )
            )
    widths = [max(len(str(line[i])) for line in table) for i in range(len(head))]
    for line in table:
        print(
            "  ".join(
                str(c).ljust(w) for c, w in zip(line, widths, strict=True)
            ).rstrip()
        )
    for row in rows:
        size = f"{row['file_bytes'] / 1e6:.0f} MB on disk"
        if row["raw_bytes"]:
            size += f", {row['raw_bytes'] / 1e6:.0f} MB of JSON"
        events = f", {row['events']:,} events" if row["events"] else ""
        print(f"{row['input']}: {size}{events}")
    print(
        f"median of {repeat} run(s); wall and CPU seconds of the whole process tree; "
        "peak MiB = PSS of the tree sampled every 20 ms (or the biggest process's "
        f"exact peak if larger). This machine has {cores} cores: more workers than "
        "that oversubscribe it and show the overhead, not a speed-up. Workers' "
        "scratch files go to the temporary folder (page cache, not process memory)."
    )
    for row in rows:
        for goal in goals(row, cores):
            print(f"goal, {row['input']}: {goal}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mtia", type=Path, default=DEFAULT_MTIA, help="the MTIA trace")
    p.add_argument(
        "--big", type=Path, default=DEFAULT_BIG, help="a >1 GB trace (made if missing)"
    )
    p.add_argument("--big-size-gb", type=float, default=1.1, help="size to make (GB)")
    p.add_argument("--repeat", type=int, default=1, help="runs per figure (median)")
    p.add_argument(
        "--workers",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[1, 2, 4, 8],
        help="worker counts for the cold summary (default 1,2,4,8)",
    )
    p.add_argument("--only", choices=("mtia", "big"), help="one input instead of both")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    p.add_argument("--json", action="store_true", help="print every figure as JSON")
    p.add_argument(
        "--no-app",
        dest="app",
        action="store_false",
        help="skip the explorer's figures on the big input",
    )
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    inputs: list[tuple[str, Path]] = []
    if args.only in (None, "mtia"):
        if not args.mtia.exists():
            print(f"bench_load: {args.mtia} not found", file=sys.stderr)
            return 2
        inputs.append(("mtia", args.mtia))
    if args.only in (None, "big"):
        ensure_big(args.big, args.big_size_gb)
        inputs.append(("big", args.big))
    started = time.perf_counter()
    load_before = os.getloadavg()
    rows = [bench_input(name, path, args, cores) for name, path in inputs]
    load_after = os.getloadavg()
    if args.json:
        print(
            json.dumps(
                {
                    "python": sys.version.split()[0],
                    "cores": cores,
                    "load_average": [load_before, load_after],
                    "repeat": args.repeat,
                    "seconds": round(time.perf_counter() - started, 1),
                    "results": rows,
                },
                indent=1,
            )
        )
    else:
        print_table(rows, args.repeat, cores)
        print(
            "load average (1/5/15 min) before {:.1f}/{:.1f}/{:.1f}, after "
            "{:.1f}/{:.1f}/{:.1f}: other work on the machine slows wall times; "
            "CPU seconds move less".format(*load_before, *load_after)
        )
    failed = any(not m["ok"] for row in rows for m in row["measures"])
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
