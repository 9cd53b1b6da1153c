"""The launch queue on a constructed capture whose queue is known by construction.

Stream 7: three kernels launched at 0, 10 and 20 µs start at 100, 150 and
200 µs: the queue reads 1, 2, 3, 2, 1, 0 (HTA's rule: +1 at the launch
call's start, -1 at the op's start). Its integral over time, 420 µs·ops, is
the ops' summed waits from launch to start (Little's law: 100 + 140 + 180).
Stream 20: a copy launched at 250 starts at 300, the very time the next
kernel's launch call starts (launched 300, started 320): the launch counts
first, 1, 2, 1, 0. Left out of every queue: a kernel whose launch call is
not in the capture (it would only ever shrink the queue) and a kernel a
CUDA graph replays (no launch of its own).
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest

from tests.builders.queue import STREAM_7, STREAM_20, write_queue_trace
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main
from tui.core.base.vocab import BreakdownRules
from tui.core.figures.analysis import Analysis
from tui.core.figures.queue import (
    LaunchQueue,
    launch_queue,
    longest_between,
    slice_edges,
)
from tui.core.ingest.load import load_trace


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    return write_queue_trace(tmp_path / "queue.json")


def _queue(path: Path, rules: BreakdownRules, full_at: int = 1024) -> LaunchQueue:
    analysis = Analysis(load_trace(path))
    return launch_queue(
        analysis.trace, analysis.launch_call, analysis.graph_work, rules, full_at
    )


@pytest.mark.parametrize("rules", list(BreakdownRules))
def test_the_queue_is_known_by_construction(
    capture: Path, rules: BreakdownRules
) -> None:
    queue = _queue(capture, rules)
    streams = {stream.stream: stream for stream in queue.streams}
    assert sorted(streams) == [7, 20]
    seven, twenty = streams[7], streams[20]
    assert seven.length.tolist() == STREAM_7
    assert (seven.time_ns // 1000).tolist() == [0, 10, 20, 100, 150, 200]
    assert twenty.length.tolist() == STREAM_20
    assert seven.ops == 3 and twenty.ops == 2
    assert queue.device_ops == 7 and queue.left_out == 2
    assert all(stream.negative_points == 0 for stream in queue.streams)
    # HTA's describe() of the points, computed by the statistics module.
    stats = seven.stats
    assert stats.count == 6 and stats.minimum == 0 and stats.maximum == 3
    assert stats.mean == statistics.mean(STREAM_7)
    assert stats.std is not None
    assert math.isclose(stats.std, statistics.stdev(STREAM_7), rel_tol=1e-12)
    quartiles = statistics.quantiles(STREAM_7, n=4, method="inclusive")
    assert [stats.p25, stats.p50, stats.p75] == quartiles
    # Little's law: the queue's integral over time is the ops' summed waits.
    waits_us = [100 - 0, 150 - 10, 200 - 20]
    assert seven.mean_over_time == sum(waits_us) / 200
    assert seven.drain_max_ns == 180_000
    assert seven.drain_mean_ns == statistics.mean(waits_us) * 1000


def test_time_at_a_full_queue(capture: Path) -> None:
    """HTA's time blocked on a full queue: the time the length stays at or above the limit."""
    assert {
        s.stream: s.full_ns for s in _queue(capture, BreakdownRules.HTA, 3).streams
    } == {
        7: 80_000,
        20: 0,
    }
    at_two = _queue(capture, BreakdownRules.STEPTRACE, 2).streams
    assert [stream.full_ns for stream in at_two] == [10_000 + 80_000 + 50_000, 0]
    assert all(
        s.full_ns == 0 for s in _queue(capture, BreakdownRules.STEPTRACE).streams
    )


def test_hta_rules_round_fractional_times_as_hta_does(tmp_path: Path) -> None:
    """With fractional µs HTA rounds starts up: a launch at 0.5 and a start at 1 µs
    both read 1 µs (halves: written exactly in a float64 epoch in µs)."""
    events = [
        *metadata(),
        cpu("cudaLaunchKernel", 0.5, 0.5, cat="cuda_runtime", correlation=1),
        gpu("k", 1, 5, correlation=1),
    ]
    path = write_trace(tmp_path / "fractional.json", events)
    (hta,) = _queue(path, BreakdownRules.HTA).streams
    (exact,) = _queue(path, BreakdownRules.STEPTRACE).streams
    assert np.diff(hta.time_ns).tolist() == [0] and hta.drain_max_ns == 0
    assert exact.drain_max_ns == 500
    assert hta.length.tolist() == exact.length.tolist() == [1, 0]


def test_no_device_work_has_no_stream(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "cpu.json", [cpu("aten::add", 0, 10)])
    queue = _queue(path, BreakdownRules.STEPTRACE)
    assert queue.streams == () and queue.device_ops == 0 and queue.counted == 0


def test_queue_json_and_text(capture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["queue", str(capture), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["rules"] == "steptrace" and document["full_at"] == 1024
    assert (document["device_ops"], document["counted"], document["left_out"]) == (
        7,
        5,
        2,
    )
    seven = next(s for s in document["streams"] if s["stream"] == 7)
    assert seven["length"] == STREAM_7
    assert seven["t_us"] == [0.0, 10.0, 20.0, 100.0, 150.0, 200.0]
    assert (seven["max"], seven["p50"], seven["count"]) == (3, 1.5, 6)
    assert seven["mean_over_time"] == 2.1 and seven["drain_max_us"] == 180.0
    assert main(["queue", str(capture)]) == 0
    text = capsys.readouterr().out
    assert "stream 7" in text and "stream 20" in text
    assert "2 device ops have no launch of their own" in text


def test_the_longest_queue_per_slice_is_a_loops() -> None:
    """The sparkline's and the lane's cells, against a loop over the changes."""
    rng = np.random.default_rng(21)
    for _ in range(50):
        times = np.sort(rng.integers(0, 1000, rng.integers(1, 40))).astype(np.int64)
        lengths = rng.integers(0, 30, times.size).astype(np.int64)
        start, end = sorted(rng.integers(-100, 1100, 2).tolist())
        width = int(rng.integers(1, 30))
        edges = slice_edges(start, end, width)
        expected = []
        for low, high in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
            # The length in effect at the slice's start: the last change at or before it.
            held = [int(v) for t, v in zip(times, lengths, strict=True) if t <= low]
            inside = [
                int(v) for t, v in zip(times, lengths, strict=True) if low <= t < high
            ]
            expected.append(max([held[-1] if held else 0, *inside]))
        assert longest_between(times, lengths, edges).tolist() == expected
        assert edges[0] == start and edges[-1] == end + 1


def test_the_report_says_the_longest_queue(
    capture: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stream 7's queue grows longest (3 ops); k2 waited 180 µs (launched 20, started 200)."""
    assert main(["report", str(capture), "--md"]) == 0
    assert (
        "Launch queue: at most 3 ops launched and not yet started on stream 7 "
        "(mean 1.5 over its changes, 2.1 over time); an op there waited up to "
        "180 µs from its launch to its start"
    ) in capsys.readouterr().out
    assert main(["report", str(capture), "--json"]) == 0
    streams = json.loads(capsys.readouterr().out)["launch_queue"]
    assert [(s["stream"], s["max"], s["ops"]) for s in streams] == [
        (7, 3, 3),
        (20, 2, 2),
    ]
    assert "t_us" not in streams[0]
