"""The "many small launches" reading cites its figures, checked against a raw parse
of a real trace, and points at the kernel and the step it rests on."""

from __future__ import annotations

import gzip
import json
import statistics
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tests.builders.app_traces import write_training_trace
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import ShowKernel
from tui.core.findings.small_launches import LaunchFigures, many_small_launches
from tui.core.ingest.load import load_trace
from tui.report.findings import words

TRACES = shared.FOLDER
TRACE = TRACES / "negative_queue_length_values_check-rank0.json.gz"


def _ns(value: Any) -> int:
    return int((Decimal(str(value)) * 1000).to_integral_value())


def _union_in(spans: list[tuple[int, int]], start: int, end: int) -> int:
    clipped = sorted(
        (max(a, start), min(b, end)) for a, b in spans if b > start and a < end
    )
    total, last = 0, None
    for a, b in clipped:
        if last is None or a > last:
            total, last = total + b - a, b
        elif b > last:
            total, last = total + b - last, b
    return total


@pytest.mark.slow
def test_figures_match_a_raw_parse() -> None:
    document = json.loads(gzip.decompress(TRACE.read_bytes()), parse_float=Decimal)
    events = [e for e in document["traceEvents"] if e.get("ph") == "X" and "dur" in e]

    def span(event: dict[str, Any]) -> tuple[int, int]:
        return _ns(event["ts"]), _ns(event["ts"]) + _ns(event["dur"])

    steps = sorted(
        span(e)
        for e in events
        if e["name"].startswith("ProfilerStep#") and e["cat"] == "user_annotation"
    )
    calls = {
        e["args"]["correlation"]: e
        for e in events
        if e["cat"] == "cuda_runtime" and "correlation" in e["args"]
    }
    # A CUDA graph's kernels share its cudaGraphLaunch's correlation: replays,
    # not launches, left out (as HTA's launch statistics leave them).
    every_kernel = [e for e in events if e["cat"] == "kernel"]
    replayed = [
        k
        for k in every_kernel
        if calls.get(k["args"]["correlation"], {}).get("name") == "cudaGraphLaunch"
    ]
    replayed_ids = {id(k) for k in replayed}
    kernels = [k for k in every_kernel if id(k) not in replayed_ids]
    assert replayed  # this trace runs torch.compile with CUDA graphs
    device = [
        span(e) for e in events if e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset")
    ]
    short = [span(e) for e in kernels if _ns(e["dur"]) < 10_000]
    launching = [
        calls[k["args"]["correlation"]]
        for k in kernels
        if k["args"]["correlation"] in calls
    ]
    launch_spans = list({id(c): span(c) for c in launching}.values())
    # The step of a kernel: where its launch call starts (every kernel here has one
    # or an operator with its External id; those without either keep their start).
    issued: list[int] = []
    for kernel in kernels:
        call = calls.get(kernel["args"]["correlation"])
        issued.append(_ns(call["ts"]) if call else _ns(kernel["ts"]))
    per_step = [sum(a <= t < b for t in issued) for a, b in steps]
    short_share = statistics.median(
        _union_in(short, a, b) / _union_in(device, a, b) for a, b in steps
    )
    launch_share = statistics.median(
        _union_in(launch_spans, a, b) / (b - a) for a, b in steps
    )

    finding = many_small_launches(Analysis(load_trace(TRACE)))
    figures = finding.figures
    assert isinstance(figures, LaunchFigures)
    assert figures.kernels == len(kernels)
    assert figures.graph_kernels == len(replayed)
    assert figures.kernels_per_step == per_step
    assert figures.median_kernels_per_step == statistics.median(per_step)
    assert figures.median_kernel_ns == statistics.median(_ns(k["dur"]) for k in kernels)
    assert figures.short_share == short_share
    assert figures.launch_share == launch_share
    in_steps = [
        k
        for k, t in zip(kernels, issued, strict=True)
        if any(a <= t < b for a, b in steps)
    ]
    most = Counter(k["name"] for k in in_steps).most_common(1)[0][0]
    assert figures.kernel == most
    busiest = max(range(len(steps)), key=per_step.__getitem__)
    number = int(
        sorted(
            (
                e
                for e in events
                if e["name"].startswith("ProfilerStep#")
                and e["cat"] == "user_annotation"
            ),
            key=lambda e: _ns(e["ts"]),
        )[busiest]["name"].split("#")[1]
    )
    assert finding.anchor == ShowKernel(most, number)
    said = words(finding).observation
    assert "kernels under 10 µs fill" in said and "launch calls" in said


def test_fixture_figures(tmp_path: Path) -> None:
    """One step of the fixture: a 2.5 ms sgemm and twelve 8 µs relu kernels."""
    finding = many_small_launches(
        Analysis(load_trace(write_training_trace(tmp_path / "t.json", gpu=True)))
    )
    figures = finding.figures
    assert isinstance(figures, LaunchFigures)
    assert figures.short_kernels == 3 * 12
    # Each step's device time: the copy (300 µs), the sgemm (2.5 ms), the relu
    # kernels (12 × 8 µs, apart); thirteen kernel launch calls of 3 µs each (the
    # copy's cudaMemcpyAsync launched no kernel) in a 9.95 ms step.
    assert figures.short_share == 96_000 / (300_000 + 2_500_000 + 96_000)
    assert figures.launch_share == 13 * 3_000 / 9_950_000
    assert finding.anchor == ShowKernel("elementwise_kernel<relu>", 1)
