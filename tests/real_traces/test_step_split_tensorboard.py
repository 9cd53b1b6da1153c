"""The step split on the shared real traces: equal to torch-tb-profiler's own
figures (tests/fixtures/tensorboard, made by make_tb_fixture.py), parts that
add up to the step, and Kernel and Memcpy recomputed here from the raw JSON.
"""

from __future__ import annotations

import gzip
import json
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tui.core.figures.analysis import Analysis
from tui.core.figures.step_split import PARTS, StepBreakdown, step_breakdown
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Trace

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tensorboard"
    / "tb_step_costs.json"
)
# The collectives torch-tb-profiler knows (trace.py NcclOpNameSet, GlooOpNameSet).
TENSORBOARD_COLLECTIVES = {
    f"{library}:{op}"
    for library in ("nccl", "gloo")
    for op in ("broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter")
}
# torch-tb-profiler keeps microseconds in floats: a few ulps of 1e5 us apart.
FLOAT_US = 0.002


@cache
def tensorboard() -> dict[str, Any]:
    traces: dict[str, Any] = json.loads(FIXTURE.read_text())["traces"]
    return traces


@cache
def loaded(name: str) -> tuple[Trace, StepBreakdown | None]:
    trace = load_trace(shared.FOLDER / name)
    return trace, step_breakdown(trace, Analysis(trace).steps)


WITH_STEPS = sorted(
    name
    for name, figures in tensorboard().items()
    if figures["avg_costs"]["total"] >= 0
)


@pytest.mark.parametrize("name", WITH_STEPS)
def test_every_step_equals_tensorboard(name: str) -> None:
    theirs = tensorboard()[name]
    _, ours = loaded(name)
    assert ours is not None
    assert [str(step.step or 0) for step in ours.steps] == theirs["steps_names"]
    for mine, expected in zip(ours.steps, theirs["steps_costs"], strict=True):
        assert mine.total_ns / 1e3 == pytest.approx(expected["total"], abs=FLOAT_US)
        for part in PARTS:
            got = getattr(mine, f"{part}_ns") / 1e3
            assert got == pytest.approx(expected[part], abs=FLOAT_US), part


@pytest.mark.parametrize("name", WITH_STEPS)
def test_the_parts_add_up_to_the_step(name: str) -> None:
    _, ours = loaded(name)
    assert ours is not None
    for step in ours.steps:
        assert sum(getattr(step, f"{part}_ns") for part in PARTS) == step.total_ns


def test_a_trace_without_steps_or_operators_has_no_split() -> None:
    # torch-tb-profiler makes one step from no CPU operator: its total is negative.
    name = "trace_file_list-inference_rank_1.json.gz"
    assert tensorboard()[name]["avg_costs"]["total"] < 0
    assert loaded(name)[1] is None


def test_a_cpu_only_trace_observes_no_device() -> None:
    _, ours = loaded("cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
    assert ours is not None and not ours.device_observed
    for step in ours.steps:
        assert (step.kernel_ns, step.memcpy_ns, step.memset_ns, step.runtime_ns) == (
            0,
            0,
            0,
            0,
        )


def _raw_events(name: str) -> list[dict[str, Any]]:
    raw = json.loads(
        gzip.decompress((shared.FOLDER / name).read_bytes()), parse_float=Decimal
    )
    events: list[dict[str, Any]] = raw["traceEvents"] if isinstance(raw, dict) else raw
    return [event for event in events if event.get("ph") == "X" and "dur" in event]


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(span for span in spans if span[1] > span[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _length_within(spans: list[tuple[int, int]], start: int, end: int) -> int:
    return sum(max(0, min(b, end) - max(a, start)) for a, b in spans)


def _minus(
    spans: list[tuple[int, int]], cut: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    pieces = []
    for start, end in spans:
        at = start
        for a, b in cut:
            if b <= at or a >= end:
                continue
            if a > at:
                pieces.append((at, a))
            at = max(at, b)
        if at < end:
            pieces.append((at, end))
    return pieces


GPU_WITH_STEPS = [
    name for name in WITH_STEPS if tensorboard()[name]["avg_costs"]["kernel"] > 0
]


@pytest.mark.parametrize("name", GPU_WITH_STEPS)
def test_kernel_and_memcpy_recomputed_from_the_raw_json(name: str) -> None:
    """Kernel: the union of kernel events (not collectives') within the step;
    Memcpy: the union of copies within the step where no kernel runs."""
    trace, ours = loaded(name)
    assert ours is not None
    events = _raw_events(name)
    collective_ids = {
        (event.get("args") or {}).get("External id")
        for event in events
        if event.get("name") in TENSORBOARD_COLLECTIVES
    }

    def spans(category: str) -> list[tuple[int, int]]:
        found = []
        for event in events:
            if str(event.get("cat", "")).lower() != category:
                continue
            if category == "kernel" and (event.get("args") or {}).get(
                "external id"
            ) in collective_ids - {None}:
                continue
            start = int(Decimal(event["ts"]) * 1000) - trace.origin_ns
            found.append((start, start + int(Decimal(event["dur"]) * 1000)))
        return _union(found)

    kernels = spans("kernel")
    copies = _minus(spans("gpu_memcpy") or spans("memcpy"), kernels)
    for step in ours.steps:
        assert step.kernel_ns == _length_within(kernels, step.start_ns, step.end_ns)
        assert step.memcpy_ns == _length_within(copies, step.start_ns, step.end_ns)
