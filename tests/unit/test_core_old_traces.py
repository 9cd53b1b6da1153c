"""Traces written by PyTorch 1.8-1.10 keep their CPU operators, steps and figures.

That profiler wrote thread ids as strings (`"tid": "25738"`), capitalised
categories (`Operator`, `Runtime`, `Kernel`...), `async` launch flows and a
`Trace` span. The generator's `style="1.9"` writes such traces with an exact
ground truth; hand-made traces pin down the rules one at a time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.support.tracegen import OP_FIGURES, generate
from tests.support.tracegen.check import check
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Kind, Trace, TrackKind

STYLES = ["current", "1.9"]


def _grouped_truth(expected: dict[str, Any]) -> dict[str, list[int]]:
    """The generator's per-name figures, with steps grouped as torch prints them."""
    grouped: dict[str, list[int]] = {}
    for name, figures in expected["ops"].items():
        key = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        row = grouped.setdefault(key, [0] * len(OP_FIGURES))
        for index, figure in enumerate(OP_FIGURES):
            row[index] += figures[figure]
    return grouped


@pytest.mark.parametrize("style", STYLES)
def test_generated_trace_matches_its_ground_truth(tmp_path: Path, style: str) -> None:
    result = generate(tmp_path / "t.json", steps=3, seed=5, style=style)
    expected = result.expected
    assert expected["style"] == style
    trace = load_trace(result.path)
    analysis = Analysis(trace)

    assert [step.duration_ns for step in analysis.steps] == expected["steps"][
        "durations_ns"
    ]
    assert analysis.device_busy_ns(device=0) == expected["gpu_busy_ns"]["0"]
    table = analysis.op_table()
    got = {
        name: [
            int(table.calls[row]),
            int(table.self_cpu_ns[row]),
            int(table.total_cpu_ns[row]),
            int(table.self_gpu_ns[row]),  # type: ignore[index]
            int(table.total_gpu_ns[row]),  # type: ignore[index]
        ]
        for row, name in enumerate(table.names)
    }
    assert got == _grouped_truth(expected)
    assert not [warning for warning in trace.warnings if "neither" in warning]


def test_old_style_threads_are_cpu_tracks_with_numeric_ids(tmp_path: Path) -> None:
    result = generate(tmp_path / "old.json", steps=2, seed=1, style="1.9")
    text = result.path.read_text()
    assert f'"tid": "{result.expected["main_tid"]}"' in text  # written as a string
    trace = load_trace(result.path)
    cpu = {track.tid: track for track in trace.tracks if track.kind == TrackKind.CPU}
    assert set(cpu) == {result.expected["main_tid"], result.expected["backward_tid"]}
    assert cpu[result.expected["main_tid"]].name.startswith("thread ")
    streams = {t.tid for t in trace.tracks if t.kind == TrackKind.DEVICE}
    assert streams == {"stream 7", "stream 20"}
    # Every launch flow binds a runtime call to its GPU event.
    assert trace.flows.flow_id.size == expected_launches(result.expected)
    assert (trace.flows.source_event >= 0).all()
    assert (trace.flows.target_event >= 0).all()


def expected_launches(expected: dict[str, Any]) -> int:
    return sum(
        expected["gpu_activity"][cat]["count"] for cat in ("Kernel", "Memcpy", "Memset")
    )


@pytest.mark.parametrize("style", STYLES)
def test_check_expected_recomputes_the_ground_truth(tmp_path: Path, style: str) -> None:
    result = generate(tmp_path / "t.json", steps=2, seed=3, style=style)
    checker = check(result.path, result.expected_path)
    assert checker.failures == []
    # The independent recomputation does catch a wrong figure.
    wrong = json.loads(result.expected_path.read_text())
    wrong["ops"]["aten::mm"]["self_gpu_ns"] += 1
    wrong_path = tmp_path / "wrong.expected.json"
    wrong_path.write_text(json.dumps(wrong))
    assert any("aten::mm" in f for f in check(result.path, wrong_path).failures)


def _write(tmp_path: Path, events: list[dict[str, Any]]) -> Trace:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return load_trace(path)


def _x(
    name: str, ts: int, dur: int, *, cat: str, pid: Any, tid: Any, **args: Any
) -> dict[str, Any]:
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": pid,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": args,
    }


def _op_calls(trace: Trace) -> dict[str, tuple[int, int, int]]:
    table = Analysis(trace).op_table()
    return {
        name: (
            int(table.calls[row]),
            int(table.self_cpu_ns[row]),
            int(table.total_cpu_ns[row]),
        )
        for row, name in enumerate(table.names)
    }


