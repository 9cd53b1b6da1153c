"""The parallel decoder's worker processes, seen from outside: a loading
script is never run again by them, they stop and leave nothing behind
when the loading process is killed, a slow one takes fewer pieces, and they
store their columns in memory only where it has room."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.builders.parallel_documents import document, op_kernel_events
from tui.core.ingest import load as load_module
from tui.core.ingest.load import LoadProgress, load_trace
from tui.core.ingest.parallel import driver as parallel
from tui.core.ingest.parallel import ranges
from tui.core.ingest.parallel.driver import scratch_root

REPO = Path(__file__).resolve().parents[2]


# A script's lines that make its process load with a second thread running,
# as the app does: its workers then come from a helper process.
A_SECOND_THREAD = (
    "import threading\n"
    "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
)
HOW_WORKERS_START = {"forked-here": "", "through-a-helper": A_SECOND_THREAD}


@pytest.mark.parametrize("start", sorted(HOW_WORKERS_START))
def test_a_script_without_a_main_guard_runs_once(tmp_path: Path, start: str) -> None:
    """Workers never import the program that loads the trace."""
    trace = tmp_path / "t.json"
    trace.write_bytes(document(op_kernel_events(200)))
    marker = tmp_path / "ran"
    script = tmp_path / "script.py"
    script.write_text(
        HOW_WORKERS_START[start] + "import tui.core.ingest.load as load\n"
        "import tui.core.ingest.parallel.driver as parallel\n"
        "load.PARALLEL_MIN_BYTES = 0\n"
        "parallel.MIN_RANGE_BYTES = parallel.HELPER_MIN_RANGE_BYTES = 1\n"
        f"with open({str(marker)!r}, 'a') as f: f.write('x')\n"
        f"trace = load.load_trace({str(trace)!r}, workers=2)\n"
        "print(trace.event_count, parallel._may_fork_here())\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=True,
    )
    assert marker.read_text() == "x"
    count, forked_here = result.stdout.split()
    assert int(count) == 400
    assert forked_here == str(start == "forked-here")


def _ended(pid: int) -> bool:
    """Whether a process is gone or a zombie nobody reaped (a container's init may not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see processes")
def test_forked_workers_stop_and_clean_up_when_the_loading_process_is_killed(
    tmp_path: Path,
) -> None:
    """kill -9 of the loader leaves no worker decoding and no scratch folder.

    (Workers forked by a helper are stopped by it; they cannot be slowed from
    the script, which the helper never imports.)"""
    trace = tmp_path / "t.json"
    trace.write_bytes(document(op_kernel_events(400)))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    pids = tmp_path / "workers"
    script = tmp_path / "script.py"
    script.write_text(
        "import os, signal, time\n"
        "import tui.core.ingest.load as load\n"
        "import tui.core.ingest.parallel.driver as parallel\n"
        "import tui.core.ingest.parallel.ranges as ranges\n"
        "load.PARALLEL_MIN_BYTES = 0\n"
        "parallel.MIN_RANGE_BYTES = parallel.HELPER_MIN_RANGE_BYTES = 1\n"
        "parallel.RANGE_STEP_BYTES = 512\n"
        "decode = ranges.decode_range\n"
        "def slow_worker(data, start, end, on_step, reader, **options):\n"
        f"    with open({str(pids)!r}, 'a') as f: f.write(f'{{os.getpid()}}\\n')\n"
        "    def slowly(done):\n"
        "        time.sleep(1)  # a range's 50+ steps take a minute\n"
        "        on_step(done)\n"
        "    return decode(data, start, end, slowly, reader, **options)\n"
        "ranges.decode_range = slow_worker\n"
        "def killed(*args, **kwargs):\n"
        "    while not os.path.exists(" + repr(str(pids)) + "):\n"
        "        time.sleep(0.01)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "parallel.take_pieces = killed\n"
        f"load.load_trace({str(trace)!r}, workers=3)\n"
    )
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "STEPTRACE_SCRATCH_DIR": str(scratch),
    }
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, env=environment, timeout=60
    )
    assert result.returncode == -signal.SIGKILL, result.stderr.decode()[-2000:]
    # Long before the workers could have finished their ranges.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        workers = [int(pid) for pid in pids.read_text().split()]
        if all(map(_ended, workers)) and not any(scratch.iterdir()):
            break
        time.sleep(0.05)
    assert workers, "no worker started"
    assert [pid for pid in workers if not _ended(pid)] == []
    assert list(scratch.iterdir()) == []


def test_workers_store_in_memory_when_it_has_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("STEPTRACE_SCRATCH_DIR", raising=False)
    memory = tmp_path / "shm"
    memory.mkdir()
    free = shutil.disk_usage(memory).free
    assert scratch_root(free // 2, str(memory)) == str(memory)
    # Too small (a container's 64 MB /dev/shm), missing or read-only: the temporary folder.
    assert scratch_root(free * 2, str(memory)) == tempfile.gettempdir()
    assert scratch_root(1, str(tmp_path / "none")) == tempfile.gettempdir()
    memory.chmod(0o500)
    try:
        if not os.access(memory, os.W_OK):  # root may write anyway
            assert scratch_root(1, str(memory)) == tempfile.gettempdir()
    finally:
        memory.chmod(0o700)
    # The user's choice wins.
    monkeypatch.setenv("STEPTRACE_SCRATCH_DIR", str(tmp_path))
    assert scratch_root(free * 2, str(memory)) == str(tmp_path)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_slow_worker_takes_fewer_pieces_and_the_trace_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The processes take pieces from one queue: one slowed down (a busy core)
    leaves the rest to the others instead of making them wait for its half."""
    trace = tmp_path / "t.json"
    trace.write_bytes(document(op_kernel_events(400)))
    want = load_trace(trace, workers=1)
    monkeypatch.setenv("STEPTRACE_SCRATCH_DIR", str(tmp_path))
    monkeypatch.setattr(load_module, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "MIN_RANGE_BYTES", 1)
    monkeypatch.setattr(parallel, "RANGE_STEP_BYTES", 4096)
    monkeypatch.setattr(parallel, "PIECE_BYTES", 4096)
    monkeypatch.setattr(parallel, "_may_fork_here", lambda: True)
    loader = os.getpid()
    decode = ranges.decode_range

    def slow_in_the_worker(*args: object, **kwargs: object) -> object:
        if os.getpid() != loader:  # the forked worker
            time.sleep(0.3)
        return decode(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ranges, "decode_range", slow_in_the_worker)
    seen: list[LoadProgress] = []
    got = load_trace(trace, workers=2, progress=seen.append)
    last = [step for step in seen if step.workers][-1]
    (loader_done, loader_took), (worker_done, worker_took) = last.workers
    assert (loader_done, worker_done) == (loader_took, worker_took)
    assert loader_took + worker_took == last.bytes_total
    # Halves fixed in advance would be about equal.
    assert worker_took < loader_took / 3
    assert got.names == want.names
    for column in ("start_ns", "duration_ns", "name_id", "track", "correlation"):
        assert getattr(got, column).tolist() == getattr(want, column).tolist()
    assert got.warnings == want.warnings
    assert list(tmp_path.iterdir()) == [trace]
