"""Recompute a generated trace's ground truth independently, and check it.

The generator writes ``PATH.expected.json`` from what it simulated; this
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

Usage: ``python -m tests.support.tracegen.check TRACE [--expected PATH]``; exit 0 when all agree.
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

ZONES = ("lecture_batch_cpu", "transfert", "entrainement")
LAUNCH_APIS = ("cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync")


class Style:
    """What one generation of the profiler writes: categories, ids, header."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.old = name == "1.9"
        self.gpu_busy: tuple[str, ...]
        self.cpu_cats: tuple[str, ...]
        self.ops: tuple[str, ...]
        self.runtime: tuple[str, ...]
        self.header: tuple[str, ...]
        if self.old:  # PyTorch 1.8-1.10
            self.gpu_busy = ("Kernel", "Memcpy", "Memset")
            self.cpu_cats = ("Operator", "Runtime")
            self.annotation = "Operator"
            self.ops = ("Operator",)
            self.runtime = ("Runtime",)
            self.launch_flow = "async"
            self.external_id = "external id"
            self.header = ("schemaVersion", "deviceProperties")
        else:
            self.gpu_busy = ("kernel", "gpu_memcpy", "gpu_memset")
            self.cpu_cats = ("cpu_op", "user_annotation", "cuda_runtime", "cuda_driver")
            self.annotation = "user_annotation"
            self.ops = ("cpu_op", "user_annotation")
            self.runtime = ("cuda_runtime", "cuda_driver")
            self.launch_flow = "ac2g"
            self.external_id = "External id"
            self.header = (
                "schemaVersion",
                "deviceProperties",
                "distributedInfo",
                "record_shapes",
            )

    def tid(self, value: Any) -> Any:
        """A CPU thread id as written: a string of digits in the old style."""
        return str(value) if self.old else value

    def stream_tid(self, stream: int) -> Any:
        """The tid of a device stream's track."""
        return f"stream {stream}" if self.old else stream


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
    style = Style(exp.get("style", "current"))
    gpu_busy = style.gpu_busy
    c = Checker()

    # Header
    for key in style.header:
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
    anns = [e for e in xs if e["cat"] == style.annotation]
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
    gpu = [e for e in xs if e["cat"] in gpu_busy]
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
    for cat in gpu_busy:
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
    threads: dict[tuple[int, Any], list[dict[str, Any]]] = defaultdict(list)
    for e in xs:
        if e["cat"] in style.cpu_cats:
            threads[e["pid"], e["tid"]].append(e)
    bad_nesting = 0
    for evs in threads.values():
        evs.sort(key=lambda e: (e["_s"], -e["_e"]))
        stack: list[dict[str, Any]] = []
        for e in evs:
            while stack and stack[-1]["_e"] <= e["_s"]:
                stack.pop()
            e["_parent"] = stack[-1] if stack else None
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
    check_ops(c, threads, gpu, style, exp)

    runtime_by_corr = {
        e["args"]["correlation"]: e for e in xs if e["cat"] in style.runtime
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
        c.true(
            "GPU event stream == tid",
            style.stream_tid(e["args"]["stream"]) == e["tid"],
        )
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
            {"correlation", style.external_id, "device", "stream", "grid", "block"}
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
    ac2g = flows[style.launch_flow]
    c.same("launch flows: s ids == f ids", sorted(ac2g["s"]), sorted(ac2g["f"]))
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
        "launch flows sit on their runtime call and GPU event",
        bad_flow == 0,
        f"{bad_flow} bad",
    )
    fb = flows["fwdbwd"]
    c.same("fwdbwd s ids == f ids", sorted(fb["s"]), sorted(fb["f"]))
    c.true(
        "fwdbwd: forward before backward",
        all(ns(fb["s"][i]["ts"]) < ns(fb["f"][i]["ts"]) for i in fb["s"]),
    )
    c.true("fwdbwd flows only after PyTorch 1.10", bool(fb["s"]) != style.old)

    # No GPU work launched from lecture_batch_cpu
    launches = sorted(
        (e["_s"] for e in xs if e["cat"] in style.runtime and e["name"] in LAUNCH_APIS),
    )
    in_lecture = 0
    for lecture in zones["lecture_batch_cpu"]:
        in_lecture += sum(1 for t in launches if lecture["_s"] <= t < lecture["_e"])
    c.true(
        "no launch inside lecture_batch_cpu", in_lecture == 0, f"{in_lecture} launches"
    )

    # Metadata
    meta = {(e["name"], e["pid"], e["tid"]) for e in events if e["ph"] == "M"}
    process_names: tuple[str, ...] = ("process_name", "process_labels")
    if not style.old:
        process_names += ("process_sort_index",)
    for name in process_names:
        c.true(f"{name} for the CPU process", (name, exp["pid"], 0) in meta)
        c.true(f"{name} for GPU 0", (name, 0, 0) in meta)
    threads_named = [
        (exp["pid"], style.tid(exp["main_tid"])),
        (exp["pid"], style.tid(exp["backward_tid"])),
    ]
    if not style.old:
        threads_named += [(0, 7), (0, 20)]
    for pid, tid in threads_named:
        c.true(f"thread_name for {pid}/{tid}", ("thread_name", pid, tid) in meta)
    return c


