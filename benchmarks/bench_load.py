#!/usr/bin/env python3
"""Load benchmark: ``steptrace summary TRACE`` against a plain ``orjson.loads``.

For each input (the MTIA trace from the shared test data and a generated
trace of more than 1 GB) it measures, ``--repeat`` times each, in a fresh
child process every time:

* **orjson**: read the file (gunzip if ``.gz``), ``orjson.loads`` it, exit;
* **summary**: ``python -m tui summary TRACE`` with the column cache off
  (``STEPTRACE_NO_CACHE=1``): the full parse a first open costs.  The goal is
  judged on it;
* **reopen**: the same command with the column cache on, in a private cache
  directory filled by one first run: what opening the trace again costs.

Each measurement runs under its own small wrapper process, which starts the
command, waits for it and reads ``getrusage(RUSAGE_CHILDREN).ru_maxrss``: the
exact peak resident memory of that one command.  Wall time is measured
around it; CPU time (user + system) too, so contention shows (wall >> CPU).
Medians are reported, with the goal: summary at most as slow as orjson and at
most half its peak memory.

A failed measurement (``summary`` exiting non-zero, e.g. "not available
yet") is reported as such, not as a crash.  See benchmarks/README.md.
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
GEN_TRACE = Path(__file__).resolve().with_name("gen_trace.py")
MIB = 1024 * 1024

# Runs one command and reports its wall time, CPU time and peak RSS as JSON.
WRAPPER = r"""
import json, os, resource, subprocess, sys, time
cmd, cwd, timeout, env_changes = json.loads(sys.argv[1])
env = dict(os.environ)
for key, value in env_changes.items():
    if value is None:
        env.pop(key, None)
    else:
        env[key] = value
t0 = time.perf_counter()
try:
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout)
    rc, out, err = p.returncode, p.stdout, p.stderr
