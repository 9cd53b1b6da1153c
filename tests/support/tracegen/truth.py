"""The ground truth: what the generator knows exactly while it writes events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.tracegen.formats import (
    COPY_STREAM,
    DEVICE,
    GPU_BUSY_CATS,
    MAIN_STREAM,
    OLD_CATEGORIES,
    SYNC_TID,
)


class Stats:
    """Ground truth accumulated while events are written."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = {}
        self.by_cat: dict[str, int] = {}
        self.by_ph: dict[str, int] = {"X": 0, "s": 0, "f": 0, "M": 0, "i": 0}
        self.steps: list[dict[str, Any]] = []
        self.zone_totals: dict[str, list[int]] = {}
        self.busy_ns = 0
        self.idle_in_lecture_ns = 0
        self.gpu_sums = dict.fromkeys(GPU_BUSY_CATS, 0)
        self.gpu_counts = dict.fromkeys(GPU_BUSY_CATS, 0)
        # Per name: calls, self CPU, total CPU, self GPU, total GPU (ns).
        self.ops: dict[str, list[int]] = {}


def merge(intervals: list[tuple[int, int]]) -> list[list[int]]:
    """Sorted, disjoint union of half-open intervals."""
    merged: list[list[int]] = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1][1] = e
        else:
            merged.append([s, e])
    return merged


def covered(merged: list[list[int]], a: int, b: int) -> int:
    """Length of [a, b) covered by sorted, disjoint segments."""
    total = 0
    for s, e in merged:
        if e <= a:
            continue
        if s >= b:
            break
        total += min(e, b) - max(s, a)
    return total


# The figures of one ``ops`` entry: torch's key_averages() per name, in ns.
OP_FIGURES = ("calls", "self_cpu_ns", "total_cpu_ns", "self_gpu_ns", "total_gpu_ns")


def expected_truth(
    stats: Stats,
    path: Path,
    raw: int,
    gz: bool,
    seed: int,
    pid: int,
    bwd_tid: int,
    base_ts_ns: int,
    first_step: int,
    style: str,
) -> dict[str, Any]:
    """The content of ``PATH.expected.json`` from what was simulated."""
    calls: dict[str, dict[str, int]] = {}
    for (cat, name), n in sorted(stats.calls.items()):
        calls.setdefault(cat, {})[name] = n
    lecture = stats.zone_totals.get("lecture_batch_cpu", [0, 0])
    durations = [s["dur_ns"] for s in stats.steps]
    dev = str(DEVICE)
    return {
        "schema": "steptrace-synthetic-expected/1",
        "generator": "tests/support/tracegen",
        "seed": seed,
        "style": style,
        "trace": path.name,
        "gzip": gz,
        "raw_bytes": raw,
        "time_unit": "ns",
        "note": (
            "Times are exact integer nanoseconds, read from the 3-decimal "
            "microsecond text of ts/dur. At epoch scale a float64 microsecond "
            "has a resolution of about 0.25 us: a reader that parses ts as a "
            "float should compare with about 1 us of tolerance per boundary."
        ),
        "pid": pid,
        "main_tid": pid,
        "backward_tid": bwd_tid,
        "gpu": {
            "device": DEVICE,
            "streams": [MAIN_STREAM, COPY_STREAM],
            "sync_tid": SYNC_TID,
        },
        "first_step_ts_ns": base_ts_ns,
        "steps": {
            "count": len(durations),
            "first": f"ProfilerStep#{first_step}",
            "durations_ns": durations,
            "total_ns": sum(durations),
        },
        "zones": {
            name: {"count": c, "total_ns": ns}
            for name, (c, ns) in sorted(stats.zone_totals.items())
        },
        "lecture_batch_cpu_total_ns": lecture[1],
        "gpu_busy_ns": {dev: stats.busy_ns},
        "gpu_busy_definition": (
            "length of the union of the kernel, gpu_memcpy and gpu_memset intervals "
            "of the device, all streams together"
        ),
        "gpu_idle_in_lecture_batch_cpu_ns": {dev: stats.idle_in_lecture_ns},
        "gpu_activity": {
            (OLD_CATEGORIES[cat] if style == "1.9" else cat): {
                "count": stats.gpu_counts[cat],
                "sum_ns": stats.gpu_sums[cat],
            }
            for cat in GPU_BUSY_CATS
        },
        "events": {
            "total": sum(stats.by_ph.values()),
            "by_ph": dict(sorted(stats.by_ph.items())),
            "by_cat": dict(sorted(stats.by_cat.items())),
            "without_cat": stats.by_ph["M"] + stats.by_ph["i"],
        },
        "distinct_names": len({name for _cat, name in stats.calls}),
        "calls": calls,
        "ops": {
            name: dict(zip(OP_FIGURES, figures, strict=True))
            for name, figures in sorted(stats.ops.items())
        },
        "per_step": stats.steps,
    }
