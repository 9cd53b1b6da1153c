"""The step split equals torch-tb-profiler's own, to the nanosecond, on its own tests' traces.

tests/fixtures/tensorboard/tb_step_costs.json holds the synthetic traces of
torch-tb-profiler's test/test_profiler.py (pytorch/kineto, tb_plugin/, BSD
licence), copied verbatim, with the step costs torch-tb-profiler 0.4.3 itself
computes for them (make_tb_fixture.py); its upstream tests pass against those
figures. No expected figure here comes from steptrace's arithmetic.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import write_trace
from tui.core.figures.analysis import Analysis
from tui.core.figures.step_split import StepBreakdown, step_breakdown
from tui.core.ingest.load import load_trace

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tensorboard"
    / "tb_step_costs.json"
)
PARTS = (
    "kernel",
    "memcpy",
    "memset",
    "communication",
    "runtime",
    "dataloader",
    "cpu_exec",
    "other",
)


@cache
def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


CASES = sorted(fixture()["cases"])
# Traces built by make_tb_fixture.py for rules the upstream tests leave open,
# with torch-tb-profiler's figures for them.
CONSTRUCTED = sorted(fixture()["constructed"])


def breakdown_of(events: list[dict[str, Any]], folder: Path) -> StepBreakdown | None:
    trace = load_trace(write_trace(folder / "trace.json", events))
    return step_breakdown(trace, Analysis(trace).steps)


def test_the_fixture_holds_the_published_cases() -> None:
    # The figures test_profiler.py asserts, read from the fixture: it must be TB's.
    cases = fixture()["cases"]
    step = cases["test_all_categories"]["steps_costs"][0]
    assert [step[part] for part in PARTS] == [15, 10, 5, 0, 30, 180, 35, 125]
    nccl = cases["test_distributed_nccl[worker0]"]["steps_costs"][0]
    assert [nccl[part] for part in (*PARTS, "total")] == [
        105,
        0,
        0,
        75,
        0,
        0,
        20,
        35,
        235,
    ]
    assert len(CASES) == 13
    assert len(CONSTRUCTED) == 3


@pytest.mark.parametrize(
    ("group", "name"),
    [("cases", name) for name in CASES]
    + [("constructed", name) for name in CONSTRUCTED],
)
def test_step_costs_equal_tensorboard(group: str, name: str, tmp_path: Path) -> None:
    case = fixture()[group][name]
    ours = breakdown_of(case["trace_events"], tmp_path)
    assert ours is not None
    names = [str(step.step) if step.step is not None else "0" for step in ours.steps]
    assert names == case["steps_names"]
    for mine, theirs in zip(ours.steps, case["steps_costs"], strict=True):
        assert mine.total_ns == theirs["total"] * 1000
        for part in PARTS:
            assert getattr(mine, f"{part}_ns") == theirs[part] * 1000, part
    for part in (*PARTS, "total"):
        assert getattr(ours.average, f"{part}_ns") == pytest.approx(
            case["avg_costs"][part] * 1000, abs=1e-6
        ), part


def test_without_profiler_steps_the_whole_capture_is_one_step(tmp_path: Path) -> None:
    case = fixture()["cases"]["test_no_profilerstep"]
    ours = breakdown_of(case["trace_events"], tmp_path)
    assert ours is not None
    assert ours.whole_capture
    assert [step.step for step in ours.steps] == [None]


def test_steps_without_captured_device_work_at_the_end_are_left_out(
    tmp_path: Path,
) -> None:
    case = fixture()["cases"]["test_last_steps_no_kernel"]
    ours = breakdown_of(case["trace_events"], tmp_path)
    assert ours is not None
    assert [step.step for step in ours.steps] == [1]
    assert ours.left_out_steps == (2, 3)


def test_a_cpu_only_capture_observes_no_device(tmp_path: Path) -> None:
    case = fixture()["cases"]["test_pure_cpu"]
    ours = breakdown_of(case["trace_events"], tmp_path)
    assert ours is not None
    assert not ours.device_observed


def test_no_step_and_no_operator_gives_none(tmp_path: Path) -> None:
    events = [
        {
            "ph": "X",
            "cat": "Kernel",
            "name": "k",
            "pid": 0,
            "tid": "stream 7",
            "ts": 10,
            "dur": 5,
            "args": {"correlation": 1},
        },
    ]
    assert breakdown_of(events, tmp_path) is None
