"""Memory of a profile_memory capture: per operator exactly as torch's key_averages()
reports it, peaks per step against a brute force over the raw events, the JSON
documented in docs/device.md, and "not recorded" (never 0) without memory events."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.builders.torch_captures import capture_training
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import MemoryReading, memory_op_table
from tui.core.ingest.load import load_trace

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    path = tmp_path_factory.mktemp("memory") / "capture.json"
    averages = capture_training(path, profile_memory=True)
    return path, averages


def test_operators_allocate_what_key_averages_says(captured: tuple[Path, Any]) -> None:
    path, averages = captured
    expected = {
        event.key: (
            event.count,
            event.self_cpu_memory_usage,
            event.cpu_memory_usage,
            event.self_device_memory_usage,
            event.device_memory_usage,
        )
        for event in averages
    }
    table = memory_op_table(Analysis(load_trace(path)))
    ours = {
        name: (int(calls), int(self_cpu), int(total_cpu), int(self_dev), int(total_dev))
        for name, calls, self_cpu, total_cpu, self_dev, total_dev in zip(
            table.names,
            table.calls,
            table.self_cpu,
            table.total_cpu,
            table.self_device,
            table.total_device,
            strict=True,
        )
    }
    assert set(ours) == set(expected)
    assert ours == expected
    # The capture really allocates inside operators, and frees in some.
    assert any(row[2] > 0 for row in expected.values())
    assert any(row[1] < 0 for row in expected.values())


def _peak(events: list[tuple[int, int]], start: int, end: int) -> int:
    """Brute force: the level when the window starts, and every level inside it."""
    before = [total for time, total in events if time < start]
    inside = [total for time, total in events if start <= time < end]
    return max(([before[-1]] if before else []) + inside)


def test_peaks_per_step_and_window(captured: tuple[Path, Any]) -> None:
    path, _ = captured
    document = json.loads(path.read_text(), parse_float=Decimal)
    events = document["traceEvents"]

    def ns(value: Any) -> int:
        return int(Decimal(value) * 1000)

    memory = sorted(
        (ns(e["ts"]), e["args"]["Total Allocated"])
        for e in events
        if e.get("ph") == "i" and e.get("name") == "[memory]"
    )
    steps = sorted(
        (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), int(e["name"].split("#")[1]))
        for e in events
        if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")
    )
    assert {
        e["args"]["Device Type"] for e in events if e.get("name") == "[memory]"
    } == {0}
    reading = MemoryReading.of(Analysis(load_trace(path)))
    assert reading is not None
    origin = min(ns(e["ts"]) for e in events if e.get("ph") == "X")
    relative = [(time - origin, total) for time, total in memory]
    assert [(number, peaks["cpu"]) for number, _, peaks in reading.steps] == [
        (number, _peak(relative, start - origin, end - origin))
        for start, end, number in steps
    ]
    window = (steps[0][0] - origin, steps[-1][1] - origin)
    assert reading.peak == {"cpu": _peak(relative, *window)}


def test_json_shape(
    captured: tuple[Path, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = captured
    assert main(["memory", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["recorded"] is True and document["devices"] == ["cpu"]
    assert set(document["peak_bytes"]) == {"cpu"} and document["peak_bytes"]["cpu"] > 0
    assert [step["step"] for step in document["steps"]] == [2, 3]
    for row in document["ops"]:
        assert {"name", "self_bytes", "total_bytes"} <= set(row)
        assert row["self_device_bytes"] is None and row["total_device_bytes"] is None
    assert main(["memory", str(path)]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80


def test_no_memory_events_reads_not_recorded(
    capsys: pytest.CaptureFixture[str], shared_traces: Path
) -> None:
    path = shared_traces / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    assert main(["memory", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "recorded": False,
        "devices": None,
        "peak_bytes": None,
        "peak_source": None,
        "peak_missing_reason": None,
        "steps": None,
        "ops": None,
    }
    assert main(["memory", str(path)]) == 0
    text = capsys.readouterr().out
    assert "not recorded" in text and " 0 bytes" not in text
