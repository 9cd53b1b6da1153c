"""Memory over time against a fresh torch capture with profile_memory: the peak
is the highest `Total Allocated` torch wrote in the window (read straight from
the JSON, with the level the window starts at), reached at the first such
`[memory]` event; its operator is the innermost CPU event holding that instant
in the raw JSON, and torch's own key_averages() gives that operator memory.

The capture runs in a process of its own (torch's CPU allocator counts from the
first memory profiling in a process) and returns its key_averages() rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory_timeline import memory_timeline
from tui.core.ingest.load import load_trace

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
CODE = """
import json, sys
from pathlib import Path
from tests.builders.torch_captures import capture_training
rows = capture_training(Path(sys.argv[1]), profile_memory=True)
print(json.dumps({row.key: row.cpu_memory_usage for row in rows}))
"""


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("timeline") / "capture.json"
    done = subprocess.run(
        [sys.executable, "-c", CODE, str(path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    usage: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return path, usage


def _raw(path: Path) -> tuple[int, float, str]:
    """From the JSON alone: the window's highest Total Allocated, when it is
    first reached, and the shortest CPU event holding that instant."""
    events: list[dict[str, Any]] = json.loads(path.read_text())["traceEvents"]
    steps = [e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")]
    start = min(e["ts"] for e in steps)
    end = max(e["ts"] + e["dur"] for e in steps)
    memory = sorted(
        (e for e in events if e.get("name") == "[memory]"), key=lambda e: e["ts"]
    )
    before = [e for e in memory if e["ts"] < start][-1:]
    inside = [e for e in memory if start <= e["ts"] < end]
    candidates = before + inside
    peak = max(e["args"]["Total Allocated"] for e in candidates)
    at = next(e for e in candidates if e["args"]["Total Allocated"] == peak)["ts"]
    holding = [
        e
        for e in events
        if e.get("ph") == "X"
        and e.get("cat") in ("cpu_op", "user_annotation")
        and e["ts"] <= at <= e["ts"] + e["dur"]
    ]
    innermost = min(holding, key=lambda e: (e["dur"], -e["ts"]))
    return peak, at, innermost["name"]


def test_peak_and_operator_are_torchs(capture: tuple[Path, dict[str, int]]) -> None:
    path, usage = capture
    peak, at_us, operator = _raw(path)
    trace = load_trace(path)
    (cpu,) = memory_timeline(Analysis(trace))
    assert cpu.device.label == "cpu"
    assert cpu.peak_bytes == peak
    assert cpu.peak_ns is not None
    assert abs(cpu.peak_ns + trace.origin_ns - at_us * 1000) < 1
    assert cpu.operator is not None and cpu.operator.name == operator
    # torch gives that operator memory of its own (its interval holds allocations).
    assert usage[operator] != 0


def test_json_series_keeps_the_peak(
    capture: tuple[Path, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = capture
    peak, _, operator = _raw(path)
    assert main(["memory", str(path), "--timeline", "--json"]) == 0
    (device,) = json.loads(capsys.readouterr().out)["timeline"]["devices"]
    assert device["peak_bytes"] == max(device["allocated_bytes"]) == peak
    assert device["peak_operator"]["name"] == operator