except subprocess.TimeoutExpired as exc:
    rc, out, err = "timeout", exc.stdout or b"", exc.stderr or b""
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes vs KiB
print(json.dumps({
    "rc": rc, "wall_s": wall, "peak_bytes": ru.ru_maxrss * scale,
    "cpu_s": ru.ru_utime + ru.ru_stime,
    "stdout_tail": out[-4000:].decode("utf-8", "replace"),
    "stderr_tail": err[-4000:].decode("utf-8", "replace"),
}))
"""

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
print(json.dumps({"raw_bytes": len(raw), "events": len(data["traceEvents"])}))
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

    runs: list[Run]
    first: Run | None = None  # reopen: the run that filled the cache

    @property
    def ok(self) -> bool:
        return bool(self.runs) and all(r.ok for r in self.runs)

    def _median(self, attr: str) -> float | None:
        if not self.ok:
            return None
        return float(statistics.median(getattr(r, attr) for r in self.runs))

    @property
    def wall_s(self) -> float | None:
        return self._median("wall_s")

    @property
    def peak_mib(self) -> float | None:
        return self._median("peak_mib")

    @property
    def cpu_s(self) -> float | None:
        return self._median("cpu_s")

    @property
    def error(self) -> str:
        failed = [r for r in [self.first, *self.runs] if r is not None and not r.ok]
        return failed[0].error if failed else ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "wall_s": self.wall_s,
            "peak_mib": self.peak_mib,
            "cpu_s": self.cpu_s,
            "error": self.error or None,
            "first": asdict(self.first) if self.first else None,
            "runs": [asdict(r) for r in self.runs],
        }


def measure_once(cmd: list[str], timeout: float, env: dict[str, str | None]) -> Run:
    """Run ``cmd`` under a fresh wrapper: exact peak RSS of that command."""
    spec = json.dumps([cmd, str(ROOT), timeout, env])
    wrapper = subprocess.run(
        [sys.executable, "-c", WRAPPER, spec],
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
        why = lines[-1] if lines else ""
        error = f"exit {rep['rc']}: {why}"
        return Run(False, rep["wall_s"], peak, rep["cpu_s"], rep["rc"], error)
    info: dict[str, Any] = {}
    last = rep["stdout_tail"].strip().splitlines()
    if last and last[-1].startswith("{"):
        try:
            info = json.loads(last[-1])
        except ValueError:
            info = {}
    return Run(True, rep["wall_s"], peak, rep["cpu_s"], 0, info=info)


def _say(label: str, run: Run) -> None:
    if run.ok:
        state = (
            f"{run.wall_s:.2f} s wall, {run.cpu_s:.2f} s CPU, {run.peak_mib:.0f} MiB"
        )
    else:
        state = f"FAILED ({run.error})"
    print(f"  {label}: {state}", file=sys.stderr, flush=True)


def measure(
    cmd: list[str],
    args: argparse.Namespace,
    label: str,
    env: dict[str, str | None],
    fill_first: bool = False,
) -> Measure:
    """``--repeat`` runs (after one untimed-in-median run when ``fill_first``)."""
    first = None
    if fill_first:
        first = measure_once(cmd, args.timeout, env)
        _say(f"{label} first (fills the cache)", first)
        if not first.ok:
            return Measure([], first)
    runs: list[Run] = []
    for i in range(args.repeat):
        run = measure_once(cmd, args.timeout, env)
        runs.append(run)
        _say(f"{label} run {i + 1}/{args.repeat}", run)
        if not run.ok:
            break  # a failing command fails the same way again
    return Measure(runs, first)


def warm_page_cache(path: Path) -> None:
    """Read the file once so that every measured run finds it in memory."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def ensure_big(path: Path, size_gb: float) -> None:
    if path.exists():
        return
    print(f"generating {path} ({size_gb} GB) ...", file=sys.stderr, flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(GEN_TRACE), "--size-gb", str(size_gb), "-o", str(path)]
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def bench_input(name: str, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    print(f"{name}: {path}", file=sys.stderr, flush=True)
    warm_page_cache(path)
    gz = path.name.endswith(".gz")
    row: dict[str, Any] = {
        "input": name,
        "path": str(path),
        "gzip": gz,
        "file_bytes": path.stat().st_size,
        "raw_bytes": None if gz else path.stat().st_size,
        "events": None,
    }
    measures: dict[str, Measure | None] = {
        "orjson": None,
        "summary": None,
        "reopen": None,
    }
    if args.what in ("all", "orjson"):
        cmd = [sys.executable, "-c", ORJSON_LOAD, str(path)]
        m = measure(cmd, args, "orjson.loads", {})
        measures["orjson"] = m
        if m.ok:
            row["raw_bytes"] = m.runs[0].info.get("raw_bytes", row["raw_bytes"])
            row["events"] = m.runs[0].info.get("events")
    summary_cmd = [sys.executable, "-m", "tui", "summary", str(path)]
    with tempfile.TemporaryDirectory(prefix="steptrace-bench-cache-") as cache_dir:
        # A private cache directory: never reuse nor fill the user's cache.
        if args.what in ("all", "summary"):
            env: dict[str, str | None] = {
                "STEPTRACE_NO_CACHE": "1",
                "STEPTRACE_CACHE_DIR": cache_dir,
            }
            measures["summary"] = measure(summary_cmd, args, "summary (no cache)", env)
        if args.what in ("all", "reopen"):
            env = {"STEPTRACE_NO_CACHE": None, "STEPTRACE_CACHE_DIR": cache_dir}
            measures["reopen"] = measure(
                summary_cmd, args, "summary (reopen, cached)", env, fill_first=True
            )
        shutil.rmtree(cache_dir, ignore_errors=True)
    for key, measured in measures.items():
        row[key] = measured.as_dict() if measured is not None else None
    row.update(goal(measures["orjson"], measures["summary"]))
    return row


def goal(o: Measure | None, s: Measure | None) -> dict[str, Any]:
    """Ratios, and the goal: summary <= orjson wall and <= 0.5 x orjson peak."""
    for label, m in (("orjson", o), ("summary", s)):
        if m is None or not m.ok:
            why = "not run" if m is None else "failed"
            return {
                "wall_ratio": None,
                "cpu_ratio": None,
                "memory_ratio": None,
                "goal_met": None,
                "goal": f"n/a ({label} {why})",
            }
    assert o is not None and s is not None
    assert o.wall_s and o.peak_mib and s.wall_s is not None and s.peak_mib is not None
    wall_ratio = s.wall_s / o.wall_s
    memory_ratio = s.peak_mib / o.peak_mib
    met = wall_ratio <= 1.0 and memory_ratio <= 0.5
    cpu_ratio = (s.cpu_s or 0.0) / o.cpu_s if o.cpu_s else None
    return {
        "wall_ratio": wall_ratio,
        "cpu_ratio": cpu_ratio,  # steadier than wall on a busy machine
        "memory_ratio": memory_ratio,
        "goal_met": met,
        "goal": "MET" if met else "NOT MET",
    }


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def _size(row: dict[str, Any]) -> str:
    raw = row["raw_bytes"]
    raw_s = "?" if raw is None else f"{raw / 1e6:.0f}MB"
    return f"{row['file_bytes'] / 1e6:.0f}MB/{raw_s}" if row["gzip"] else f"-/{raw_s}"


def print_table(rows: list[dict[str, Any]], repeat: int) -> None:
    head = (
        "input",
        "size gz/raw",
        "events",
        "orjson s",
        "orjson MiB",
        "summary s",
        "summary MiB",
        "wall x",
        "mem x",
        "goal",
        "reopen s",
        "reopen MiB",
    )
    table = [head]
    notes = []
    for r in rows:
        o, s, c = r["orjson"] or {}, r["summary"] or {}, r["reopen"] or {}
        table.append(
            (
                r["input"],
                _size(r),
                "-" if r["events"] is None else f"{r['events']:,}",
                _fmt(o.get("wall_s"), ".2f"),
                _fmt(o.get("peak_mib"), ".0f"),
                _fmt(s.get("wall_s"), ".2f"),
                _fmt(s.get("peak_mib"), ".0f"),
                _fmt(r["wall_ratio"], ".2f"),
                _fmt(r["memory_ratio"], ".2f"),
                r["goal"],
                _fmt(c.get("wall_s"), ".2f"),
                _fmt(c.get("peak_mib"), ".0f"),
            )
        )
        for label, m in (("orjson", o), ("summary", s), ("reopen", c)):
            if m and not m.get("ok"):
                notes.append(
                    f"{r['input']}: {label} measurement FAILED: {m.get('error')}"
                )
            elif m and m.get("wall_s") and m["cpu_s"] < 0.7 * m["wall_s"]:
                notes.append(
                    f"{r['input']}: {label} used {m['cpu_s']:.2f} s CPU for "
                    f"{m['wall_s']:.2f} s wall: the machine was busy, wall is inflated"
                )
    widths = [max(len(str(row[i])) for row in table) for i in range(len(head))]
    for row in table:
        print(
            "  ".join(
                str(c).ljust(w) for c, w in zip(row, widths, strict=True)
            ).rstrip()
        )
    print(
        f"median of {repeat} run(s) each; s = wall seconds, MiB = peak RSS of the "
        "command; summary = no cache (the goal is judged on it); reopen = cache warm.\n"
        "goal: summary wall <= orjson wall and summary peak <= 0.5 x orjson peak"
    )
    for note in notes:
        print(note)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mtia", type=Path, default=DEFAULT_MTIA, help="the MTIA trace")
    p.add_argument(
        "--big", type=Path, default=DEFAULT_BIG, help="a >1 GB trace (made if missing)"
    )
    p.add_argument("--big-size-gb", type=float, default=1.1, help="size to make (GB)")
    p.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    p.add_argument(
        "--what",
        choices=("all", "orjson", "summary", "reopen"),
        default="all",
        help="what to measure (default all)",
    )
    p.add_argument("--only", choices=("mtia", "big"), help="one input instead of both")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    p.add_argument("--json", action="store_true", help="print every figure as JSON")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    inputs: list[tuple[str, Path]] = []
    if args.only in (None, "mtia"):
        if not args.mtia.exists():
            print(f"bench_load: {args.mtia} not found", file=sys.stderr)
            return 2
        inputs.append(("mtia", args.mtia))
    if args.only in (None, "big"):
        ensure_big(args.big, args.big_size_gb)
        inputs.append(("big", args.big))
    t0 = time.perf_counter()
    rows = [bench_input(name, path, args) for name, path in inputs]
    doc = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "repeat": args.repeat,
        "seconds": round(time.perf_counter() - t0, 1),
        "results": rows,
    }
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        print_table(rows, args.repeat)
    failed = any(
        r[k] is not None and not r[k]["ok"]
        for r in rows
        for k in ("orjson", "summary", "reopen")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
