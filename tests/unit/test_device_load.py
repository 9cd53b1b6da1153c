"""The device-load figure on hand-made steps whose busy time and queue are known.

Each expectation is recomputed here by plain arithmetic over the built
intervals (a set of whole microseconds for the union, sums of waits for the
queue), never by the interval code under test.
"""

from __future__ import annotations

from pathlib import Path
from statistics import median
from typing import Any

import pytest

from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.core.figures.analysis import Analysis
from tui.core.figures.device_load import DeviceLoad, device_load
from tui.core.ingest.load import load_trace

STEP_US = 1000


def _kernel(
    name: str, call_us: float, start_us: float, dur_us: float, corr: int, stream: int
) -> list[dict[str, Any]]:
    return [
        cpu("cudaLaunchKernel", call_us, 1, cat="cuda_runtime", correlation=corr),
        gpu(name, start_us, dur_us, correlation=corr, stream=stream),
    ]


def _trace(tmp_path: Path, name: str, kernels: list[tuple[Any, ...]]) -> Path:
    """Two steps of 1 ms; `kernels` (name, call, start, dur, stream) per step,
    in µs from the step's start."""
    events = list(metadata())
    for step in range(2):
        at = step * STEP_US
        events.append(
            cpu(f"ProfilerStep#{step + 1}", at, STEP_US, cat="user_annotation")
        )
        for index, (kernel, call, start, dur, stream) in enumerate(kernels):
            corr = step * 100 + index + 1
            events += _kernel(kernel, at + call, at + start, dur, corr, stream)
    return write_trace(tmp_path / f"{name}.json", events)


def _load(path: Path) -> DeviceLoad:
    (load,) = device_load(Analysis(load_trace(path)))
    return load


# Back to back on stream 7 from 50 µs to the step's end, every launch issued
# at the step's start: the host is far ahead of a device busy 95 % of the step.
SATURATED = [("gemm", 10 + 2 * i, 50 + 190 * i, 190, 7) for i in range(5)]
# Each kernel launched just before it runs, 50 µs each: the host sets the pace.
HOST_PACED = [("add", 100 + 200 * i, 110 + 200 * i, 50, 7) for i in range(5)]
# Two streams of the same device overlapping: 100..500 and 300..700.
TWO_STREAMS = [("gemm", 10, 100, 400, 7), ("copy_like", 20, 300, 400, 8)]


def _union_us(kernels: list[tuple[Any, ...]]) -> int:
    covered: set[int] = set()
    for _name, _call, start, dur, _stream in kernels:
        covered.update(range(int(start), int(start + dur)))
    return len(covered)


def _depth(kernels: list[tuple[Any, ...]]) -> float:
    return float(sum(start - call for _n, call, start, _d, _s in kernels)) / STEP_US


def test_a_saturated_device_with_the_host_ahead(tmp_path: Path) -> None:
    load = _load(_trace(tmp_path, "saturated", SATURATED))
    assert [step.step for step in load.steps] == [1, 2]
    assert load.busy_share_median == pytest.approx(_union_us(SATURATED) / STEP_US)
    assert load.busy_share_median == pytest.approx(0.95)
    assert load.queue_depth_median == pytest.approx(_depth(SATURATED))
    assert load.queue_depth_median is not None and load.queue_depth_median > 2
    leads = [start - call for _n, call, start, _d, _s in SATURATED]
    assert load.launch_lead_median_ns == median(leads) * 1000
    assert load.host_ahead and load.saturated
    (top,) = load.top_kernels
    assert top.name == "gemm" and top.ns_per_step == 950_000


def test_a_host_paced_device_is_not_saturated(tmp_path: Path) -> None:
    load = _load(_trace(tmp_path, "paced", HOST_PACED))
    assert load.busy_share_median == pytest.approx(_union_us(HOST_PACED) / STEP_US)
    assert load.queue_depth_median == pytest.approx(_depth(HOST_PACED))
    assert load.launch_lead_median_ns == 10_000
    assert not load.host_ahead and not load.saturated


def test_overlapping_streams_count_once(tmp_path: Path) -> None:
    """Busy is the union over the device's streams (600 µs), not the sum (800)."""
    load = _load(_trace(tmp_path, "streams", TWO_STREAMS))
    assert load.busy_share_median == pytest.approx(_union_us(TWO_STREAMS) / STEP_US)
    assert load.busy_share_median == pytest.approx(0.6)
    assert load.queue_depth_median == pytest.approx(_depth(TWO_STREAMS))
    assert [kernel.name for kernel in load.top_kernels] == ["copy_like", "gemm"]


def test_busy_device_with_a_paced_host_is_not_saturated(tmp_path: Path) -> None:
    """Busy 90 % but each kernel launched 5 µs before it runs: the host keeps the
    pace, so the device is not the reading (no queue, no lead)."""
    busy = [("long", 50 + 300 * i, 55 + 300 * i, 300, 7) for i in range(3)]
    load = _load(_trace(tmp_path, "busy_paced", busy))
    assert load.busy_share_median == pytest.approx(0.9)
    assert not load.host_ahead and not load.saturated


def test_cpu_only_capture_has_no_device_load(shared_traces: Path) -> None:
    trace = load_trace(
        shared_traces / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    )
    assert device_load(Analysis(trace)) == ()


def test_long_leads_over_a_queue_of_one_run_ahead(tmp_path: Path) -> None:
    """Three kernels launched at the step's start: about one op queued on average
    (below the depth rule alone) and a median lead of 338 µs, a third of the
    step: the host issued them long before they ran."""
    ahead = [("gemm", 10 + 2 * i, 50 + 300 * i, 300, 7) for i in range(3)]
    load = _load(_trace(tmp_path, "lead", ahead))
    assert load.queue_depth_median == pytest.approx(_depth(ahead))
    assert 1 <= _depth(ahead) < 2
    assert load.launch_lead_median_ns == 338_000
    assert load.host_ahead and load.saturated


def test_real_traces(shared_traces: Path) -> None:
    """A busy queue on a device busy less than half the step is not saturated
    (timeline_analysis); a long lead over an empty queue is not the host
    running ahead (trace_compare's base)."""
    sampled = Analysis(
        load_trace(shared_traces / "timeline_analysis-sampled_rank-0.json.gz")
    )
    (load,) = device_load(sampled)
    assert load.host_ahead and load.queue_depth_median is not None
    assert load.busy_share_median < 0.5 and not load.saturated
    base = Analysis(load_trace(shared_traces / "trace_compare-base-base.json.gz"))
    (idle,) = device_load(base)
    assert idle.launch_lead_median_ns is not None and idle.launch_lead_median_ns > 0
    assert idle.queue_depth_median is not None and idle.queue_depth_median < 1
    assert not idle.host_ahead
