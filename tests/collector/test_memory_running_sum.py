"""Allocated memory rebuilt from the running sum of `Bytes`, against torch's own
`Total Allocated`: a fresh profile_memory capture is read twice, as torch wrote
it and with its totals stripped (as PyTorch 1.9 wrote its `[memory]` events);
the rebuilt series, peaks and JSON must be torch's figures.

The capture runs in a process of its own: torch's CPU allocator counts what it
allocated since memory profiling first ran in the process, so only a first
capture's totals start where its `Bytes` do.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tui.cli import main
from tui.core.base.vocab import AllocatedSource
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import MemoryReading, devices_of
from tui.core.ingest.load import load_trace

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("running_sum")
    path = folder / "capture.json"
    code = (
        "import sys; from pathlib import Path; "
        "from tests.builders.torch_captures import capture_training; "
        "capture_training(Path(sys.argv[1]), profile_memory=True)"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    document = json.loads(path.read_text())
    for event in document["traceEvents"]:
        if event.get("name") == "[memory]":
            event["args"].pop("Total Allocated")
            event["args"].pop("Total Reserved", None)
    stripped = folder / "stripped.json"
    stripped.write_text(json.dumps(document))
    return path, stripped


def _torch_totals(path: Path) -> list[int]:
    events = json.loads(path.read_text())["traceEvents"]
    memory = [e for e in events if e.get("name") == "[memory]"]
    memory.sort(key=lambda e: e["ts"])  # stable: ties keep file order
    return [e["args"]["Total Allocated"] for e in memory]


def test_the_running_sum_is_torchs_total_allocated(
    captures: tuple[Path, Path],
) -> None:
    original, stripped = captures
    totals = _torch_totals(original)
    assert len(totals) > 20 and max(totals) > 0
    (device,) = devices_of(load_trace(stripped).memory)
    assert device.label == "cpu" and device.source is AllocatedSource.RUNNING_SUM
    assert device.allocated.tolist() == totals


def test_peaks_are_torchs(captures: tuple[Path, Path]) -> None:
    original, stripped = captures
    recorded = MemoryReading.of(Analysis(load_trace(original)))
    rebuilt = MemoryReading.of(Analysis(load_trace(stripped)))
    assert recorded is not None and rebuilt is not None
    assert rebuilt.peak == recorded.peak and rebuilt.peak["cpu"] is not None
    assert rebuilt.steps == recorded.steps


def test_json_says_where_the_peak_comes_from(
    captures: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    def document(path: Path) -> dict[str, Any]:
        assert main(["memory", str(path), "--json"]) == 0
        result: dict[str, Any] = json.loads(capsys.readouterr().out)
        return result

    original, stripped = captures
    recorded, rebuilt = document(original), document(stripped)
    assert recorded["peak_source"] == {"cpu": "total_allocated"}
    assert rebuilt["peak_source"] == {"cpu": "running_sum"}
    assert rebuilt["peak_bytes"] == recorded["peak_bytes"]
    assert rebuilt["steps"] == recorded["steps"]
    assert rebuilt["ops"] == recorded["ops"]
