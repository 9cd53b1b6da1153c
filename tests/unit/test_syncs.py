"""Host synchronisations: a hand-made trace whose syncs, causes and idle are known
by construction, and the shared traces checked against a raw parse of their JSON."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.syncs import runtime, sync_trace
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main
from tui.core.base.vocab import SyncKind
from tui.core.figures.analysis import Analysis
from tui.core.figures.sync_reading import SyncReading
from tui.core.figures.syncs import SYNC_KINDS, call_sync_kind
from tui.core.ingest.load import load_trace


@pytest.fixture
def reading(tmp_path: Path) -> SyncReading:
    return SyncReading.of(Analysis(load_trace(sync_trace(tmp_path / "syncs.json"))))


def test_every_sync_with_its_blocked_time_and_idle_after(reading: SyncReading) -> None:
    trace = reading.trace
    columns = reading.columns
    names = [trace.event_name(int(event)) for event in columns.events]
    assert names == [
        "cudaMemcpyAsync",
        "cudaStreamSynchronize",
        "cudaMemcpyAsync",
        "cudaStreamSynchronize",
        "cudaDeviceSynchronize",
        "Event Sync",
        "cudaMemcpy",
    ]
    assert [SYNC_KINDS[int(k)] for k in columns.kind] == [
        SyncKind.COPY,
        SyncKind.STREAM,
        SyncKind.COPY,
        SyncKind.STREAM,
        SyncKind.DEVICE,
        SyncKind.EVENT,
        SyncKind.COPY,
    ]
    assert columns.blocked_ns.tolist() == [
        36_000,
        3_000,
        56_000,
        3_000,
        50_000,
        10_000,
        10_000,
    ]
    assert columns.idle_after_ns.tolist() == [1_000, 30_000, 0, 0, 200_000, 90_000, -1]
    assert columns.queries == 1
    assert columns.device.tolist() == [0] * 7
    # The joined cuda_sync events, and the lone one stands for itself.
    joined = [
        None if e < 0 else trace.event_name(e) for e in columns.device_event.tolist()
    ]
    assert joined == [
        None,
        "Stream Sync",
        None,
        "Stream Sync",
        "Context Sync",
        "Event Sync",
        None,
    ]


def test_cause_reading_path_and_stack(reading: SyncReading) -> None:
    trace = reading.trace
    columns = reading.columns

    def name(event: int) -> str | None:
        return None if event < 0 else trace.event_name(event)

    assert [name(int(e)) for e in columns.cause] == [
        "aten::item",
        "aten::item",
        "aten::to",
        "aten::to",
        None,
        None,
        None,
    ]
    assert [name(int(e)) for e in columns.reading] == ["aten::item"] * 2 + [None] * 5
    item_path = ("aten::item", "aten::_local_scalar_dense")
    assert columns.paths[int(columns.path[0])] == item_path
    assert columns.paths[int(columns.path[1])] == item_path
    assert columns.paths[int(columns.path[3])] == ("aten::to", "aten::copy_")
    assert int(columns.path[4]) == -1  # directly in the step: steps are left out
    frames = ("train.py(12): step", "model.py(5): forward")
    assert columns.stacks[int(columns.stack[0])] == frames
    assert columns.stacks[int(columns.stack[1])] == frames
    assert columns.stack[2:].tolist() == [-1] * 5


def test_totals_per_kind_cause_and_step(reading: SyncReading) -> None:
    assert reading.total.count == 7
    assert reading.total.blocked_ns == 168_000
    assert reading.total.idle_after_ns == 321_000
    by_kind = {
        kind: (t.count, t.blocked_ns, t.idle_after_ns)
        for kind, t in reading.by_kind.items()
    }
    assert by_kind == {
        SyncKind.STREAM: (2, 6_000, 30_000),
        SyncKind.DEVICE: (1, 50_000, 200_000),
        SyncKind.EVENT: (1, 10_000, 90_000),
        SyncKind.COPY: (3, 102_000, 1_000),
    }
    # The synchronous cudaMemcpy has no device work after it: no idle counted.
    assert reading.by_kind[SyncKind.COPY].followed == 2
    assert reading.by_kind[SyncKind.STREAM].followed == 2
    causes = [
        (row.name, row.totals.count, row.totals.cost_ns) for row in reading.by_cause
    ]
    assert causes == [
        (None, 3, 360_000),
        ("aten::item", 2, 70_000),
        ("aten::to", 2, 59_000),
    ]
    steps = [(t.count, t.blocked_ns, t.idle_after_ns) for t in reading.step_totals]
    assert steps == [(7, 168_000, 321_000), (0, 0, 0)]
    assert reading.in_window.all()
    reads = {row.name: (row.calls, row.waited) for row in reading.reads}
    assert reads == {
        "aten::item": (1, 1),
        "aten::_local_scalar_dense": (1, 1),
        "aten::nonzero": (1, 0),
    }
    top = [
        int(reading.columns.blocked_ns[p] + max(reading.columns.idle_after_ns[p], 0))
        for p in reading.top
    ]
    assert top == sorted(top, reverse=True)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("cudaStreamSynchronize", SyncKind.STREAM),
        ("cudaStreamSynchronize_ptsz", SyncKind.STREAM),
        ("cuStreamSynchronize", SyncKind.STREAM),
        ("hipDeviceSynchronize", SyncKind.DEVICE),
        ("cuCtxSynchronize", SyncKind.DEVICE),
        ("hipEventSynchronize", SyncKind.EVENT),
        ("cudaMemcpy", SyncKind.COPY),
        ("cuMemcpyDtoH_v2", SyncKind.COPY),
        ("hipMemcpyWithStream", SyncKind.COPY),
        ("cudaMemcpyAsync", None),
        ("cudaEventQuery", None),
        ("cudaStreamWaitEvent", None),
        ("cudaLaunchKernel", None),
    ],
)
def test_which_calls_wait(name: str, kind: SyncKind | None) -> None:
    assert call_sync_kind(name) is kind


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sync_trace(tmp_path / "syncs.json")
    assert main(["syncs", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"] == {
        "count": 7,
        "blocked_us": 168.0,
        "idle_after_us": 321.0,
        "followed": 6,
    }
    assert data["queries"] == 1
    assert [row["kind"] for row in data["kinds"]] == [
        "stream",
        "device",
        "event",
        "copy",
    ]
    assert data["steps"][0]["step"] == 1 and data["steps"][0]["count"] == 7
    first = data["top"][0]
    assert first["name"] == "cudaDeviceSynchronize"
    assert first["blocked_us"] == 50.0 and first["idle_after_us"] == 200.0
    item = next(row for row in data["top"] if row["operator"] == "aten::item")
    assert item["stack"] == ["train.py(12): step", "model.py(5): forward"]
    assert item["path"] == ["aten::item", "aten::_local_scalar_dense"]
    assert (
        next(row for row in data["top"] if row["name"] == "cudaMemcpy")["idle_after_us"]
        is None
    )
    assert main(["syncs", str(path)]) == 0
    text = capsys.readouterr().out
    words = " ".join(text.split())
    assert "7 host synchronisations" in words and "1 event query left out" in words
    assert all(len(line) <= 80 for line in text.splitlines())


def test_without_gpu_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_trace(
        tmp_path / "cpu.json",
        [
            *metadata(),
            cpu("aten::item", 0, 10),
            runtime("cudaStreamSynchronize", 1, 5, 1),
        ],
    )
    assert main(["syncs", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gpu_observed"] is False and data["total"] is None


# -- the shared traces against a raw parse of their JSON ---------------------------

BLOCKING = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize"}
WORK_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}


def raw_syncs(path: Path) -> tuple[int, float, float, int]:
    """Count, blocked µs and idle-after µs of the blocking runtime calls (and of the
    cudaMemcpyAsync calls whose copy goes into pageable host memory, or comes
    from it and ends before its call does), and the cuda_sync events of
    queries, computed from the JSON alone (one device)."""
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    pageable = {
        e["args"]["correlation"]
        for e in events
        if e.get("cat") == "gpu_memcpy"
        and e["name"] == "Memcpy DtoH (Device -> Pageable)"
    }
    uploads = {
        e["args"]["correlation"]: float(e["ts"]) + float(e["dur"])
        for e in events
        if e.get("cat") == "gpu_memcpy"
        and e["name"] == "Memcpy HtoD (Pageable -> Device)"
    }

    def drained(call: dict[str, Any]) -> bool:
        copy_end = uploads.get(call["args"]["correlation"])
        return (
            copy_end is not None and float(call["ts"]) + float(call["dur"]) >= copy_end
        )

    calls = [
        e
        for e in events
        if e.get("cat") == "cuda_runtime"
        and (
            e["name"] in BLOCKING
            or (
                e["name"] == "cudaMemcpyAsync"
                and (e["args"]["correlation"] in pageable or drained(e))
            )
        )
    ]
    steps = [
        (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
        for e in events
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
    ]
    calls.sort(key=lambda e: (e["pid"], e["tid"], float(e["ts"])))
    work = [
        (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)))
        for e in events
        if e.get("cat") in WORK_CATEGORIES and e.get("ph") == "X"
    ]
    idle = 0.0
    for index, call in enumerate(calls):
        end = float(call["ts"]) + float(call["dur"])
        if any(start < end < stop for start, stop in work):
            continue
        following = [start for start, _ in work if start >= end]
        if not following:
            continue
        until = min(following)
        for low, high in steps:
            if low <= float(call["ts"]) < high:
                until = min(until, high)
        later = calls[index + 1] if index + 1 < len(calls) else None
        if later is not None and (later["pid"], later["tid"]) == (
            call["pid"],
            call["tid"],
        ):
            until = min(until, max(float(later["ts"]), end))
        idle += until - end
    query_ids = {
        e["args"]["correlation"]
        for e in events
        if e.get("cat") == "cuda_runtime" and e["name"] == "cudaEventQuery"
    }
    queries = sum(
        1
        for e in events
        if e.get("cat") == "cuda_sync" and e["args"].get("correlation") in query_ids
    )
    blocked = sum(float(call["dur"]) for call in calls)
    return len(calls), blocked, idle, queries


@pytest.mark.parametrize(
    "name",
    [
        "critical_path-cuda_event_sync-event_sync_trace.json.gz",
        "critical_path-cuda_event_sync_multi_stream-event_sync_trace.json.gz",
        "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
        "negative_queue_length_values_check-rank0.json.gz",
    ],
)
def test_shared_traces_against_their_json(shared_traces: Path, name: str) -> None:
    path = shared_traces / name
    count, blocked_us, idle_us, queries = raw_syncs(path)
    reading = SyncReading.of(Analysis(load_trace(path)))
    assert reading.total.count == count
    assert reading.total.blocked_ns / 1000 == pytest.approx(blocked_us)
    assert reading.total.idle_after_ns / 1000 == pytest.approx(idle_us)
    assert reading.columns.queries == queries
    # The cuda_sync events of those calls are joined to them (none on its own here).
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    waits = {
        e["args"]["correlation"]
        for e in events
        if e.get("cat") == "cuda_runtime" and e["name"] in BLOCKING
    }
    joined = sum(
        1
        for e in events
        if e.get("cat") == "cuda_sync" and e["args"].get("correlation") in waits
    )
    assert int((reading.columns.device_event >= 0).sum()) == joined


def test_names_from_the_trace_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An operator, a Python frame and a sync named with terminal sequences are
    printed escaped."""
    hostile = "x\x1b[2Jy\x9b31m\u202e"
    path = write_trace(
        tmp_path / "hostile.json",
        [
            *metadata(),
            cpu("frame" + hostile, 0, 100, cat="python_function"),
            cpu("aten::item" + hostile, 1, 90),
            runtime("cudaLaunchKernel", 2, 2, 1),
            gpu("k", 5, 20, correlation=1),
            runtime("cudaStreamSynchronize", 10, 20, 2),
            gpu("k", 60, 10, correlation=3),
        ],
    )
    assert main(["syncs", str(path)]) == 0
    text = capsys.readouterr().out
    assert "aten::item" in text and "frame" in text
    assert not any(char in text for char in ("\x1b", "\x9b", "\u202e"))


def test_an_older_profilers_call_stack(tmp_path: Path) -> None:
    """Without Python frames, the causing operator's `Call stack` arg (innermost
    first, `;`-separated, as PyTorch 1.8-1.9 wrote it) is the stack, outermost first."""
    # An argument named with a space, as the profiler writes it.
    old_args: dict[str, Any] = {
        "Call stack": "model.py(5): forward;train.py(12): step;"
    }
    path = write_trace(
        tmp_path / "old.json",
        [
            *metadata(),
            cpu("aten::item", 0, 50, **old_args),
            runtime("cudaStreamSynchronize", 10, 20, 2),
            gpu("k", 60, 10, correlation=3),
        ],
    )
    columns = SyncReading.of(Analysis(load_trace(path))).columns
    assert columns.stacks[int(columns.stack[0])] == (
        "train.py(12): step",
        "model.py(5): forward",
    )
