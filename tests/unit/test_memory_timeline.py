"""Memory over time: each device's allocated and reserved series over
the window, its peak and the operator holding it, and a downsampling that keeps
the peak exactly.

Ground truth: the hand-made capture's writer keeps the totals itself
(tests/builders/memory.py): cuda:0 peaks at 16 MiB when step 3's fourth
activation is allocated (24,910 µs, in the entrainement range, after its
6 µs aten::addmm has returned), the CPU at 2 MiB when
step 1's batch buffer is (150 µs, inside lecture_batch_cpu); Total Reserved is
64 MiB throughout. tests/collector/test_memory_timeline_torch.py checks a fresh
torch capture.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.builders.app_traces import BASE_US
from tests.builders.memory import MB, write_memory_trace
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import DeviceMemory
from tui.core.figures.memory_timeline import (
    DeviceTimeline,
    bucket_maxima,
    memory_timeline,
)
from tui.core.ingest.load import load_trace


def _timelines(path: Path) -> dict[str, DeviceTimeline]:
    trace = load_trace(path)
    return {item.device.label: item for item in memory_timeline(Analysis(trace))}


def _us_from_origin(path: Path, at_us: float) -> int:
    return round((BASE_US + at_us) * 1000) - load_trace(path).origin_ns


def test_peak_and_its_operator_by_construction(tmp_path: Path) -> None:
    path = write_memory_trace(tmp_path / "m.json")
    timelines = _timelines(path)
    cuda = timelines["cuda:0"]
    assert cuda.peak_bytes == 16 * MB
    assert cuda.peak_ns == _us_from_origin(path, 24_910)
    assert cuda.operator is not None and cuda.operator.name == "entrainement"
    assert cuda.operator.path == ["ProfilerStep#3", "entrainement"]
    assert cuda.peak_reserved_bytes == 64 * MB
    host = timelines["cpu"]
    assert host.peak_bytes == 2 * MB
    assert host.operator is not None and host.operator.name == "lecture_batch_cpu"


def test_without_totals_the_running_sum_gives_the_same_peak_and_no_reserved(
    tmp_path: Path,
) -> None:
    new = _timelines(write_memory_trace(tmp_path / "new.json"))
    old = _timelines(write_memory_trace(tmp_path / "old.json", totals=False))
    for label in ("cpu", "cuda:0"):
        assert old[label].peak_bytes == new[label].peak_bytes
        assert old[label].peak_ns == new[label].peak_ns
        assert old[label].operator == new[label].operator
        assert old[label].reserved is None and old[label].peak_reserved_bytes is None
        assert old[label].reserved_series() is None


def test_few_events_are_given_whole(tmp_path: Path) -> None:
    cuda = _timelines(write_memory_trace(tmp_path / "m.json"))["cuda:0"]
    series = cuda.allocated_series()
    assert not series.downsampled
    assert series.level.tolist() == cuda.device.allocated.tolist()
    reserved = cuda.reserved_series()
    assert reserved is not None and set(reserved.level.tolist()) == {64 * MB}


def _brute_maxima(
    times: list[int], levels: list[int], start: int, end: int, buckets: int
) -> list[int]:
    """Per bucket, by walking every event: the level carried in, then each in it."""
    out = []
    for k in range(buckets):
        low = start + (k * (end - start)) // buckets
        high = start + ((k + 1) * (end - start)) // buckets
        before = [lv for t, lv in zip(times, levels, strict=True) if t < low]
        inside = [lv for t, lv in zip(times, levels, strict=True) if low <= t < high]
        candidates = inside + before[-1:]
        out.append(max(candidates) if candidates else -1)
    return out


@pytest.mark.parametrize("buckets", [1, 7, 64, 500])
def test_downsampling_keeps_the_exact_peak(buckets: int) -> None:
    rng = np.random.default_rng(buckets)
    times = np.sort(rng.integers(0, 10_000_000, 5_000)).astype(np.int64)
    levels = np.cumsum(rng.integers(-1000, 1100, 5_000)).astype(np.int64) + 10**6
    start, end = 1_000_000, 9_000_000
    edges, maxima = bucket_maxima(times, levels, start, end, buckets)
    assert edges[0] == start and edges.size == buckets
    device = DeviceMemory("cuda:0", times, levels)
    assert int(maxima.max()) == device.peak(start, end)
    assert maxima.tolist() == _brute_maxima(
        times.tolist(), levels.tolist(), start, end, buckets
    )


def test_a_long_series_is_downsampled_to_max_points() -> None:
    rng = np.random.default_rng(3)
    times = np.arange(0, 3_000_000, 1000, dtype=np.int64)
    levels = rng.integers(0, 1 << 30, times.size).astype(np.int64)
    device = DeviceMemory("cuda:0", times, levels)
    timeline = DeviceTimeline(
        device, None, 0, 3_000_000, device.peak(0, 3_000_000), 0, None, None
    )
    series = timeline.allocated_series(100)
    assert series.downsampled and series.level.size == 100
    assert int(series.level.max()) == int(levels.max())


def test_cli_timeline_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_memory_trace(tmp_path / "m.json")
    assert main(["memory", str(path), "--timeline"]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    cuda_line = next(line for line in text.splitlines() if line.startswith("cuda:0"))
    assert "█" in cuda_line and len(cuda_line) == 80
    assert "in entrainement" in text and "under ProfilerStep#3" in text
    assert main(["memory", str(path), "--timeline", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    devices = {item["device"]: item for item in document["timeline"]["devices"]}
    cuda = devices["cuda:0"]
    assert cuda["peak_bytes"] == max(cuda["allocated_bytes"]) == 16 * MB
    assert cuda["peak_operator"]["name"] == "entrainement"
    assert cuda["reserved_bytes"] == [64 * MB] * len(cuda["t_us"])
    assert document["timeline"]["max_points"] == 512
    assert "highest level" in document["timeline"]["downsampling"]
    assert main(["memory", str(path), "--json"]) == 0
    assert "timeline" not in json.loads(capsys.readouterr().out)


def test_a_selected_steps_status_names_the_operator_of_its_peak(
    tmp_path: Path,
) -> None:
    """The app's step line: each step's cuda:0 peak is reached when its fourth
    activation is allocated, in the entrainement range (by construction); the
    part goes first when room runs out."""
    from tui.view.status import step_info

    analysis = Analysis(load_trace(write_memory_trace(tmp_path / "m.json")))
    for step in analysis.steps:
        line = step_info(analysis, step)
        assert "cuda:0 peak in entrainement" in line.plain
        assert "cuda:0 peak in" not in line.fit(60).plain


def test_the_level_a_window_starts_at_is_its_first_point_and_can_be_its_peak() -> None:
    times = np.array([10, 20, 30, 40], dtype=np.int64)
    levels = np.array([5, 9, 3, 7], dtype=np.int64)
    device = DeviceMemory("cuda:0", times, levels)
    timeline = DeviceTimeline(device, None, 25, 50, device.peak(25, 50), 25, None, None)
    series = timeline.allocated_series()
    assert series.time_ns.tolist() == [25, 30, 40]
    assert series.level.tolist() == [9, 3, 7]
    assert timeline.peak_bytes == 9
