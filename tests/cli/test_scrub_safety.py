"""scrub reads like the loader (same limits, same words) and writes a copy whole or not at all."""

from __future__ import annotations

import errno
import gzip
import os
from pathlib import Path

import pytest

from tui.cli import main
from tui.core.base import safe_write
from tui.core.base.errors import TraceLoadError
from tui.core.ingest.load import load_trace
from tui.scrub import ScrubError, scrub_file

TRACE = b'{"traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 1, "dur": 2}]}'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def leftovers(folder: Path, *keep: str) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name not in keep)


@pytest.mark.parametrize("mode", ["--check", "-o"])
def test_a_gzip_bomb_stops_at_the_loaders_limit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    # A valid trace padded to 8 MB: 8 kB of gzip.
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(TRACE + b" " * 8_000_000))
    monkeypatch.setenv("STEPTRACE_MAX_BYTES", "1000000")
    argv = ["--check"] if mode == "--check" else ["-o", str(tmp_path / "out.json")]
    status, out, err = run(capsys, "scrub", str(bomb), *argv)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "decompresses to more than" in err and "stopped" in err
    assert leftovers(tmp_path, "bomb.json.gz") == []


class _DiskFull:
    """os.write that writes half of the first buffer, then fails like a full disk."""

    def __init__(self) -> None:
        self.calls = 0
        self.real = os.write

    def __call__(self, fd: int, data: memoryview) -> int:
        self.calls += 1
        if self.calls == 1:
            return self.real(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_an_interrupted_write_leaves_no_partial_copy(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = tmp_path / "t.json"
    trace.write_bytes(TRACE)
    disk_full = _DiskFull()
    monkeypatch.setattr(os, "write", disk_full)
    status, out, err = run(capsys, "scrub", str(trace), "-o", str(tmp_path / "o.json"))
    assert disk_full.calls == 2  # half the copy was on disk when the write failed
    assert status == 2
    assert out == ""
    assert (
        err
        == f"steptrace: {tmp_path / 'o.json'}: cannot write (No space left on device)\n"
    )
    assert leftovers(tmp_path, "t.json") == []


def test_a_name_taken_during_the_scrub_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "t.json"
    trace.write_bytes(TRACE)
    output = tmp_path / "o.json"
    real_link = os.link

    def someone_else_first(source: Path, target: Path) -> None:
        Path(target).write_bytes(b"precious")
        real_link(source, target)

    monkeypatch.setattr(os, "link", someone_else_first)
    with pytest.raises(ScrubError, match="already exists, not overwritten"):
        scrub_file(trace, output)
    assert output.read_bytes() == b"precious"
    assert leftovers(tmp_path, "t.json", "o.json") == []


def test_without_hard_links_the_copy_is_still_whole_or_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(source: Path, target: Path) -> None:
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", no_links)
    written = safe_write.write_fresh(tmp_path / "whole.json", b"x" * 1000)
    assert written.read_bytes() == b"x" * 1000

    real_fsync = os.fsync
    calls = {"count": 0}

    def fsync_fails_on_the_copy(fd: int) -> None:
        calls["count"] += 1
        if calls["count"] == 2:  # the first fsync is the temporary file's
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync_fails_on_the_copy)
    with pytest.raises(OSError):
        safe_write.write_fresh(tmp_path / "broken.json", b"y" * 1000)
    assert leftovers(tmp_path, "whole.json") == []


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("broken.json", b'{"traceEvents": [{"ph": "X", "name": "a",, }]}'),
        ("cut.json", b'{"traceEvents": [1, 2'),
        ("empty.json", b""),
        ("object.json", b'{"events": []}'),
        ("not_a_list.json", b'{"traceEvents": {}}'),
        ("scalar.json", b"42"),
        ("text.json", b"not json at all"),
        ("damaged.json.gz", b"\x1f\x8b\x08\x00garbage"),
        ("folder", None),
        ("missing.json", None),
    ],
)
def test_bad_input_reads_as_the_loader_says_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes | None,
) -> None:
    trace = tmp_path / name
    if content is not None:
        trace.write_bytes(content)
    elif name == "folder":
        trace.mkdir()
    scrub_status, out, scrub_err = run(capsys, "scrub", str(trace), "--check")
    with pytest.raises(TraceLoadError) as loader_error:
        load_trace(trace)
    assert (scrub_status, out) == (2, "")
    assert scrub_err.count("\n") == 1
    assert scrub_err.startswith(f"steptrace: {trace}: ")
    # Python's own JSON wording never reaches the user.
    assert "Expecting" not in scrub_err and "char " not in scrub_err
    assert scrub_err == f"steptrace: {loader_error.value}\n"


def test_json_the_loader_reads_around_is_still_not_scrubbed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "cut.json"
    trace.write_bytes(TRACE[:-2] + b", {")
    status, out, err = run(capsys, "scrub", str(trace), "-o", str(tmp_path / "o.json"))
    assert (status, out) == (2, "")
    assert err.startswith(f"steptrace: {trace}: damaged JSON (")
    assert err.count("\n") == 1
    assert "only a whole trace is scrubbed" in err
    assert leftovers(tmp_path, "cut.json") == []
