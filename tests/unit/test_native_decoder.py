"""The native decoder (DuckDB, `STEPTRACE_DECODER=native`) against the usual one,
its oracle: every column, string table, track, flow, warning and each event's
args compared on every shared trace, on generated traces, on other layouts of
the same JSON and on odd events.

Where it reads a trace, the one difference is the args' text: DuckDB writes
it without the file's whitespace (the values are the same, and compared).
Where it cannot read exactly, it gives way (None) and the usual decoder
reads the trace, so a load with the switch on is the usual trace.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from tests import shared_traces as shared
from tests.builders.parallel_documents import document, event, op_kernel_events
from tests.support.decodings import assert_same_decoding
from tests.support.tracegen import generate
from tests.unit.test_core_parallel import ODDITIES, sequential
from tui.core.ingest.load import load_trace
from tui.core.ingest.native import pieces
from tui.core.ingest.native.decoder import load_native
from tui.core.ingest.source import read_trace_bytes
from tui.core.model.trace import Trace

SHARED_TRACES = shared.paths(keep=lambda path: "LICENSE" not in path.name)


@pytest.fixture(autouse=True)
def _small_pieces(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Pieces of a few kB, so even small files are cut in several places, in
    a scratch folder of the test's own."""
    monkeypatch.setattr(pieces, "MIN_PIECE_BYTES", 2048)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("STEPTRACE_SCRATCH_DIR", str(scratch))
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    return scratch


def native_only(path: Path, threads: int = 3) -> Trace | None:
    """The native decoder alone: None when it leaves the file to the usual one."""
    raw = read_trace_bytes(path)
    return load_native(
        path,
        threads,
        data=raw.data if raw.compressed else None,
        file_size=raw.file_size,
        compressed=raw.compressed,
        read_warnings=raw.warnings,
    )


def args_values(trace: Trace) -> list[object]:
    return [
        json.loads(bytes(trace.args_blob[begin:end]))
        for begin, end in zip(
            trace.args_begin.tolist(), trace.args_end.tolist(), strict=True
        )
    ]