def test_string_tids_keep_their_operators(tmp_path: Path) -> None:
    events = [
        _x(
            "ProfilerStep#1",
            50,
            400,
            cat="Operator",
            pid=13721,
            tid="123",
            external_id=1,
        ),
        _x(
            "aten::to",
            200,
            60,
            cat="Operator",
            pid=13721,
            tid="123",
            external_id=3,
        ),
        _x(
            "aten::mm",
            300,
            60,
            cat="Operator",
            pid=13721,
            tid="123",
            external_id=4,
        ),
        _x(
            "cudaLaunchKernel",
            310,
            5,
            cat="Runtime",
            pid=13721,
            tid="123",
            correlation=99,
            **{"external id": 4},
        ),
        {
            "ph": "s",
            "id": 99,
            "pid": 13721,
            "tid": 123,
            "ts": 310,
            "cat": "async",
            "name": "launch",
        },
        _x(
            "k",
            330,
            15,
            cat="Kernel",
            pid=0,
            tid="stream 7",
            correlation=99,
            device=0,
            **{"external id": 4},
        ),
        {
            "ph": "f",
            "id": 99,
            "pid": 0,
            "tid": "stream 7",
            "ts": 330,
            "cat": "async",
            "name": "launch",
            "bp": "e",
        },
        _x(
            "PyTorch Profiler (0)",
            0,
            1000,
            cat="Trace",
            pid="Traces",
            tid="PyTorch Profiler",
        ),
        {
            "name": "thread_name",
            "ph": "M",
            "pid": 13721,
            "tid": "123",
            "args": {"name": "main (python)"},
        },
    ]
    trace = _write(tmp_path, events)
    cpu = [track for track in trace.tracks if track.kind == TrackKind.CPU]
    assert [(track.pid, track.tid, track.name) for track in cpu] == [
        (13721, 123, "main (python)")
    ]
    calls = _op_calls(trace)
    assert calls["ProfilerStep*"] == (1, 400_000 - 60_000 - 60_000, 400_000)
    assert calls["aten::mm"] == (1, 55_000, 60_000)
    assert calls["cudaLaunchKernel"] == (1, 5_000, 5_000)
    table = Analysis(trace).op_table()
    mm = table.names.index("aten::mm")
    assert table.self_gpu_ns is not None and int(table.self_gpu_ns[mm]) == 15_000
    assert Analysis(trace).steps[0].duration_ns == 400_000
    # The launch flow (int tid on its start, string tid on the runtime call) binds.
    launch = int(trace.flows.source_event[0])
    assert trace.event_name(launch) == "cudaLaunchKernel"
    assert trace.event_name(int(trace.flows.target_event[0])) == "k"
    assert not [warning for warning in trace.warnings if "neither" in warning]


def test_numeric_string_ids_are_the_same_track_as_int_ones(tmp_path: Path) -> None:
    events = [
        _x("aten::a", 10, 5, cat="cpu_op", pid=7, tid=25738),
        _x("aten::b", 20, 5, cat="cpu_op", pid="7", tid="25738"),
        _x("aten::c", 30, 5, cat="cpu_op", pid=7, tid="25738"),
        {
            "ph": "B",
            "name": "zone",
            "cat": "user_annotation",
            "pid": 7,
            "tid": "25738",
            "ts": 40,
        },
        {"ph": "E", "pid": "7", "tid": 25738, "ts": 50},
        _x("aten::other_thread", 10, 5, cat="cpu_op", pid=7, tid="25739"),
        {
            "name": "thread_name",
            "ph": "M",
            "pid": "7",
            "tid": 25738,
            "args": {"name": "main"},
        },
    ]
    trace = _write(tmp_path, events)
    assert [(t.pid, t.tid, t.kind, t.name) for t in trace.tracks] == [
        (7, 25738, TrackKind.CPU, "main"),
        (7, 25739, TrackKind.CPU, "thread 25739"),
    ]
    main = trace.track_slice(0)
    assert [trace.event_name(e) for e in range(main.start, main.stop)] == [
        "aten::a",
        "aten::b",
        "aten::c",
        "zone",
    ]
    zone = trace.names.index("zone")
    assert int(trace.duration_ns[trace.name_id == zone][0]) == 10_000
    assert not [w for w in trace.warnings if "begin" in w or "end events" in w]


def test_tracks_neither_cpu_nor_device_are_counted_in_a_warning(tmp_path: Path) -> None:
    events = [
        _x("aten::kept", 10, 5, cat="cpu_op", pid=1, tid=1),
        _x("user range", 10, 5, cat="User", pid=0, tid="stream 7 user"),
        _x("user range", 20, 5, cat="User", pid=0, tid="stream 7 user"),
        _x("mystery", 30, 5, cat="something", pid="lane", tid="x"),
        _x(
            "PyTorch Profiler (0)",
            0,
            100,
            cat="Trace",
            pid="Traces",
            tid="PyTorch Profiler",
        ),
    ]
    trace = _write(tmp_path, events)
    other = [t for t in trace.tracks if t.kind == TrackKind.OTHER]
    assert len(other) == 3
    unplaced = [warning for warning in trace.warnings if "neither" in warning]
    assert len(unplaced) == 1
    assert unplaced[0].startswith("3 events sit on 2 track(s)")
    assert "PyTorch Profiler" not in unplaced[0]
    # They are in no figure: only the CPU op is an operator-table call.
    assert _op_calls(trace) == {"aten::kept": (1, 5_000, 5_000)}
    spans = np.flatnonzero(trace.kind == Kind.TRACE_SPAN)
    assert spans.size == 1


def test_a_trace_span_alone_gives_no_warning(tmp_path: Path) -> None:
    events = [
        _x("aten::kept", 10, 5, cat="cpu_op", pid=1, tid=1),
        _x(
            "PyTorch Profiler (0)",
            0,
            100,
            cat="Trace",
            pid="Spans",
            tid="PyTorch Profiler",
        ),
    ]
    trace = _write(tmp_path, events)
    assert not [warning for warning in trace.warnings if "neither" in warning]


@pytest.mark.parametrize("style", STYLES)
def test_stream_labels_name_the_device_and_the_stream_once(
    tmp_path: Path, style: str
) -> None:
    """PyTorch 1.9 names the GPU process after the program
    ("python3.8") and its streams only by tid ("stream 7"), which read
    "python3.8 stream stream 7"; every style reads "GPU 0 stream 7"."""
    result = generate(tmp_path / "t.json", steps=2, seed=1, style=style)
    trace = load_trace(result.path)
    labels = sorted(t.label for t in trace.tracks if t.kind == TrackKind.DEVICE)
    assert [label for label in labels if "stream" in label] == [
        "GPU 0 stream 20",
        "GPU 0 stream 7",
    ]
