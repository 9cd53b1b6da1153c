"""Per-step and steptrace-rules breakdowns against a brute-force model of the raw JSON.

The model parses the trace with `json`, marks every microsecond each device
op covers on a boolean grid (timeline_analysis has whole-µs timestamps), and
counts cells: no interval algebra, no steptrace code.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from typing import Any

import numpy as np
import pytest

from tests import shared_traces as shared
from tui.core.figures.breakdown.gpu import KERNEL_WAIT_NS, Breakdown
from tui.core.ingest.load import load_trace
from tui.core.runs.rank_summary import RankSummary, summarise_trace

TRACES = shared.FOLDER
NAME = "timeline_analysis-sampled_rank-0.json.gz"
DEVICE_CATEGORIES = {"kernel": "op", "gpu_memcpy": "memory", "gpu_memset": "memory"}
CLASSES = ("COMPUTATION", "COMMUNICATION", "MEMORY")


@cache
def model() -> dict[str, Any]:
    """The raw JSON on a µs grid: per class, per stream, steps and launch times."""
    document = json.loads(gzip.decompress((TRACES / NAME).read_bytes()))
    events = [event for event in document["traceEvents"] if event.get("ph") == "X"]
    device = [event for event in events if event.get("cat") in DEVICE_CATEGORIES]
    launches = {
        event["args"]["correlation"]: int(event["ts"])
        for event in events
        if event.get("cat") == "cuda_runtime" and "correlation" in event.get("args", {})
    }
    origin = min(int(event["ts"]) for event in events)
    end = max(int(event["ts"] + event["dur"]) for event in events) - origin
    grids = {name: np.zeros(end, dtype=bool) for name in CLASSES}
    streams: dict[int, list[tuple[int, int, int | None]]] = {}
    for event in device:
        start = int(event["ts"]) - origin
        stop = int(event["ts"] + event["dur"]) - origin
        if DEVICE_CATEGORIES[event["cat"]] == "memory":
            kind = "MEMORY"
        elif event["name"].startswith("nccl"):
            kind = "COMMUNICATION"
        else:
            kind = "COMPUTATION"
        grids[kind][start:stop] = True
        launch = launches.get(event["args"].get("correlation"))
        streams.setdefault(event["args"]["stream"], []).append(
            (start, stop, None if launch is None else launch - origin)
        )
    steps = sorted(
        (int(event["name"].split("#")[1]), int(event["ts"]) - origin, int(event["dur"]))
        for event in events
        if event["name"].startswith("ProfilerStep#")
    )
    return {"grids": grids, "streams": streams, "steps": steps, "end": end}


def cause_grid(ops: list[tuple[int, int, int | None]], end: int) -> dict[str, Any]:
    """Each idle µs between a stream's first and last op, by the cause of its gap."""
    busy = np.zeros(end, dtype=bool)
    for start, stop, _ in ops:
        busy[start:stop] = True
    first = min(start for start, _, _ in ops)
    last = max(stop for _, stop, _ in ops)
    grids = {
        cause: np.zeros(end, dtype=bool)
        for cause in ("host_wait", "kernel_wait", "other")
    }
    position = first
    while position < last:
        if busy[position]:
            position += 1
            continue
        gap_end = position
        while not busy[gap_end]:
            gap_end += 1
        after = [launch for start, _, launch in ops if start == gap_end]
        launch = min(after, key=lambda value: -1 if value is None else value)
        if launch is not None and launch > position:
            cause = "host_wait"
        elif (gap_end - position) * 1000 < KERNEL_WAIT_NS:
            cause = "kernel_wait"
        else:
            cause = "other"
        grids[cause][position:gap_end] = True
        position = gap_end
    return grids


