"""Compiled regions on built traces: Triton kernels of a GPU region, graph
breaks where a step runs several compiled frames, none where it runs one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tests.builders.traces import cpu, write_trace
from tui.cli import main

TRITON = shared.FOLDER / "triton_example-triton_example.json.gz"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.usefixtures("shared_traces")
def test_a_gpu_region_lists_its_triton_kernels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    document = _json(capsys, "compiled", str(TRITON))
    [region] = document["regions"]
    assert region["compile_id"] == "0/0" and region["calls_per_step"] == 1
    assert region["time_us_per_step"] == pytest.approx(1352.964, abs=0.001)
    [kernel] = region["kernels"]
    assert kernel["name"] == "triton_poi_fused_add_cos_sin_0"
    assert kernel["time_us_per_step"] == pytest.approx(1.76, abs=0.001)


def _steps_with_regions(regions_per_step: list[list[str]]) -> list[dict[str, Any]]:
    events = []
    for number, regions in enumerate(regions_per_step, start=1):
        start = number * 1000.0
        events.append(cpu(f"ProfilerStep#{number}", start, 900.0, "user_annotation"))
        for index, compile_id in enumerate(regions):
            at = start + 10 + index * 200
            events.append(cpu(f"Torch-Compiled Region: {compile_id}", at, 100.0))
            events.append(cpu("aten::add", at + 120, 50.0))
    return events


def _three_frames_a_step(tmp_path: Path) -> Path:
    """Two steps, each through the same three compiled frames: two graph breaks."""
    return write_trace(
        tmp_path / "breaks.json",
        _steps_with_regions([["0/0", "1/0", "2/0"], ["0/0", "1/0", "2/0"]]),
    )


def test_several_frames_in_a_step_are_graph_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _three_frames_a_step(tmp_path)
    document = _json(capsys, "compiled", str(trace))
    assert [row["frames"] for row in document["per_step"]] == [3, 3]
    assert [row["graph_breaks"] for row in document["per_step"]] == [2, 2]
    assert not any(region["recompile"] for region in document["regions"])


def test_one_frame_per_step_is_no_graph_break(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write_trace(
        tmp_path / "one.json", _steps_with_regions([["0/0"], ["0/1"], ["0/1"]])
    )
    document = _json(capsys, "compiled", str(trace))
    assert [row["graph_breaks"] for row in document["per_step"]] == [0, 0, 0]
    regions = {region["compile_id"]: region for region in document["regions"]}
    assert regions["0/1"]["recompile"] and regions["0/1"]["compiled_in_step"] is None


def _graph_break(capsys: pytest.CaptureFixture[str], trace: Path) -> dict[str, Any]:
    document = _json(capsys, "findings", str(trace))
    return next(f for f in document["findings"] if f["id"] == "graph_break")


def test_the_time_between_frames_is_the_graph_break_findings_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _three_frames_a_step(tmp_path)
    document = _json(capsys, "compiled", str(trace))
    # Regions every 200 µs, 100 µs long: 100 µs of eager work after each but the last.
    assert [row["between_frames_us"] for row in document["per_step"]] == [200, 200]
    finding = _graph_break(capsys, trace)
    assert finding["status"] == "likely"  # 200 µs of a 900 µs step
    assert finding["cost_us_per_step"] == pytest.approx(200.0)
    figures = finding["figures"]
    assert figures["steps_breaking"] == [1, 2] and figures["most_frames"] == 3
    assert figures["compile_ids"] == ["0/0", "1/0", "2/0"]
    assert finding["anchors"] == [{"kind": "step", "number": 1}]


def test_one_frame_per_step_is_no_graph_break_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write_trace(
        tmp_path / "one.json", _steps_with_regions([["0/0"], ["0/0"], ["0/0"]])
    )
    finding = _graph_break(capsys, trace)
    assert finding["status"] == "not_seen"
    assert finding["figures"]["compiled"] is True
    assert finding["figures"]["steps_breaking"] == []