def assert_same(got: Trace, want: Trace) -> None:
    """Every column and table equal; the args equal as values."""
    assert_same_decoding(got, want, args=args_values, memory=True)


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("path", SHARED_TRACES, ids=lambda path: path.name[:40])
@pytest.mark.slow
def test_shared_traces_decode_the_same_natively(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events_bytes = len(read_trace_bytes(path).data)
    monkeypatch.setattr(pieces, "MIN_PIECE_BYTES", max(2048, events_bytes // 8))
    want = sequential(path)
    got = native_only(path)
    assert got is not None, "a well-formed trace must take the native path"
    assert_same(got, want)


@pytest.mark.parametrize("style", ["current", "1.9"])
def test_generated_traces_decode_the_same_natively(tmp_path: Path, style: str) -> None:
    result = generate(tmp_path / "t.json", steps=2, seed=11, style=style)
    got = native_only(result.path)
    assert got is not None
    assert_same(got, sequential(result.path))
    # Only the args' whitespace differs from the file's text.
    assert bytes(got.args_blob) != bytes(sequential(result.path).args_blob)


def _relaid(data: bytes, layout: str) -> bytes:
    document_value = json.loads(data)
    if layout == "one-line":
        return json.dumps(document_value, separators=(",", ":")).encode()
    if layout == "indent-4":
        return json.dumps(document_value, indent=4).encode()
    if layout == "crlf":
        return json.dumps(document_value, indent=1).replace("\n", "\r\n").encode()
    assert layout == "array"
    return json.dumps(document_value["traceEvents"]).encode()


TRICKY_EVENTS = [
    event(
        ph="X",
        cat="cpu_op",
        name="a},{b",
        pid=1,
        tid=7,
        ts=1000.25,
        dur=3,
        args={"nested": [{"x": 1}, {"y": "},{"}], "External id": 5},
    ),
    event(
        ph="X",
        cat="cpu_op",
        name='q"},\n{"ph":"X"',
        pid=1,
        tid=7,
        ts=1001.125,
        dur=2,
        args={"s": '}, {"ts": 5}'},
    ),
]


@pytest.mark.parametrize("layout", ["one-line", "indent-4", "crlf", "array"])
def test_other_layouts_decode_right(tmp_path: Path, layout: str) -> None:
    events = op_kernel_events(80)
    events[70:70] = TRICKY_EVENTS
    source = document(events, tail=', "traceName": "x"')
    path = tmp_path / "relaid.json"
    path.write_bytes(_relaid(source, layout))
    want = sequential(path)
    got = native_only(path)
    if got is not None:
        assert_same(got, want)
    os.environ["STEPTRACE_DECODER"] = "native"
    try:
        assert_same(load_trace(path), want)
    finally:
        del os.environ["STEPTRACE_DECODER"]


def test_nested_objects_and_braces_in_strings_take_the_native_path(
    tmp_path: Path,
) -> None:
    events = op_kernel_events(80)
    events[70:70] = [TRICKY_EVENTS[0]]
    path = tmp_path / "nested.json"
    path.write_bytes(document(events))
    got = native_only(path)
    assert got is not None
    assert_same(got, sequential(path))
    assert "a},{b" in got.names


ODD_IDS = [
    event(ph="X", name="a", pid=1, tid=7, ts=5, dur=1, args={"stream": "0x0"}),
    event(ph="X", name="b", pid=1, tid=7, ts=6, dur=1, args={"correlation": "0042"}),
    event(ph="X", name="c", pid=1, tid=7, ts=7, dur=1, args={"External id": 3.0}),
    event(ph="X", name="d", pid=1, tid=7, ts=8, dur=1, args={"correlation": True}),
    event(
        ph="X",
        name="e",
        pid=1,
        tid=7,
        ts=9,
        dur=1,
        args={"External id": -1, "external id": "12"},
    ),
    event(
        ph="X",
        name="f",
        pid=1,
        tid=7,
        ts=10,
        dur=1,
        args={"stream": 2**63, "correlation": 2**62},
    ),
    event(
        ph="X",
        name="g",
        pid=1,
        tid=7,
        ts=11,
        dur=1,
        args={"correlation": None, "stream": 7.0},
    ),
]


def test_ids_of_other_types_read_as_the_usual_decoder_reads_them(
    tmp_path: Path,
) -> None:
    events = op_kernel_events(40)
    events[50:50] = ODD_IDS
    path = tmp_path / "ids.json"
    path.write_bytes(document(events))
    got = native_only(path)
    assert got is not None
    want = sequential(path)
    assert_same(got, want)
    named = {want.names[code]: at for at, code in enumerate(want.name_id.tolist())}
    assert want.correlation[named["b"]] == 42
    assert want.external_id[named["e"]] == 12
    assert want.stream_arg[named["a"]] == -1


def test_other_scripts_digits_give_way(tmp_path: Path) -> None:
    events = op_kernel_events(40)
    events[50:50] = [
        event(ph="X", name="h", pid=1, tid=7, ts=5, dur=1, args={"correlation": "٣"})
    ]
    path = tmp_path / "digits.json"
    path.write_bytes(document(events))
    assert native_only(path) is None


@pytest.mark.parametrize("oddity", sorted(ODDITIES))
def test_odd_events_give_way_or_decode_the_same(
    tmp_path: Path, oddity: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = op_kernel_events(60)
    events[100:100] = ODDITIES[oddity]
    events += ODDITIES[oddity]
    path = tmp_path / "odd.json"
    path.write_bytes(document(events, tail=', "traceName": "x"'))
    want = sequential(path)
    got = native_only(path)
    if got is not None:
        assert_same(got, want)
    monkeypatch.setenv("STEPTRACE_DECODER", "native")
    assert_same(load_trace(path), want)


def test_gzip_decodes_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = generate(tmp_path / "t.json", steps=2, seed=5)
    packed = tmp_path / "t.json.gz"
    packed.write_bytes(gzip.compress(result.path.read_bytes()))
    got = native_only(packed)
    assert got is not None
    assert_same(got, sequential(packed))


def test_scratch_is_removed_and_no_room_gives_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _small_pieces: Path
) -> None:
    result = generate(tmp_path / "t.json", steps=1, seed=3)
    assert native_only(result.path) is not None
    assert list(_small_pieces.iterdir()) == []
    # A scratch folder that cannot be written: the usual decoder reads it.
    monkeypatch.setenv("STEPTRACE_SCRATCH_DIR", str(tmp_path / "missing" / "folder"))
    assert native_only(result.path) is None
    monkeypatch.setenv("STEPTRACE_DECODER", "native")
    assert_same(load_trace(result.path), sequential(result.path))


def test_a_failure_inside_removes_the_scratch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _small_pieces: Path
) -> None:
    from tui.core.ingest.native import decoder

    def broken(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(decoder, "_from_table", broken)
    result = generate(tmp_path / "t.json", steps=1, seed=3)
    with pytest.raises(KeyboardInterrupt):
        native_only(result.path)
    assert list(_small_pieces.iterdir()) == []


def test_the_switch_chooses_the_decoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off by default: the args keep the file's text; `native`: DuckDB's."""
    result = generate(tmp_path / "t.json", steps=1, seed=9)
    file_text = bytes(sequential(result.path).args_blob)
    monkeypatch.delenv("STEPTRACE_DECODER", raising=False)
    assert bytes(load_trace(result.path).args_blob) == file_text
    monkeypatch.setenv("STEPTRACE_DECODER", "native")
    assert bytes(load_trace(result.path).args_blob) != file_text


def test_a_full_scratch_gives_way_and_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _small_pieces: Path
) -> None:
    """A write refused for want of room (ENOSPC): the usual decoder reads the
    trace, and the pieces written so far are gone."""
    import errno
    import io

    written: list[str] = []

    class FullFile(io.BytesIO):
        def __init__(self, path: str) -> None:
            super().__init__()
            written.append(path)
            Path(path).write_bytes(b"[")

        def write(self, data: object) -> int:
            if len(written) > 1:
                raise OSError(errno.ENOSPC, "No space left on device")
            return 0

    monkeypatch.setattr(
        pieces, "open", lambda path, mode: FullFile(path), raising=False
    )
    result = generate(tmp_path / "t.json", steps=1, seed=3)
    assert native_only(result.path) is None
    assert len(written) == 2
    assert list(_small_pieces.iterdir()) == []
