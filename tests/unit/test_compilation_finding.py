"""The compilation finding on built traces: a compile inside the window is
weighed by its time per step (minor when small, never not seen), one before
the window is not seen, and the finding names its steps and compile ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import cpu, write_trace
from tui.cli import main

STEP_US = 1000.0


def _trace(tmp_path: Path, compile_at: float, compile_us: float) -> Path:
    """Three steps of 1 ms, each calling region 0/0 (0/1 after the compile),
    and one compilation of 0/1 starting at `compile_at` µs."""
    events = []
    for number in range(1, 4):
        start = number * STEP_US
        events.append(
            cpu(f"ProfilerStep#{number}", start, STEP_US - 10, "user_annotation")
        )
        compile_id = "0/0" if start < compile_at else "0/1"
        events.append(cpu(f"Torch-Compiled Region: {compile_id}", start + 700, 100.0))
    events.append(cpu("dynamo", compile_at, compile_us))
    events.append(
        cpu("dynamo_data: compile_id=0/1", compile_at + 1, 1.0, "user_annotation")
    )
    events.append(
        cpu("_compile.compile_inner (dynamo_timed)", compile_at + 3, compile_us - 5)
    )
    return write_trace(tmp_path / "compiled.json", events)


def _finding(capsys: pytest.CaptureFixture[str], trace: Path) -> dict[str, Any]:
    assert main(["findings", str(trace), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    return next(f for f in document["findings"] if f["id"] == "compilation")


def test_a_recompile_in_a_step_is_weighed_by_its_time_per_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding = _finding(capsys, _trace(tmp_path, 2 * STEP_US + 50, 600.0))
    figures = finding["figures"]
    assert figures["steps_hit"] == [2]
    assert figures["compile_ids"] == figures["recompile_ids"] == ["0/1"]
    assert figures["compile_us"] == pytest.approx(600.0)
    assert finding["cost_us_per_step"] == pytest.approx(200.0, rel=0.01)
    assert finding["status"] == "likely"  # 20 % of the median step
    assert finding["anchors"] == [{"kind": "step", "number": 2}]
    assert "recompiles" in finding["title"]


def test_a_short_compile_is_minor_never_not_seen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding = _finding(capsys, _trace(tmp_path, 2 * STEP_US + 50, 15.0))
    assert finding["status"] == "minor"
    assert finding["cost_us_per_step"] == pytest.approx(5.0, rel=0.01)


def test_a_compile_before_the_window_is_not_seen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding = _finding(capsys, _trace(tmp_path, 100.0, 600.0))
    assert finding["status"] == "not_seen"
    assert finding["figures"]["compiled"] is True
    assert finding["figures"]["compilations"] == 0