def expected_figures(start: int, stop: int) -> dict[str, Any]:
    grids = model()["grids"]
    window = slice(start, stop)
    comp, comm, memory = (grids[name][window] for name in CLASSES)
    busy = comp | comm | memory
    combos = {}
    for bits in range(1, 8):
        members = [CLASSES[index] for index in range(3) if bits & (1 << index)]
        chosen = np.ones(stop - start, dtype=bool)
        for index, grid in enumerate((comp, comm, memory)):
            chosen &= grid if bits & (1 << index) else ~grid
        if chosen.sum():
            combos[" overlapping ".join(members)] = int(chosen.sum())
    return {
        "busy": int(busy.sum()),
        "compute": int(comp.sum()),
        "overlap": 100.0 * int((comp & comm).sum()) / int(comm.sum())
        if comm.sum()
        else None,
        "combos": combos,
    }


def check(ours: Breakdown, span_us: int, expected: dict[str, Any]) -> None:
    assert ours.span_ns == span_us * 1000
    assert ours.idle_ns == (span_us - expected["busy"]) * 1000
    assert ours.compute_ns == expected["compute"] * 1000
    assert ours.non_compute_ns == (expected["busy"] - expected["compute"]) * 1000
    if expected["overlap"] is None:
        assert ours.comm_comp_overlap_pct is None
    else:
        assert ours.comm_comp_overlap_pct == pytest.approx(expected["overlap"])
    assert {part.label: part.ns for part in ours.kernel_types} == {
        label: value * 1000 for label, value in expected["combos"].items()
    }


@pytest.fixture(scope="module")
def summary() -> RankSummary:
    return summarise_trace(load_trace(TRACES / NAME))


def test_per_step_figures_match_the_grid_under_both_rules(summary: RankSummary) -> None:
    steps = model()["steps"]
    assert [step.number for step in summary.steps] == [number for number, _, _ in steps]
    for step, (_, start, duration) in zip(summary.steps, steps, strict=True):
        expected = expected_figures(start, start + duration)
        assert step.breakdown is not None and step.breakdown_steptrace is not None
        check(step.breakdown, duration, expected)
        check(step.breakdown_steptrace, duration, expected)


def test_steptrace_idle_by_cause_per_step_matches_the_grid(
    summary: RankSummary,
) -> None:
    data = model()
    by_stream = {
        stream: cause_grid(ops, data["end"]) for stream, ops in data["streams"].items()
    }
    for step, (_, start, duration) in zip(summary.steps, data["steps"], strict=True):
        assert step.breakdown_steptrace is not None
        ours = {
            (part.stream, part.cause.value): part.ns
            for part in step.breakdown_steptrace.idle_by_cause
        }
        expected = {
            (stream, cause): int(grid[start : start + duration].sum()) * 1000
            for stream, grids in by_stream.items()
            for cause, grid in grids.items()
            if grid[start : start + duration].any()
        }
        assert ours == expected


def test_whole_capture_under_steptrace_rules_matches_the_grid(
    summary: RankSummary,
) -> None:
    data = model()
    grids = data["grids"]
    busy = grids["COMPUTATION"] | grids["COMMUNICATION"] | grids["MEMORY"]
    first = int(np.argmax(busy))
    last = busy.size - int(np.argmax(busy[::-1]))
    expected = expected_figures(first, last)
    assert summary.breakdown_steptrace is not None
    check(summary.breakdown_steptrace, last - first, expected)
    by_stream = {
        stream: cause_grid(ops, data["end"]) for stream, ops in data["streams"].items()
    }
    whole = {
        (part.stream, part.cause.value): part.ns
        for part in summary.breakdown_steptrace.idle_by_cause
    }
    for stream, grids_by_cause in by_stream.items():
        for cause, grid in grids_by_cause.items():
            assert whole.get((stream, cause), 0) == int(grid.sum()) * 1000


def test_a_step_never_holds_more_than_the_whole_capture(summary: RankSummary) -> None:
    whole = summary.breakdown
    assert whole is not None
    steps = [step.breakdown for step in summary.steps if step.breakdown]
    assert sum(step.compute_ns for step in steps) <= whole.compute_ns
    assert sum(step.busy_ns for step in steps) <= whole.busy_ns
