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


# The rank summaries kept beside the column cache follow its rules.


def _arrivals(tmp_path: Path) -> list[int | None]:
    from tui.core.runs.pool import summarise_files

    outcome = summarise_files([tmp_path / "run" / "rank-0.pt.trace.json"], workers=1)
    assert outcome[0].summary is not None
    return [step.collectives.arrival_ns for step in outcome[0].summary.steps]


@pytest.fixture
def kept_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("STEPTRACE_NO_CACHE", raising=False)
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "cache"))
    write_run(tmp_path / "run", {0: [100.0, 200.0]}, world_size=None)
    assert _arrivals(tmp_path) == [100_000, 200_000]
    return tmp_path / "run" / "rank-0.pt.trace.json"


def test_a_kept_summary_misses_after_an_in_place_edit_keeping_size_and_mtime(
    tmp_path: Path, kept_run: Path
) -> None:
    before = kept_run.stat()
    write_run(tmp_path / "other", {0: [100.0, 300.0]}, world_size=None)
    edited = (tmp_path / "other" / "rank-0.pt.trace.json").read_bytes()
    assert len(edited) == before.st_size
    with kept_run.open("r+b") as handle:
        handle.write(edited)
    os.utime(kept_run, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _arrivals(tmp_path) == [100_000, 300_000]


def test_a_damaged_kept_summary_is_a_miss(tmp_path: Path, kept_run: Path) -> None:
    (entry,) = (tmp_path / "cache" / "rank-summaries").glob("*.json")
    text = entry.read_text()
    assert text.count("200000") >= 1
    entry.write_text(text.replace("200000", "900000"))  # digits overwritten
    assert _arrivals(tmp_path) == [100_000, 200_000]
    entry.write_text('{"key": ')  # cut short
    assert _arrivals(tmp_path) == [100_000, 200_000]
