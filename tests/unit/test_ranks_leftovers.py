"""`ranks` leaves nothing behind when interrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.builders.runs import write_run

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_ctrl_c_of_ranks_leaves_no_temporary_folder(tmp_path: Path) -> None:
    # Ranks over the parallel decoding threshold (32 MiB of JSON), so that
    # each worker holds a scratch folder while it decodes.
    run = tmp_path / "run"
    write_run(run, {0: [100.0] * 72_000}, world_size=3)
    data = (run / "rank-0.pt.trace.json").read_bytes()
    for rank in (1, 2):
        (run / f"rank-{rank}.pt.trace.json").write_bytes(
            data.replace(b'"rank":0', b'"rank":%d' % rank, 1)
        )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    environment = {
        **os.environ,
        "STEPTRACE_NO_CACHE": "1",
        "PYTHONPATH": str(REPO),
        "STEPTRACE_SCRATCH_DIR": str(scratch),
        "TMPDIR": str(scratch),
    }
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
            "ranks",
            str(run),
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not any(scratch.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert any(scratch.iterdir()), "no worker started decoding"
        os.killpg(child.pid, signal.SIGINT)  # as a terminal's Ctrl+C does
        _, error = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 130, error
    assert list(scratch.iterdir()) == []
