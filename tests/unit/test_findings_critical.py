"""The critical-path finding on the hand-made step of test_critical_path.py.

Its 545 µs path holds 400 µs of kernels (GPU-bound), and of the overhead
65 µs of operators (mm 10, item 5, relu 50), 50 µs of gap between the two
kernels and 30 µs of launch delay: the cost is the operators' 65 µs per step,
6.5 % of the 1 ms step (possible), most of it in aten::relu.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.traces import cpu, metadata, write_trace
from tests.unit.test_critical_path import _events
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import BoundBy
from tui.core.findings.critical import CriticalPathFigures, critical_path
from tui.core.findings.finding import ShowEvents
from tui.core.findings.readings import compute_findings
from tui.core.ingest.load import load_trace
from tui.report.findings import words


def _analysis(path: Path) -> Analysis:
    return Analysis(load_trace(path))


def test_the_step_is_gpu_bound_and_its_operators_cost_65_us(tmp_path: Path) -> None:
    analysis = _analysis(write_trace(tmp_path / "step.json", _events()))
    finding = critical_path(analysis)
    assert finding.id is FindingId.CRITICAL_PATH
    assert finding.status is FindingStatus.POSSIBLE
    assert finding.cost_ns_per_step == 65_000
    assert finding.share_of_step == pytest.approx(0.065)
    figures = finding.figures
    assert isinstance(figures, CriticalPathFigures)
    assert figures.bound_by is BoundBy.GPU_COMPUTE
    assert figures.overhead is BoundBy.CPU
    assert figures.path_ns_per_step == 545_000
    assert dict(figures.shares)[BoundBy.KERNEL_KERNEL] == pytest.approx(50 / 545 * 100)
    assert figures.top == "aten::relu"
    assert finding.anchor == ShowEvents("aten::relu")
    said = words(finding)
    assert said.title == "The step is GPU-bound (critical path)"
    assert "65 µs per step" in said.observation
    assert "steptrace critical" in said.next_check
    assert finding.id in {found.id for found in compute_findings(analysis)}


def test_without_device_work_it_is_not_observed(tmp_path: Path) -> None:
    events = [*metadata(), cpu("ProfilerStep#1", 0, 100, cat="user_annotation")]
    events.append(cpu("aten::relu", 10, 50))
    finding = critical_path(_analysis(write_trace(tmp_path / "cpu.json", events)))
    assert finding.status is FindingStatus.NOT_OBSERVED
