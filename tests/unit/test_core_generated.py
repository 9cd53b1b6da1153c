"""The core's figures equal the ground truth the trace generator knows exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.tracegen import generate
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace


@pytest.mark.parametrize("seed", [0, 7], ids=["seed-0", "seed-7"])
def test_generated_trace_figures_match_ground_truth(tmp_path: Path, seed: int) -> None:
    result = generate(tmp_path / "generated.json", steps=4, seed=seed)
    expected = result.expected
    trace = load_trace(tmp_path / "generated.json")
    analysis = Analysis(trace)

    assert [step.duration_ns for step in analysis.steps] == expected["steps"][
        "durations_ns"
    ]
    assert analysis.device_busy_ns(device=0) == expected["gpu_busy_ns"]["0"]
    assert expected["gpu_idle_in_lecture_batch_cpu_ns"]["0"] > 0
    gaps = [gap for gap in analysis.gaps if gap.zone == "lecture_batch_cpu"]
    assert (
        sum(gap.duration_ns for gap in gaps)
        == expected["gpu_idle_in_lecture_batch_cpu_ns"]["0"]
    )
    for step, truth in zip(analysis.steps, expected["per_step"], strict=True):
        assert (
            analysis.device_busy_ns(step.start_ns, step.end_ns) == truth["gpu_busy_ns"]
        )
        zones = {
            zone.name: zone.duration_ns
            for zone in analysis.zones_in(step.start_ns, step.end_ns)
        }
        for name, duration in truth["zones_ns"].items():
            assert zones[name] == duration, name
    # Every X event of a CPU category is an operator-table call.
    table = analysis.op_table()
    calls = dict(zip(table.names, table.calls.tolist(), strict=True))
    for category in ("cpu_op", "cuda_runtime", "user_annotation"):
        assert expected["calls"][category]
        for name, count in expected["calls"][category].items():
            grouped = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
            if grouped == "ProfilerStep*":
                continue
            assert calls[grouped] == count, name
