"""The "dominant operator" reading names the operator's dominant input shapes and
their calls, as torch's key_averages(group_by_input_shape=True) splits it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.builders.torch_captures import capture_training
from tui.core.figures.analysis import Analysis
from tui.core.findings.dominant import DominantFigures, dominant_operator
from tui.core.ingest.load import load_trace
from tui.report.findings import words

torch = pytest.importorskip("torch")


def _matmul_capture(path: Path) -> Any:
    """Two steps of matrix products of three sizes: aten::mm dominates, with shapes."""
    from torch.profiler import ProfilerActivity, profile, schedule

    torch.manual_seed(0)
    pairs = [
        (torch.randn(size, size), torch.randn(size, size)) for size in (64, 128, 256)
    ]
    done: list[Any] = []

    def on_ready(prof: Any) -> None:
        prof.export_chrome_trace(str(path))
        done.append(prof.key_averages(group_by_input_shape=True))

    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=0, warmup=1, active=2),
        on_trace_ready=on_ready,
        record_shapes=True,
    ) as prof:
        for _ in range(3):
            for left, right in pairs:
                for _ in range(3):
                    torch.mm(left, right)
            prof.step()
    return done[-1]


def test_dominant_shape_is_torchs(tmp_path: Path) -> None:
    path = tmp_path / "shapes.json"
    averages = _matmul_capture(path)
    finding = dominant_operator(Analysis(load_trace(path)))
    figures = finding.figures
    assert isinstance(figures, DominantFigures) and figures.unit == "CPU"
    assert figures.operator == "aten::mm"
    rows = [event for event in averages if event.key == figures.operator]
    assert len(rows) == 3
    best = max(rows, key=lambda event: event.self_cpu_time_total)
    total = sum(event.self_cpu_time_total for event in rows)
    assert figures.shapes_recorded
    assert figures.input_shapes == str(best.input_shapes)
    assert figures.shape_calls == best.count
    assert figures.shape_count == len(rows)
    assert figures.shape_share == pytest.approx(
        best.self_cpu_time_total / total, abs=0.002 * len(rows)
    )
    said = words(finding).observation
    assert f"input shapes {best.input_shapes}" in said


def test_without_shapes_the_reading_says_so(tmp_path: Path) -> None:
    path = tmp_path / "plain.json"
    capture_training(path)
    finding = dominant_operator(Analysis(load_trace(path)))
    figures = finding.figures
    assert isinstance(figures, DominantFigures)
    assert not figures.shapes_recorded and figures.input_shapes is None
    assert "input shapes not recorded" in words(finding).observation