def check_ops(
    c: Checker,
    threads: dict[tuple[int, Any], list[dict[str, Any]]],
    gpu: list[dict[str, Any]],
    style: Style,
    exp: dict[str, Any],
) -> None:
    """torch's key_averages() per name, recomputed from the nesting found above.

    Self CPU is the duration minus the direct children's (runtime calls
    included); GPU self time is the device work whose External id is the op's,
    GPU total adds the descendants' on the same thread.
    """
    cpu = [e for evs in threads.values() for e in evs]
    by_external = {
        e["args"]["External id"]: e
        for e in cpu
        if e["cat"] in style.ops and "External id" in e.get("args", {})
    }
    for e in cpu:
        e["_children"] = 0
        e["_gpu"] = 0
        e["_gpu_total"] = 0
    for e in cpu:
        if e["_parent"] is not None:
            e["_parent"]["_children"] += e["_e"] - e["_s"]
    for g in gpu:
        owner = by_external.get(g["args"].get(style.external_id))
        if owner is not None:
            owner["_gpu"] += g["_e"] - g["_s"]
    # Deepest first: a child's GPU total is final before its parent's is read.
    depth: dict[int, int] = {}
    for e in cpu:
        level, up = 0, e["_parent"]
        while up is not None:
            level, up = level + 1, up["_parent"]
        depth[id(e)] = level
    for e in sorted(cpu, key=lambda e: -depth[id(e)]):
        e["_gpu_total"] += e["_gpu"]
        if e["_parent"] is not None:
            e["_parent"]["_gpu_total"] += e["_gpu_total"]
    ops: dict[str, dict[str, int]] = {}
    for e in cpu:
        row = ops.setdefault(
            e["name"],
            dict.fromkeys(
                ("calls", "self_cpu_ns", "total_cpu_ns", "self_gpu_ns", "total_gpu_ns"),
                0,
            ),
        )
        row["calls"] += 1
        row["self_cpu_ns"] += e["_e"] - e["_s"] - e["_children"]
        row["total_cpu_ns"] += e["_e"] - e["_s"]
        row["self_gpu_ns"] += e["_gpu"]
        row["total_gpu_ns"] += e["_gpu_total"]
    want = exp["ops"]
    c.same("ops: names", sorted(ops), sorted(want))
    wrong = [name for name in sorted(ops) if name in want and ops[name] != want[name]]
    c.true(
        "ops: calls and self/total CPU and GPU time per name",
        not wrong,
        "; ".join(f"{name}: {ops[name]} != {want[name]}" for name in wrong[:3]),
    )


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
