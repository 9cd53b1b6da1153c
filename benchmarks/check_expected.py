#!/usr/bin/env python3
"""Recompute a generated trace's ground truth independently, and check it.

``gen_trace.py`` writes ``PATH.expected.json`` from what it simulated; this
script reads ``PATH`` back with the standard ``json`` module (decimals kept
exact, so times are integer nanoseconds), recomputes the same figures in the
plainest way, and checks the structural promises of the generator:

* CPU events on each thread nest properly (children strictly inside);
* every GPU kernel/copy/set starts after the runtime call that launched it
  (same correlation id) and none overlap on one stream;
* ``ac2g`` flows pair a runtime call (``s``) with its GPU event (``f``),
  ``fwdbwd`` flows pair a forward op with a backward node;
* nothing is launched on the GPU from inside ``lecture_batch_cpu``;
* each ``ProfilerStep`` holds one of each zone.

Usage: ``check_expected.py TRACE [--expected PATH]``; exit 0 when all agree.
It loads the whole trace in memory: meant for traces up to a few hundred MB.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from itertools import pairwise
from pathlib import Path
from typing import Any

GPU_BUSY = ("kernel", "gpu_memcpy", "gpu_memset")
CPU_CATS = ("cpu_op", "user_annotation", "cuda_runtime", "cuda_driver")
ZONES = ("lecture_batch_cpu", "transfert", "entrainement")
LAUNCH_APIS = ("cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync")


def ns(value: Any) -> int:
    """A Chrome-trace microsecond value as exact integer nanoseconds."""
    return int(Decimal(value) * 1000)


def union_length(intervals: list[tuple[int, int]]) -> int:
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None and cur_s is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None and cur_s is not None:
        total += cur_e - cur_s
    return total


def covered(intervals: list[tuple[int, int]], a: int, b: int) -> int:
    """Length of [a, b) covered by the union of ``intervals``."""
    clipped = [(max(s, a), min(e, b)) for s, e in intervals if e > a and s < b]
    return union_length(clipped)


def load(path: Path) -> dict[str, Any]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f, parse_float=Decimal)
    return data


class Checker:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.passed = 0

    def same(self, what: str, got: Any, want: Any) -> None:
        if got == want:
            self.passed += 1
        else:
            self.failures.append(f"{what}: recomputed {got!r}, expected {want!r}")

    def true(self, what: str, ok: bool, detail: str = "") -> None:
        if ok:
            self.passed += 1
        else:
            self.failures.append(f"{what}{': ' + detail if detail else ''}")


def check(trace: Path, expected_path: Path) -> Checker:
    data = load(trace)
    exp = json.loads(expected_path.read_text(encoding="utf-8"))
    events: list[dict[str, Any]] = data["traceEvents"]
    c = Checker()

    # Header
    for key in (
        "schemaVersion",
        "deviceProperties",
        "distributedInfo",
        "record_shapes",
    ):
        c.true(f"header has {key}", key in data)

    # Counts
    by_ph = Counter(e["ph"] for e in events)
    by_cat = Counter(e["cat"] for e in events if "cat" in e)
    c.same("events.total", len(events), exp["events"]["total"])
    c.same("events.by_ph", dict(by_ph), exp["events"]["by_ph"])
    c.same("events.by_cat", dict(by_cat), exp["events"]["by_cat"])
    c.same(
        "events.without_cat",
        sum(1 for e in events if "cat" not in e),
        exp["events"]["without_cat"],
    )
    calls: dict[str, Counter[str]] = defaultdict(Counter)
    for e in events:
        if e["ph"] == "X":
            calls[e["cat"]][e["name"]] += 1
    c.same("calls", {k: dict(v) for k, v in calls.items()}, exp["calls"])

    xs = [e for e in events if e["ph"] == "X" and isinstance(e["pid"], int)]
    for e in xs:
        e["_s"] = ns(e["ts"])
        e["_e"] = e["_s"] + ns(e["dur"])

    # Steps and zones (main thread user annotations)
    anns = [e for e in xs if e["cat"] == "user_annotation"]
    steps = sorted(
        (e for e in anns if e["name"].startswith("ProfilerStep#")),
        key=lambda e: e["_s"],
    )
    c.same("steps.count", len(steps), exp["steps"]["count"])
    c.same("steps.first", steps[0]["name"] if steps else None, exp["steps"]["first"])
    c.same(
        "steps.durations_ns",
        [e["_e"] - e["_s"] for e in steps],
        exp["steps"]["durations_ns"],
    )
    zones = {
        z: sorted((e for e in anns if e["name"] == z), key=lambda e: e["_s"])
        for z in ZONES
    }
    for z, evs in zones.items():
        got = {"count": len(evs), "total_ns": sum(e["_e"] - e["_s"] for e in evs)}
        c.same(f"zones.{z}", got, exp["zones"].get(z))
    c.same(
        "lecture_batch_cpu_total_ns",
        sum(e["_e"] - e["_s"] for e in zones["lecture_batch_cpu"]),
        exp["lecture_batch_cpu_total_ns"],
    )
    for step in steps:
        for z, evs in zones.items():
            inside = [e for e in evs if step["_s"] < e["_s"] and e["_e"] < step["_e"]]
            c.true(
                f"{step['name']} holds one {z}",
                len(inside) == 1,
                f"found {len(inside)}",
            )

    # GPU busy (union per device) and idle inside lecture_batch_cpu
    gpu = [e for e in xs if e["cat"] in GPU_BUSY]
    per_device: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for e in gpu:
        per_device[e["args"]["device"]].append((e["_s"], e["_e"]))
    c.same(
        "gpu_busy_ns",
        {str(d): union_length(iv) for d, iv in per_device.items()},
        exp["gpu_busy_ns"],
    )
    idle = {
        str(d): sum(
            (z["_e"] - z["_s"]) - covered(iv, z["_s"], z["_e"])
            for z in zones["lecture_batch_cpu"]
        )
        for d, iv in per_device.items()
    }
    c.same(
        "gpu_idle_in_lecture_batch_cpu_ns",
        idle,
        exp["gpu_idle_in_lecture_batch_cpu_ns"],
    )
    for cat in GPU_BUSY:
        evs = [e for e in gpu if e["cat"] == cat]
        got = {"count": len(evs), "sum_ns": sum(e["_e"] - e["_s"] for e in evs)}
        c.same(f"gpu_activity.{cat}", got, exp["gpu_activity"][cat])
    dev0 = per_device.get(0, [])
    per_step = [
        {
            "name": s["name"],
            "dur_ns": s["_e"] - s["_s"],
            "gpu_busy_ns": covered(dev0, s["_s"], s["_e"]),
        }
        for s in steps
    ]
    want = [
        {k: p[k] for k in ("name", "dur_ns", "gpu_busy_ns")} for p in exp["per_step"]
    ]
    c.same("per_step (name, dur, gpu busy)", per_step, want)

    # Nesting on each CPU thread
    threads: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for e in xs:
        if e["cat"] in CPU_CATS:
            threads[e["pid"], e["tid"]].append(e)
    bad_nesting = 0
    for evs in threads.values():
        evs.sort(key=lambda e: (e["_s"], -e["_e"]))
        stack: list[dict[str, Any]] = []
        for e in evs:
            while stack and stack[-1]["_e"] <= e["_s"]:
                stack.pop()
            if stack:
                top = stack[-1]
                if not (top["_s"] < e["_s"] and e["_e"] < top["_e"]):
                    bad_nesting += 1
            stack.append(e)
    c.true(
        "CPU events nest strictly on each thread",
        bad_nesting == 0,
        f"{bad_nesting} bad",
    )

    # Launch -> GPU event, per-stream order, flows
    runtime_by_corr = {
        e["args"]["correlation"]: e
        for e in xs
        if e["cat"] in ("cuda_runtime", "cuda_driver")
    }
    late = missing = 0
    streams: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for e in gpu:
        rt = runtime_by_corr.get(e["args"]["correlation"])
        if rt is None:
            missing += 1
        elif e["_s"] <= rt["_s"]:
            late += 1
        streams[e["args"]["device"], e["args"]["stream"]].append((e["_s"], e["_e"]))
        c.true("GPU event stream == tid", e["args"]["stream"] == e["tid"])
    c.true("every GPU event has its runtime call", missing == 0, f"{missing} missing")
    c.true("every GPU event starts after its launch", late == 0, f"{late} early")
    overlaps = 0
    for iv in streams.values():
        iv.sort()
        overlaps += sum(1 for a, b in pairwise(iv) if b[0] < a[1])
    c.true("no overlap on a stream", overlaps == 0, f"{overlaps} overlaps")
    kernels = [e for e in gpu if e["cat"] == "kernel"]
    c.true(
        "kernel args complete",
        all(
            {"correlation", "External id", "device", "stream", "grid", "block"}
            <= e["args"].keys()
            for e in kernels
        ),
    )

    flows: dict[str, dict[str, dict[int, dict[str, Any]]]] = defaultdict(
        lambda: {"s": {}, "f": {}}
    )
    for e in events:
        if e["ph"] in ("s", "f"):
            flows[e["cat"]][e["ph"]][e["id"]] = e
    ac2g = flows["ac2g"]
    c.same("ac2g s ids == f ids", sorted(ac2g["s"]), sorted(ac2g["f"]))
    gpu_side = {
        e["args"]["correlation"]: e
        for e in xs
        if e["pid"] == 0 and "correlation" in e.get("args", {})
    }
    bad_flow = 0
    for fid, s in ac2g["s"].items():
        rt = runtime_by_corr.get(fid)
        f = ac2g["f"].get(fid)
        g = gpu_side.get(fid)
        placed = (
            rt is not None
            and g is not None
            and f is not None
            and ns(s["ts"]) == rt["_s"]
            and ns(f["ts"]) == g["_s"]
            and f.get("bp") == "e"
        )
        bad_flow += not placed
    c.true(
        "ac2g flows sit on their runtime call and GPU event",
        bad_flow == 0,
        f"{bad_flow} bad",
    )
    fb = flows["fwdbwd"]
    c.same("fwdbwd s ids == f ids", sorted(fb["s"]), sorted(fb["f"]))
    c.true(
        "fwdbwd: forward before backward",
        all(ns(fb["s"][i]["ts"]) < ns(fb["f"][i]["ts"]) for i in fb["s"]),
    )

    # No GPU work launched from lecture_batch_cpu
    launches = sorted(
        (
            e["_s"]
            for e in xs
            if e["cat"] == "cuda_runtime" and e["name"] in LAUNCH_APIS
        ),
    )
    in_lecture = 0
    for lecture in zones["lecture_batch_cpu"]:
        in_lecture += sum(1 for t in launches if lecture["_s"] <= t < lecture["_e"])
    c.true(
        "no launch inside lecture_batch_cpu", in_lecture == 0, f"{in_lecture} launches"
    )

    # Metadata
    meta = {(e["name"], e["pid"], e["tid"]) for e in events if e["ph"] == "M"}
    for name in ("process_name", "process_labels", "process_sort_index"):
        c.true(f"{name} for the CPU process", (name, exp["pid"], 0) in meta)
        c.true(f"{name} for GPU 0", (name, 0, 0) in meta)
    for pid, tid in (
        (exp["pid"], exp["main_tid"]),
        (exp["pid"], exp["backward_tid"]),
        (0, 7),
        (0, 20),
    ):
        c.true(f"thread_name for {pid}/{tid}", ("thread_name", pid, tid) in meta)
    return c


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="Check a generated trace against its ground truth."
    )
    p.add_argument("trace", type=Path)
    p.add_argument("--expected", type=Path, help="default: TRACE.expected.json")
    args = p.parse_args(argv)
    expected = args.expected or args.trace.with_name(args.trace.name + ".expected.json")
    c = check(args.trace, expected)
    for failure in c.failures:
        print(f"FAIL {failure}")
    print(f"{c.passed} checks passed, {len(c.failures)} failed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
