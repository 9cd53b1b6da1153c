"""Reading trace bytes: a gzip bomb stops early by its ratio, an honest gzip trace does not."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.core.base.errors import TraceLoadError
from tui.core.ingest.source import BOMB_RATIO_AFTER, read_trace_bytes


def write_bomb(path: Path, inflated_bytes: int) -> Path:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"0" * (16 << 20)
    with path.open("wb") as handle:
        handle.write(compressor.compress(b'{"traceEvents": [{"name": "'))
        for _ in range(inflated_bytes // len(block)):
            handle.write(compressor.compress(block))
        handle.write(compressor.compress(b'"}]}') + compressor.flush())
    return path


@pytest.mark.slow
def test_gzip_bomb_stops_by_ratio_before_the_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("STEPTRACE_MAX_BYTES", raising=False)
    bomb = write_bomb(tmp_path / "bomb.json.gz", BOMB_RATIO_AFTER + (64 << 20))
    with pytest.raises(TraceLoadError, match="decompression bomb"):
        read_trace_bytes(bomb, max_bytes=8 << 30)


def test_explicit_limit_lets_a_compressible_file_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEPTRACE_MAX_BYTES", str(1 << 30))
    bomb = write_bomb(tmp_path / "bomb.json.gz", BOMB_RATIO_AFTER + (32 << 20))
    assert len(read_trace_bytes(bomb).data) > BOMB_RATIO_AFTER


def test_a_real_gzip_trace_reads_whole(tmp_path: Path) -> None:
    path = write_trace(
        tmp_path / "t.json.gz", metadata() + training_step_events(1, 0), gz=True
    )
    raw = read_trace_bytes(path)
    assert raw.compressed and bytes(raw.data) == gzip.decompress(path.read_bytes())
