"""Kernels and launches against two oracles: HTA 0.5.0's launch statistics
(tests/fixtures/hta/hta_figures.json, DEFINITIONS.md §8) and an independent
parse of the raw JSON of the shared GPU traces.

Where the definitions coincide the figures agree exactly. They differ in
three ways, so the HTA comparison selects and rounds as HTA does: HTA counts
only work launched by its named calls (cudaLaunchKernel[ExC], cudaMemcpyAsync,
cudaMemsetAsync, MTIA's runFunction), while steptrace follows any runtime
call linked by correlation (hipLaunchKernel on ROCm, cuLaunchKernel for
Triton, where HTA finds nothing); HTA's statistics pool kernels, copies and
sets, while `steptrace kernels` gives them per kernel name; and HTA rounds
fractional timestamps inward on float64 µs (§1.3), while steptrace keeps
nanoseconds. Both read a delay below 0 (clock skew) as 0.
"""

from __future__ import annotations

import gzip
import json
import math
import statistics
from collections import defaultdict
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import shared_traces as shared
from tui.core.base.intervals import Intervals
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import kernel_events, kernel_stats
from tui.core.figures.launches import Launches, LaunchSummary
from tui.core.ingest.load import load_trace

TRACES = shared.FOLDER
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hta" / "hta_figures.json"
HTA = json.loads(FIXTURE.read_text())
# HTA's launch calls (include_memory_events=True), DEFINITIONS.md §8.
HTA_LAUNCH_NAMES = {
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "runFunction - job_prep_and_submit_for_execution",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
}
# Traces whose timestamps have fractions of a µs: HTA rounds them inward (§1.3).
FRACTIONAL = {
    "amd_trace-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "mtia_trace_single_rank-mtia_rank_0.json.gz",
    "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "triton_example-triton_example.json.gz",
}
TRACE_NAMES = sorted(HTA["traces"])


@cache
def _analysis(name: str) -> Analysis:
    return Analysis(load_trace(TRACES / name))


def _hta_launches(analysis: Analysis) -> Launches:
    """Device work launched by one of HTA's launch calls, with our link to its call."""
    trace = analysis.trace
    device = np.flatnonzero(trace.device_work_mask)
    call = analysis.launch_call[device]
    named = np.array(
        [
            c >= 0 and trace.event_name(int(c)) in HTA_LAUNCH_NAMES
            for c in call.tolist()
        ],
        dtype=bool,
    )
    return Launches.of(trace, analysis.launch_call, device[named])


def _hta_rounded(analysis: Analysis, launches: Launches) -> dict[str, list[int]]:
    """cpu/gpu durations and delays in whole µs after HTA's inward rounding,
    done as HTA does it: on float64 µs (§1.3), where an epoch of 1.7e15 µs
    keeps only quarters of a µs."""
    trace = analysis.trace
    origin = trace.origin_ns

    def rounded(events: np.ndarray) -> tuple[list[int], list[int]]:
        starts: list[int] = []
        ends: list[int] = []
        for start, duration in zip(
            trace.start_ns[events].tolist(),
            trace.duration_ns[events].tolist(),
            strict=True,
        ):
            ts = float(Decimal(origin + start) / 1000)  # what json.loads gives
            dur = float(Decimal(duration) / 1000)
            starts.append(math.ceil(ts))
            ends.append(math.floor(ts + dur))
        return starts, ends

    gpu_ts, gpu_end = rounded(launches.events)
    cpu_ts, cpu_end = rounded(launches.call)
    return {
        "cpu": [int(e - s) for s, e in zip(cpu_ts, cpu_end, strict=True)],
        "gpu": [int(e - s) for s, e in zip(gpu_ts, gpu_end, strict=True)],
        "delay": [int(max(g - c, 0)) for g, c in zip(gpu_ts, cpu_end, strict=True)],
    }


