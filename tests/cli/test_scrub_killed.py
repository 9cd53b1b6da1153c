"""A scrub killed while writing its copy leaves a hidden partial file; the next
scrub into that folder removes it, and never a file a live writer holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tui.cli import main
from tui.core.base import safe_write

REPO = Path(__file__).resolve().parents[2]
TRACE = b'{"traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 1, "dur": 2}]}'

_KILLED_SCRUB = """
import os, signal, sys
from tui.core.base import safe_write
from tui.cli import main

real_write = os.write
def write_then_die(fd, data):
    real_write(fd, bytes(data[: len(data) // 2]))
    os.kill(os.getpid(), signal.SIGKILL)  # kill -9 with the copy half written
safe_write.os.write = write_then_die
main(sys.argv[1:])
"""


def test_the_next_scrub_removes_a_killed_scrubs_partial_copy(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    trace.write_bytes(TRACE + b" " * 100_000)
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_SCRUB, "scrub", str(trace), "-o", "o.json"],
        cwd=tmp_path,
        env=environment,
        check=False,
    )
    assert killed.returncode == -9
    (partial,) = (name for name in os.listdir(tmp_path) if name.endswith(".tmp"))
    assert partial.startswith(".o.json.")

    assert main(["scrub", str(trace), "-o", str(tmp_path / "p.json")]) == 0
    assert sorted(os.listdir(tmp_path)) == ["p.json", "t.json"]


def test_a_live_writers_temporary_file_is_left_alone(tmp_path: Path) -> None:
    fd, temporary = safe_write.temporary_sibling(tmp_path / "o.json")
    try:
        safe_write.remove_abandoned_temporaries(tmp_path)
        assert temporary.exists()
    finally:
        os.close(fd)
    safe_write.remove_abandoned_temporaries(tmp_path)  # its writer is gone now
    assert not temporary.exists()
    lookalike = tmp_path / ".notes.0123456789abcdef.tmp"
    os.symlink(tmp_path / "elsewhere", lookalike)  # not a regular file: kept
    safe_write.remove_abandoned_temporaries(tmp_path)
    assert os.path.lexists(lookalike)
