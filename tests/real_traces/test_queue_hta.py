"""The launch queue agrees with HTA 0.5.0's queue length analysis on every shared trace.

The oracle is HTA's own output in tests/fixtures/hta/hta_queue.json
(make_hta_queue.py: get_queue_length_time_series, its summary and the time
blocked on a full queue, include_last_profiler_step=True). Under HTA's rules
(its launch call names, streams by number, fractional µs rounded) every
stream's summary is HTA's exactly, once two things HTA does by accident are
done as it did them (DEFINITIONS.md §14):

* at a time where a launch and an op's start on one stream tie, HTA's order
  is an unstable sort's; steptrace counts the launch first. The fixture
  records HTA's order at each such time, and the test replays it: the
  changes there must be the same ones, only ordered differently;
* HTA drops the op whose device event is the file's first event (its
  `index_correlation` reads 0, "no partner"); the test drops it too.
"""

from __future__ import annotations

import gzip
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import shared_traces as shared
from tui.core.base.vocab import BreakdownRules
from tui.core.figures.analysis import Analysis
from tui.core.figures.queue import (
    FULL_QUEUE,
    QueueStats,
    launch_queue,
    queue_input,
    stream_queues,
    time_at_or_above,
)
from tui.core.ingest.load import load_trace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hta" / "hta_queue.json"
# Traces with fractional µs, which HTA rounds (DEFINITIONS.md §1.3).
FRACTIONAL = ("amd_trace", "mtia_trace", "ns_resolution", "triton_example")


@cache
def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def _hta_streams(name: str) -> dict[str, Any]:
    (rank,) = fixture()["traces"][name]["per_rank"].values()
    streams: dict[str, Any] = rank["series"] or {}
    return streams


WITH_SERIES = sorted(name for name in fixture()["traces"] if _hta_streams(name))


@cache
def _analysis(name: str) -> Analysis:
    return Analysis(load_trace(shared.FOLDER / name))


@cache
def _first_event(name: str) -> dict[str, Any]:
    """The file's first event, decoded alone: json read the whole 87 MB MTIA
    trace for it in 8 s of CPU, once per test."""
    raw = (shared.FOLDER / name).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    opening = raw.index(b"[", raw.index(b'"traceEvents"')) + 1
    text = raw[opening : opening + (1 << 20)].decode("utf-8", "replace").lstrip()
    first: dict[str, Any] = json.JSONDecoder().raw_decode(text)[0]
    return first


def _hta_series(name: str) -> dict[int, tuple[Any, Any]]:
    """Our series under HTA's rules, without the op HTA drops (the file's first event)."""
    analysis = _analysis(name)
    trace = analysis.trace
    ops = queue_input(
        trace, analysis.launch_call, analysis.graph_work, BreakdownRules.HTA
    )
    keep = np.ones(ops.start_ns.size, dtype=bool)
    first = _first_event(name)
    if "stream" in first.get("args", {}) and first.get("dur") is not None:
        at = math.ceil(first["ts"]) * 1000 - trace.origin_ns
        keep &= ~(
            (ops.start_ns == at)
            & (np.array(ops.streams)[ops.stream] == first["args"]["stream"])
        )
    series = stream_queues(ops.call_ns[keep], ops.start_ns[keep], ops.stream[keep])
    return {
        int(ops.streams[index]): (times, lengths)
        for index, (times, lengths, _) in enumerate(series)
        if times.size
    }


def test_htas_queue_ran_on_every_gpu_trace() -> None:
    traces = fixture()["traces"]
    assert set(traces) == set(shared.names())
    assert all(
        "error" not in entry and "per_rank" in entry for entry in traces.values()
    )
    assert len(WITH_SERIES) == 14
    assert fixture()["versions"]["holistictraceanalysis"] == "0.5.0"


@pytest.mark.parametrize("name", WITH_SERIES)
def test_every_streams_summary_is_htas(name: str) -> None:
    hta = _hta_streams(name)
    ours = _hta_series(name)
    assert sorted(ours) == sorted(int(stream) for stream in hta)
    for stream, figures in hta.items():
        times, lengths = ours[int(stream)]
        offset_ns = times[0] - figures["first_ts_us"] * 1000
        changes = np.diff(lengths, prepend=0)
        for ts, order in figures["mixed_tie_order"]:
            at = np.flatnonzero(times == ts * 1000 + offset_ns)
            assert sorted(changes[at].tolist()) == sorted(order), (stream, ts)
            changes[at] = order
        stats = QueueStats.of(np.cumsum(changes))
        expected = figures["summary"]
        assert (stats.count, stats.minimum, stats.maximum) == (
            expected["count"],
            expected["min"],
            expected["max"],
        ), stream
        for key, value in (
            ("mean", stats.mean),
            ("std", stats.std),
            ("p25", stats.p25),
            ("p50", stats.p50),
            ("p75", stats.p75),
        ):
            assert value is not None and expected[key] is not None
            assert math.isclose(value, expected[key], rel_tol=1e-12), (stream, key)
        assert int((lengths < 0).sum()) == figures["negative_points"] == 0


@pytest.mark.parametrize("name", WITH_SERIES)
def test_time_at_a_full_queue_is_htas(name: str) -> None:
    """At HTA's default (1024: no stream reaches it) and at each stream's own maximum."""
    ours = _hta_series(name)
    for stream, figures in _hta_streams(name).items():
        times, lengths = ours[int(stream)]
        for blocked in figures["blocked_on_full_queue"].values():
            rows = blocked["rows"]
            expected_us = rows[0]["duration_at_max_queue_length"] if rows else 0
            full_ns = time_at_or_above(times, lengths, blocked["max_queue_length"])
            assert full_ns == expected_us * 1000, (stream, blocked)
    assert FULL_QUEUE == 1024


@pytest.mark.parametrize(
    "name", [name for name in WITH_SERIES if not name.startswith(FRACTIONAL)]
)
def test_steptraces_rules_read_htas_queue_on_whole_microseconds(name: str) -> None:
    """Without rounding the two rule sets count the same ops on the same streams."""
    analysis = _analysis(name)
    both = [
        launch_queue(analysis.trace, analysis.launch_call, analysis.graph_work, rules)
        for rules in (BreakdownRules.HTA, BreakdownRules.STEPTRACE)
    ]
    hta, ours = ({s.stream: s for s in queue.streams} for queue in both)
    assert sorted(hta) == sorted(ours)
    for stream, figures in hta.items():
        assert figures.time_ns.tolist() == ours[stream].time_ns.tolist()
        assert figures.length.tolist() == ours[stream].length.tolist()
