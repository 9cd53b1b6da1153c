"""Parallel decoding gives exactly the trace the sequential path gives.

Every column, string table, track, flow, warning and each event's args are
compared on every shared trace, on generated traces of both generations, and
on files with damage or a cut-off end (which must fall back to the sequential
path and keep its recovery). Ranges are made tiny so that even small files are
cut in many places, between workers and within each worker.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from tests import shared_traces as shared
from tests.builders.parallel_documents import document, event, op_kernel_events
from tests.support.decodings import assert_same_decoding
from tests.support.tracegen import generate
from tui.core.base.errors import LoadCancelled
from tui.core.ingest import load as load_module
from tui.core.ingest.assemble.assembler import build_trace
from tui.core.ingest.decode.document import decode_trace
from tui.core.ingest.load import LoadProgress, load_trace
from tui.core.ingest.parallel import driver as parallel
from tui.core.ingest.source import read_trace_bytes
from tui.core.model.trace import Trace

REPO = Path(__file__).resolve().parents[2]
SHARED_TRACES = shared.paths(keep=lambda path: "LICENSE" not in path.name)


@pytest.fixture(autouse=True, params=["forked-here", "through-a-helper"])
def _tiny_ranges(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Every file goes the parallel way, cut into ranges of a few kB, with
    workers forked by this process (as the CLI, which has one thread) and by
    a helper process (as the app, which loads in a thread)."""
    monkeypatch.setattr(load_module, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "RANGE_STEP_BYTES", 4096)
    monkeypatch.setattr(parallel, "PIECE_BYTES", 3 * 4096)
    monkeypatch.setattr(parallel, "MIN_RANGE_BYTES", 1)
    monkeypatch.setattr(parallel, "HELPER_MIN_RANGE_BYTES", 1)
    fork_here = request.param == "forked-here"
    monkeypatch.setattr(parallel, "_may_fork_here", lambda: fork_here)
    monkeypatch.setenv("STEPTRACE_SCRATCH_DIR", str(tmp_path))


def sequential(path: Path) -> Trace:
    """The reference: the whole document decoded, then built batch by batch."""
    raw = read_trace_bytes(path)
    return build_trace(
        decode_trace(raw.data, str(path)),
        path,
        file_size=raw.file_size,
        compressed=raw.compressed,
        read_warnings=raw.warnings,
    )


def parallel_only(path: Path, workers: int) -> Trace | None:
    """The parallel path alone: None when it leaves the file to the sequential one."""
    raw = read_trace_bytes(path)
    return parallel.load_parallel(
        path,
        workers,
        data=raw.data if raw.compressed else None,
        file_size=raw.file_size,
        compressed=raw.compressed,
        read_warnings=raw.warnings,
    )


def args_of(trace: Trace) -> list[bytes]:
    return [
        bytes(trace.args_blob[begin:end])
        for begin, end in zip(
            trace.args_begin.tolist(), trace.args_end.tolist(), strict=True
        )
    ]