@pytest.mark.parametrize("name", TRACE_NAMES, ids=lambda n: n.split("-")[0])
def test_launch_links_agree_with_hta(name: str) -> None:
    """Which work each launch call started, and HTA's figures recomputed on our links."""
    (hta,) = HTA["traces"][name]["cuda_kernel_launch_stats"].values()
    analysis = _analysis(name)
    launches = _hta_launches(analysis)
    assert launches.linked.all()
    assert launches.events.size == hta["events"]
    if hta["events"] == 0:
        return
    if name in FRACTIONAL:
        rounded = _hta_rounded(analysis, launches)
        cpu, gpu, delay = rounded["cpu"], rounded["gpu"], rounded["delay"]
    else:
        # Integer µs timestamps: HTA's arithmetic is ours, in µs.
        cpu = [v // 1000 for v in launches.call_ns.tolist()]
        gpu = [v // 1000 for v in analysis.trace.duration_ns[launches.events].tolist()]
        delay = [v // 1000 for v in launches.delay_ns.tolist()]
    assert sum(cpu) == hta["sum_cpu_duration"]
    assert sum(gpu) == hta["sum_gpu_duration"]
    assert sum(delay) == hta["sum_launch_delay"]
    assert statistics.median(cpu) == hta["median_cpu_duration"]
    assert statistics.median(gpu) == hta["median_gpu_duration"]
    assert statistics.median(delay) == hta["median_launch_delay"]
    assert sum(v > 50 for v in cpu) == hta["cpu_duration_gt_runtime_cutoff"]
    assert sum(v > 100 for v in delay) == hta["launch_delay_gt_cutoff"]
    assert sum(v < 10 for v in gpu) == hta["gpu_duration_lt_10us"]


@pytest.mark.parametrize(
    "name", sorted(set(TRACE_NAMES) - FRACTIONAL), ids=lambda n: n.split("-")[0]
)
def test_launch_summary_is_htas_on_integer_traces(name: str) -> None:
    """Where timestamps are whole µs, our summary is HTA's to the nanosecond."""
    (hta,) = HTA["traces"][name]["cuda_kernel_launch_stats"].values()
    analysis = _analysis(name)
    summary = LaunchSummary.of(analysis.trace, _hta_launches(analysis))
    assert summary.linked == summary.events == hta["events"]
    if hta["events"] == 0:
        assert summary.call_median_ns is None and summary.call_total_ns is None
        return
    assert summary.call_total_ns == hta["sum_cpu_duration"] * 1000
    assert summary.work_total_ns == hta["sum_gpu_duration"] * 1000
    assert summary.delay_total_ns == hta["sum_launch_delay"] * 1000
    assert summary.call_median_ns == hta["median_cpu_duration"] * 1000
    assert summary.work_median_ns == hta["median_gpu_duration"] * 1000
    assert summary.delay_median_ns == hta["median_launch_delay"] * 1000
    assert summary.slow_calls == hta["cpu_duration_gt_runtime_cutoff"]
    assert summary.late_starts == hta["launch_delay_gt_cutoff"]
    assert summary.short_work == hta["gpu_duration_lt_10us"]


# -- per kernel name, against the raw JSON -------------------------------------

RAW_TRACES = [
    "timeline_analysis-sampled_rank-0.json.gz",
    "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
]
DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}


def _ns(value: Any) -> int:
    return int((Decimal(str(value)) * 1000).to_integral_value())


def _raw(name: str) -> list[dict[str, Any]]:
    document = json.loads(
        gzip.decompress((TRACES / name).read_bytes()), parse_float=Decimal
    )
    events: list[dict[str, Any]] = document["traceEvents"]
    return [e for e in events if e.get("ph") == "X" and "dur" in e]


def _union_ns(intervals: list[tuple[int, int]]) -> int:
    total, end = 0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


@pytest.mark.parametrize("name", RAW_TRACES, ids=lambda n: n.split("-")[0])
def test_kernel_stats_match_a_raw_parse(name: str) -> None:
    events = _raw(name)
    calls: dict[int, dict[str, Any]] = {}
    for event in events:
        if event.get("cat") == "cuda_runtime" and "correlation" in event.get(
            "args", {}
        ):
            calls[event["args"]["correlation"]] = event
    device: list[tuple[int, int]] = []
    per_name: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event.get("cat") in DEVICE_CATEGORIES:
            device.append((_ns(event["ts"]), _ns(event["ts"]) + _ns(event["dur"])))
        if event.get("cat") == "kernel":
            per_name[event["name"]].append(event)
    busy = _union_ns(device)

    analysis = _analysis(name)
    trace = analysis.trace
    stats = kernel_stats(
        trace, kernel_events(trace), analysis.launch_call, analysis.busy_all_devices
    )
    assert stats.busy_ns == busy
    assert sorted(stats.table.names) == sorted(per_name)
    for row, kernel in enumerate(stats.table.names):
        members = per_name[kernel]
        spans = [(_ns(e["ts"]), _ns(e["ts"]) + _ns(e["dur"])) for e in members]
        assert stats.covered_ns[row] == _union_ns(spans)
        assert stats.busy_share(row) == _union_ns(spans) / busy
        assert stats.short_count[row] == sum(_ns(e["dur"]) < 10_000 for e in members)
        launched = [
            (e, calls[e["args"]["correlation"]])
            for e in members
            if e["args"].get("correlation") in calls
        ]
        assert stats.linked[row] == len(launched)
        if not launched:
            assert np.isnan(stats.launch_median_ns[row])
            continue
        call_ns = [_ns(c["dur"]) for _, c in launched]
        delays = [
            max(_ns(e["ts"]) - _ns(c["ts"]) - _ns(c["dur"]), 0) for e, c in launched
        ]
        assert stats.launch_median_ns[row] == statistics.median(call_ns)
        assert stats.delay_median_ns[row] == statistics.median(delays)
        assert stats.slow_launches[row] == sum(v > 50_000 for v in call_ns)
        assert stats.late_starts[row] == sum(v > 100_000 for v in delays)


def test_step_scope_clips_busy_and_keeps_kernels_starting_in_it() -> None:
    name = "negative_queue_length_values_check-rank0.json.gz"
    analysis = _analysis(name)
    trace = analysis.trace
    step = analysis.steps[len(analysis.steps) // 2]
    scope = (step.start_ns, step.end_ns)
    kernels = kernel_events(trace, *scope)
    stats = kernel_stats(
        trace, kernels, analysis.launch_call, analysis.busy_all_devices, scope
    )
    # Brute force: device work intervals clipped to the step, merged by hand.
    work = np.flatnonzero(trace.device_work_mask)
    starts = np.maximum(trace.start_ns[work], step.start_ns)
    ends = np.minimum(trace.end_ns[work], step.end_ns)
    keep = ends > starts
    pairs = list(zip(starts[keep].tolist(), ends[keep].tolist(), strict=True))
    assert stats.busy_ns == _union_ns(pairs)
    assert int(stats.table.count.sum()) == kernels.size
    starts_in = trace.start_ns[kernels]
    assert ((starts_in >= step.start_ns) & (starts_in < step.end_ns)).all()
    for row in range(len(stats)):
        union = Intervals.union_of(
            trace.start_ns[stats.table.events[row]],
            trace.end_ns[stats.table.events[row]],
        ).clip(*scope)
        assert stats.covered_ns[row] == union.total_ns <= stats.busy_ns
