"""Memory without `Total Allocated` (PyTorch 1.9 wrote `Bytes` only): allocated
memory rebuilt from the running sum of `Bytes` per device, and saying so; or
no level, and saying why — in the figures, the JSON, the text and the app.

Ground truth: the hand-made capture's writer keeps the totals itself
(tests/builders/memory.py), so the same capture written with and without
them must read the same peaks. tests/collector/test_memory_running_sum.py
checks the rebuilt series against torch's own totals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.app_traces import BASE_US
from tests.builders.memory import MB, write_memory_trace
from tui.cli import main
from tui.core.base.vocab import AllocatedSource
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import MemoryReading, devices_of
from tui.core.ingest.load import load_trace
from tui.view.memory_lane import memory_lanes


def _reading(path: Path) -> MemoryReading:
    reading = MemoryReading.of(Analysis(load_trace(path)))
    assert reading is not None
    return reading


def _json(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    assert main(["memory", str(path), "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def test_the_running_sum_reads_the_writers_totals(tmp_path: Path) -> None:
    with_totals = _reading(write_memory_trace(tmp_path / "new.json"))
    bytes_only = _reading(write_memory_trace(tmp_path / "old.json", totals=False))
    assert [device.source for device in with_totals.devices] == [
        AllocatedSource.TOTAL_ALLOCATED
    ] * 2
    assert [device.source for device in bytes_only.devices] == [
        AllocatedSource.RUNNING_SUM
    ] * 2
    for new, old in zip(with_totals.devices, bytes_only.devices, strict=True):
        assert old.allocated.tolist() == new.allocated.tolist()
    assert bytes_only.peak == with_totals.peak == {"cpu": 2 * MB, "cuda:0": 16 * MB}
    assert bytes_only.steps == with_totals.steps


def test_json_names_the_source_and_never_a_null_peak_when_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _json(capsys, write_memory_trace(tmp_path / "new.json"))
    old = _json(capsys, write_memory_trace(tmp_path / "old.json", totals=False))
    assert new["peak_source"] == {"cpu": "total_allocated", "cuda:0": "total_allocated"}
    assert old["peak_source"] == {"cpu": "running_sum", "cuda:0": "running_sum"}
    assert old["peak_missing_reason"] == {"cpu": None, "cuda:0": None}
    assert old["peak_bytes"] == new["peak_bytes"] == {"cpu": 2 * MB, "cuda:0": 16 * MB}
    assert old["steps"] == new["steps"]


def test_text_says_the_peak_was_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_memory_trace(tmp_path / "old.json", totals=False)
    assert main(["memory", str(path)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "cpu 2 MiB, cuda:0 16 MiB" in text
    assert "running sum of Bytes" in text and "no Total Allocated" in text
    assert "–" not in text.split("allocated per operator")[0]


def _bytes_only(path: Path, records: list[tuple[float, int]]) -> Path:
    """A CPU-only capture of one step whose `[memory]` events carry these Bytes."""
    events: list[dict[str, Any]] = [
        {
            "ph": "X",
            "cat": "user_annotation",
            "name": "ProfilerStep#1",
            "pid": 100,
            "tid": 11,
            "ts": BASE_US,
            "dur": 1000,
            "args": {},
        }
    ]
    for at_us, size in records:
        args: dict[str, Any] = {"Device Type": 0, "Device Id": -1}
        if size:
            args["Bytes"] = size
        events.append(
            {
                "ph": "i",
                "s": "t",
                "name": "[memory]",
                "pid": 100,
                "tid": 11,
                "ts": BASE_US + at_us,
                "args": args,
            }
        )
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def test_a_free_of_memory_older_than_the_capture_raises_the_starting_level(
    tmp_path: Path,
) -> None:
    """Sum: +3, -5 (allocated before the capture), +4 → -2 would be below 0: the
    level starts at 2, the least that was allocated before: 5, 0, 4."""
    path = _bytes_only(tmp_path / "old.json", [(100, 3), (200, -5), (300, 4)])
    (device,) = devices_of(load_trace(path).memory)
    assert device.source is AllocatedSource.RUNNING_SUM
    assert device.allocated.tolist() == [5, 0, 4]
    assert _reading(path).peak == {"cpu": 5}


def test_no_totals_and_no_bytes_reads_unknown_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _bytes_only(tmp_path / "bare.json", [(100, 0), (200, 0)])
    document = _json(capsys, path)
    assert document["recorded"] is True
    assert document["peak_bytes"] == {"cpu": None}
    assert document["peak_source"] == {"cpu": None}
    assert "neither Total Allocated nor Bytes" in document["peak_missing_reason"]["cpu"]
    assert main(["memory", str(path)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "cpu unknown" in text and "neither Total Allocated nor Bytes" in text
    # No lane drawn at 0 bytes for a device whose level is unknown.
    assert memory_lanes(load_trace(path)) == []


def test_the_app_says_the_same(tmp_path: Path) -> None:
    from tui.view.memory_lane import memory_help
    from tui.view.status import step_info

    old = write_memory_trace(tmp_path / "old.json", totals=False)
    analysis = Analysis(load_trace(old))
    said = step_info(analysis, analysis.steps[1]).plain
    assert "alloc peak (running sum of Bytes) cuda:0 12 MiB cpu 2 MiB" in said
    assert "running sum of Bytes" in memory_help(analysis.trace)
    assert [lane.label for lane in memory_lanes(analysis.trace)] == ["cpu", "cuda:0"]
    new = Analysis(load_trace(write_memory_trace(tmp_path / "new.json")))
    said = step_info(new, new.steps[1]).plain
    assert "alloc peak cuda:0 12 MiB cpu 2 MiB" in said
    bare = Analysis(
        load_trace(_bytes_only(tmp_path / "bare.json", [(100, 0), (200, 0)]))
    )
    said = step_info(bare, bare.steps[0]).plain
    assert "alloc peak unknown (neither Total Allocated nor Bytes)" in said