def assert_same(got: Trace, want: Trace) -> None:
    assert_same_decoding(got, want, args=args_of, memory=False)


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("path", SHARED_TRACES, ids=lambda path: path.name[:40])
@pytest.mark.slow
def test_shared_traces_decode_the_same_in_parallel(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # About 24 pieces a file, so each one is cut in many places without the
    # biggest (87 MB of JSON) becoming thousands of pieces to claim and merge.
    events_bytes = len(read_trace_bytes(path).data)
    monkeypatch.setattr(parallel, "PIECE_BYTES", max(3 * 4096, events_bytes // 24))
    want = sequential(path)
    got = parallel_only(path, workers=3)
    assert got is not None, "a well-formed trace must take the parallel path"
    assert_same(got, want)


@pytest.mark.parametrize("style", ["current", "1.9"])
@pytest.mark.parametrize("workers", [1, 2])
def test_generated_traces_decode_the_same_in_parallel(
    tmp_path: Path, style: str, workers: int
) -> None:
    result = generate(tmp_path / "t.json", steps=2, seed=11, style=style)
    got = parallel_only(result.path, workers)
    assert got is not None
    assert_same(got, sequential(result.path))


ODDITIES = {
    "not-objects": ["1", '"text"', "null", "[1, 2]"],
    "unknown-phases": [event(ph="Z", name="z"), event(ph=["X"], name="list")],
    "begin-end-across-ranges": [
        event(ph="B", name="zone", pid=1, tid="7", ts=1000),
        event(ph="E", pid=1, tid=7, ts=1500),
    ],
    "bad-times": [
        event(ph="X", name="no_ts", pid=1, tid=7, dur=1),
        event(ph="X", name="neg", pid=1, tid=7, ts=5, dur=-1),
        event(ph="X", name="huge", pid=1, tid=7, ts=5, dur=10**30),
        event(ph="X", name="exp", pid=1, tid=7, ts=1.5e3, dur=1),
    ],
    "odd-ids": [
        event(ph="X", name="i", pid=1, tid=7, ts=5, dur=1, args={"correlation": "9"}),
        event(ph="X", name="j", pid=1, tid=7, ts=6, dur=1, args=[1]),
        event(ph="X", name="k", pid=[1], tid={"t": 1}, ts=7, dur=1),
    ],
    "metadata": [
        event(ph="M", name="thread_name", pid=1, tid="7", args={"name": "main"}),
        event(ph="M", name="process_name", pid=0, tid=0, args={"name": "GPU 0"}),
    ],
}


@pytest.mark.parametrize("oddity", sorted(ODDITIES))
def test_odd_events_decode_the_same_in_parallel(tmp_path: Path, oddity: str) -> None:
    events = op_kernel_events(60)
    # The odd events sit in the middle and at the end: several ranges see them.
    events[100:100] = ODDITIES[oddity]
    events += ODDITIES[oddity]
    path = tmp_path / "odd.json"
    path.write_bytes(document(events, tail=', "traceName": "x"'))
    got = parallel_only(path, workers=3)
    assert got is not None
    assert_same(got, sequential(path))


def test_invalid_utf8_is_repaired_the_same_in_parallel(tmp_path: Path) -> None:
    events = op_kernel_events(40)
    events.insert(
        50, event(ph="X", cat="cpu_op", name="BADNAME", pid=1, tid=7, ts=5, dur=1)
    )
    events.insert(
        90, event(ph="X", name="ok", pid=1, tid=7, ts=6, dur=1, args={"a": "BADARG"})
    )
    text = document(events).replace(b"BADNAME", b"bad\xff\xfe")
    path = tmp_path / "utf8.json"
    path.write_bytes(text.replace(b"BADARG", b"\xc3"))
    want = sequential(path)
    assert any("UTF-8" in warning for warning in want.warnings)
    got = parallel_only(path, workers=2)
    assert got is not None
    assert_same(got, want)


DAMAGE = {
    "cut-off": lambda data: data[: len(data) * 2 // 3],
    "cut-after-bracket": lambda data: data[: data.rindex(b"]") + 1],
    "garbage-in-the-middle": lambda data: (
        data[: len(data) // 2] + b"\x00\x01garbage" + data[len(data) // 2 :]
    ),
    "nan-in-the-middle": lambda data: data.replace(b'"dur": 2', b'"dur": NaN', 1),
    "trailing-nul-padding": lambda data: data + b"\x00" * 64,
    "byte-order-mark": lambda data: b"\xef\xbb\xbf" + data,
    "two-traceEvents-keys": lambda data: data[:-2] + b', "traceEvents": []}\n',
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_files_keep_the_sequential_recovery(
    tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "damaged.json"
    path.write_bytes(
        DAMAGE[damage](document(op_kernel_events(60), tail=', "traceName": "x"'))
    )
    assert parallel_only(path, workers=3) is None
    try:
        want = sequential(path)
    except Exception as error:  # the same refusal either way
        with pytest.raises(type(error)) as raised:
            load_trace(path, workers=3)
        assert str(raised.value) == str(error)
        return
    assert_same(load_trace(path, workers=3), want)


def test_progress_per_worker_and_cancel(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(document(op_kernel_events(400)))
    seen: list[LoadProgress] = []
    cancel = threading.Event()

    def progress(step: LoadProgress) -> None:
        seen.append(step)
        if step.phase == "decoding" and len(step.workers) == 2:
            cancel.set()

    with pytest.raises(LoadCancelled):
        load_trace(path, workers=2, progress=progress, cancel=cancel)
    assert any(len(step.workers) == 2 for step in seen)
    # No worker is left behind, nor any scratch file.
    assert list(tmp_path.iterdir()) == [path]

    seen.clear()
    load_trace(path, workers=2, progress=seen.append)
    last = [step for step in seen if step.phase == "decoding"][-1]
    assert [done for done, _ in last.workers] == [size for _, size in last.workers]
    assert sum(size for _, size in last.workers) == last.bytes_total


GZIP_DAMAGE = {
    "good": lambda data: data,
    "cut": lambda data: data[: len(data) // 2],
    "corrupt": lambda data: data[:300] + b"\x00" * 50 + data[350:],
    "bad-checksum": lambda data: data[:-8] + b"\x00" * 4 + data[-4:],
    "two-members": lambda data: data + data,
    "trailing-bytes": lambda data: data + b"junk",
}


@pytest.mark.parametrize("damage", sorted(GZIP_DAMAGE))
def test_fast_inflate_reads_exactly_what_zlib_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    damage: str,
    shared_traces: Path,
) -> None:
    zlib_ng = pytest.importorskip("zlib_ng.zlib_ng")
    from tui.core.ingest import source

    path = tmp_path / "t.json.gz"
    original = shared_traces / "trace_file_list-inference_rank_1.json.gz"
    path.write_bytes(GZIP_DAMAGE[damage](original.read_bytes()))
    assert source.inflate_module() is zlib_ng
    fast = source.read_trace_bytes(path)
    monkeypatch.setitem(sys.modules, "zlib_ng", None)  # as if not installed
    import zlib

    assert source.inflate_module() is zlib
    plain = source.read_trace_bytes(path)
    assert bytes(fast.data) == bytes(plain.data)
    assert fast.warnings == plain.warnings
