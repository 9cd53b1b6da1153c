"""One operator dominates on operators only: steps, annotations, torch's own
ranges and Python frames are not operators, and a range that waits on a
collective points to the collective reading instead."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import cpu, metadata, write_trace
from tui.core.base.vocab import FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings.dominant import DominantFigures, dominant_operator
from tui.core.ingest.load import load_trace
from tui.report.findings import words

STEP_US = 1000.0


def _steps(step_cat: str, body: Sequence[tuple[str, float, float, str]]) -> list[Any]:
    """Two 1 ms steps, each holding `body` (name, start, duration, category)."""
    events = list(metadata())
    for index in range(2):
        at = index * STEP_US
        events.append(cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat=step_cat))
        events += [cpu(name, at + ts, dur, cat=cat) for name, ts, dur, cat in body]
    return events


def _dominant(tmp_path: Path, events: list[Any]) -> DominantFigures:
    analysis = Analysis(load_trace(write_trace(tmp_path / "t.json", events)))
    finding = dominant_operator(analysis)
    assert isinstance(finding.figures, DominantFigures)
    return finding.figures


def test_a_range_waiting_on_a_collective_is_not_the_dominant_operator(
    tmp_path: Path,
) -> None:
    # An old profiler writes record_function("sync_grads") as an operator: its
    # self time (700 µs) is the wait around a short gloo all_reduce.
    body = [
        ("aten::mm", 0, 200, "cpu_op"),
        ("sync_grads", 200, 790, "cpu_op"),
        ("gloo:all_reduce", 250, 90, "cpu_op"),
    ]
    figures = _dominant(tmp_path, _steps("cpu_op", body))
    assert figures.operator == "aten::mm"
    assert figures.waiting_ranges == ("sync_grads",)
    analysis = Analysis(load_trace(tmp_path / "t.json"))
    said = words(dominant_operator(analysis))
    assert "sync_grads left out" in said.observation
    assert "steptrace ranks" in said.observation


def test_the_same_range_as_an_annotation_is_left_out_too(tmp_path: Path) -> None:
    body = [
        ("aten::mm", 0, 200, "cpu_op"),
        ("sync_grads", 200, 790, "user_annotation"),
        ("gloo:all_reduce", 250, 90, "cpu_op"),
    ]
    figures = _dominant(tmp_path, _steps("user_annotation", body))
    assert figures.operator == "aten::mm"
    assert "sync_grads" in figures.waiting_ranges


@pytest.mark.parametrize(
    ("name", "cat"),
    [
        ("Optimizer.step#SGD.step", "cpu_op"),  # torch's range, old category
        ("train.py(12): step", "python_function"),
        ("my_block", "user_annotation"),
    ],
)
def test_ranges_and_frames_are_not_operators(
    tmp_path: Path, name: str, cat: str
) -> None:
    body = [("aten::add", 0, 100, "cpu_op"), (name, 100, 800, cat)]
    figures = _dominant(tmp_path, _steps("cpu_op", body))
    assert figures.operator == "aten::add"
    assert figures.waiting_ranges == ()


def test_an_old_step_range_is_not_an_operator(tmp_path: Path) -> None:
    # PyTorch <= 1.10 writes ProfilerStep#N with category Operator; its self
    # time (the step less its operators) is no operator's.
    figures = _dominant(tmp_path, _steps("cpu_op", [("aten::add", 0, 100, "cpu_op")]))
    assert figures.operator == "aten::add"


def test_an_operator_waiting_on_a_sync_stays_an_operator(tmp_path: Path) -> None:
    """aten::item waits on the device and is an operator all the same."""
    body = [
        ("aten::add", 0, 100, "cpu_op"),
        ("aten::item", 100, 600, "cpu_op"),
        ("cudaStreamSynchronize", 110, 580, "cuda_runtime"),
    ]
    analysis = Analysis(
        load_trace(write_trace(tmp_path / "t.json", _steps("cpu_op", body)))
    )
    finding = dominant_operator(analysis)
    assert isinstance(finding.figures, DominantFigures)
    assert finding.figures.operator == "cudaStreamSynchronize"
    assert finding.figures.waiting_ranges == ()
    assert finding.status is FindingStatus.LIKELY
