"""`steptrace ranks DIR --cluster ADDRESS`: per-rank summaries as tasks on a real Dask cluster.

The oracle is the local path: the same run read with `--workers 1` gives the
same JSON, byte for byte. Faults: a worker killed mid-run, a rank file the
workers cannot see, a cancelled run, an address where no scheduler listens.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.builders.runs import write_run
from tui.cli import main
from tui.core.base.errors import LoadCancelled
from tui.core.base.vocab import LoadPhase, RankEnd
from tui.core.runs import RankProgress, read_run
from tui.core.runs import pool as local_pool

REPO = Path(__file__).resolve().parents[2]
RANKS = 32


def arrivals(rank: int) -> list[float]:
    """Arrivals that differ by rank, so each step has its own straggler and waits."""
    return [
        100.0 + 7 * rank,
        150.0 + (13 * rank) % 500,
        120.0 + (29 * rank) % 600,
    ]


def make_run(folder: Path, ranks: int = RANKS) -> Path:
    """`ranks` rank traces, every fourth with NCCL kernels (a GPU breakdown)."""
    return write_run(
        folder,
        {rank: arrivals(rank) for rank in range(ranks)},
        world_size=ranks,
        on_gpu=range(0, ranks, 4),
    )


def ranks_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(["ranks", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def no_local_summaries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Summarising a rank in this process or its pool fails the test."""

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a rank was summarised on this machine")

    monkeypatch.setattr(local_pool, "_summarise_here", refuse)
    monkeypatch.setattr(local_pool, "_summarise_in_pool", refuse)


def test_a_cluster_gives_the_local_result(
    dask_cluster: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = make_run(tmp_path / "run")
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")  # both paths compute every rank
    local = ranks_json(capsys, str(folder), "--workers", "1")
    with monkeypatch.context() as patched:
        no_local_summaries(patched)
        remote = ranks_json(
            capsys, str(folder), "--cluster", dask_cluster.scheduler_address
        )
    assert len(remote["ranks"]) == RANKS
    assert remote == local


def test_steptrace_cluster_says_what_the_option_says(
    dask_cluster: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = make_run(tmp_path / "run", ranks=3)
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    local = ranks_json(capsys, str(folder), "--workers", "1")
    monkeypatch.setenv("STEPTRACE_CLUSTER", dask_cluster.scheduler_address)
    no_local_summaries(monkeypatch)
    assert ranks_json(capsys, str(folder)) == local


def test_kept_summaries_are_not_sent_to_the_cluster(
    dask_cluster: Any, tmp_path: Path
) -> None:
    folder = make_run(tmp_path / "run", ranks=4)
    first = read_run(folder, cluster=dask_cluster.scheduler_address)
    assert len(first.ranks) == 4
    # Every rank is kept: nothing is submitted, so no scheduler is even asked.
    unreachable = f"tcp://127.0.0.1:{free_port()}"
    again = read_run(folder, cluster=unreachable)
    assert [row.summary for row in again.ranks] == [row.summary for row in first.ranks]


def dask_client(address: str) -> Any:
    """A client of the test's cluster, not made the default one (Dask's
    constructor is untyped)."""
    from distributed import Client

    connect: Callable[..., Any] = Client
    return connect(address, set_as_default=False)


def test_a_worker_killed_mid_run_loses_no_rank(
    dask_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_run(tmp_path / "run", ranks=16)
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    local = read_run(folder, workers=1)
    with dask_client(dask_cluster.scheduler_address) as client:
        worker_pids = client.run(os.getpid)
    removed_before = dask_cluster.scheduler._workers_removed_total
    victim = next(iter(worker_pids.values()))
    ends: list[RankProgress] = []

    def kill_after_the_first(progress: RankProgress) -> None:
        if not isinstance(progress.phase, RankEnd):
            return
        ends.append(progress)
        if len(ends) == 1:
            os.kill(victim, signal.SIGKILL)

    remote = read_run(
        folder, cluster=dask_cluster.scheduler_address, progress=kill_after_the_first
    )
    assert dask_cluster.scheduler._workers_removed_total > removed_before
    assert [end.phase for end in ends] == [RankEnd.DONE] * 16
    assert [end.finished for end in ends] == list(range(1, 17))
    assert remote.warnings == local.warnings
    assert [row.summary for row in remote.ranks] == [row.summary for row in local.ranks]
    dask_cluster.wait_for_workers(2, timeout=120)  # the nanny restarts it


CRASHING = "crashes-its-worker"


def crash_on_a_marked_rank() -> Any:
    """A Dask worker plugin: on every worker, now and restarted, a rank whose
    path holds CRASHING ends its worker process (as the kernel's OOM killer
    would). Made here, so that this module imports without Dask."""
    from distributed import WorkerPlugin

    class CrashOnAMarkedRank(WorkerPlugin):
        name = "steptrace-test-crash"

        def setup(self, worker: Any) -> None:
            from tui.core.runs import cluster, rank_summary

            summarise = rank_summary.summarise_file

            def crashing(path: str, *args: Any, **kwargs: Any) -> Any:
                if CRASHING in path:
                    os._exit(1)
                return summarise(path, *args, **kwargs)

            pytest.MonkeyPatch().setattr(cluster, "summarise_file", crashing)

    return CrashOnAMarkedRank()


def test_a_rank_that_kills_every_worker_is_retried_once_then_reported(
    dask_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_run(tmp_path / CRASHING, ranks=4)
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    removed_before = dask_cluster.scheduler._workers_removed_total
    with dask_client(dask_cluster.scheduler_address) as client:
        client.register_plugin(crash_on_a_marked_rank())
    try:
        run = read_run(folder, cluster=dask_cluster.scheduler_address)
    finally:
        with dask_client(dask_cluster.scheduler_address) as client:
            client.unregister_worker_plugin("steptrace-test-crash")
        dask_cluster.wait_for_workers(2, timeout=120)  # restarted by their nannies
    # Every rank crashed its worker twice (the scheduler's allowed-failures
    # is 1 here): two deaths each, then each rank is left out with the reason.
    assert run.ranks == ()
    assert dask_cluster.scheduler._workers_removed_total - removed_before >= 2
    left_out = [warning for warning in run.warnings if "left out" in warning]
    assert len(left_out) == 4
    for warning in left_out:
        assert "the workers running it died (the last at tcp://127.0.0.1:" in warning


def test_loading_phases_come_back_while_ranks_load(
    dask_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As from the local pool: phases of the ranks in flight, then each rank's end."""
    folder = make_run(tmp_path / "run", ranks=16)
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    heard: list[RankProgress] = []
    read_run(folder, cluster=dask_cluster.scheduler_address, progress=heard.append)
    names = {str(path) for path in folder.glob("rank-*")}
    loading = [item for item in heard if isinstance(item.phase, LoadPhase)]
    assert loading, "no loading phase came back"
    assert {item.path for item in heard} <= names
    for item in loading:
        assert item.fraction is None or 0.0 <= item.fraction <= 1.0
        # Never a phase of a rank whose summary is already back.
        ended = [
            index
            for index, other in enumerate(heard)
            if other.path == item.path and isinstance(other.phase, RankEnd)
        ]
        assert heard.index(item) < ended[0]


def test_a_rank_the_workers_cannot_see_is_that_ranks_error(
    dask_cluster: Any, tmp_path: Path
) -> None:
    folder = make_run(tmp_path / "run", ranks=3)
    hidden = folder / "rank-1.pt.trace.json"

    # Discovered here, then gone before the workers look: as on a worker
    # that does not mount the run's filesystem.
    run = read_run(
        folder,
        cluster=dask_cluster.scheduler_address,
        discovered=lambda _layout: hidden.unlink(),
    )
    assert [row.rank for row in run.ranks] == [0, 2]
    (left_out,) = [warning for warning in run.warnings if "rank 1 left out" in warning]
    assert f"{hidden}: not found on the worker" in left_out
    assert "same path" in left_out


def test_a_cancelled_run_leaves_nothing_on_the_cluster(
    dask_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_run(tmp_path / "run")
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    cancel = threading.Event()
    with pytest.raises(LoadCancelled):
        read_run(
            folder,
            cluster=dask_cluster.scheduler_address,
            cancel=cancel,
            progress=lambda _progress: cancel.set(),
        )
    deadline = time.monotonic() + 10
    while dask_cluster.scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not dask_cluster.scheduler.tasks


def test_ctrl_c_cancels_the_runs_tasks_and_exits_130(
    dask_cluster: Any, tmp_path: Path
) -> None:
    folder = write_run(
        tmp_path / "run",
        {rank: arrivals(rank) * 10 for rank in range(RANKS)},
        world_size=RANKS,
    )
    # A child started here ignores SIGINT when this process does: undo that.
    script = (
        "import signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from tui.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO), "STEPTRACE_NO_CACHE": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", script, "ranks", str(folder)],
        env={**environment, "STEPTRACE_CLUSTER": dask_cluster.scheduler_address},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not dask_cluster.scheduler.tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        assert dask_cluster.scheduler.tasks, "no task reached the scheduler"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 130, err
    assert (out, err) == ("", "steptrace: interrupted\n")
    deadline = time.monotonic() + 10
    while dask_cluster.scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not dask_cluster.scheduler.tasks


def test_an_unreachable_scheduler_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed", reason="needs the cluster extra")
    folder = make_run(tmp_path / "run", ranks=2)
    address = f"tcp://127.0.0.1:{free_port()}"
    started = time.monotonic()
    assert main(["ranks", str(folder), "--cluster", address]) == 2
    assert time.monotonic() - started < 15
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(f"steptrace: no Dask scheduler answered at {address}")


@pytest.mark.parametrize("address", ["tcp://host", "host:port", "http://host:8786"])
def test_a_malformed_address_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], address: str
) -> None:
    """Said at once, with no traceback from the half-made client as Python exits."""
    pytest.importorskip("distributed", reason="needs the cluster extra")
    folder = make_run(tmp_path / "run", ranks=1)
    script = (
        "import sys\n"
        "from tui.cli import main\n"
        f"sys.exit(main(['ranks', {str(folder)!r}, '--cluster', {address!r}]))\n"
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "STEPTRACE_NO_CACHE": "1"},
        timeout=60,
    )
    # A new interpreter importing Dask on a busy machine: the bound is loose;
    # the single line below is what shows no half-made client lingered.
    assert time.monotonic() - started < 30
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"steptrace: {address} is not a Dask scheduler address")


def test_without_the_option_no_dask_is_imported(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "run", ranks=2)
    script = (
        "import sys\n"
        "from tui.cli import main\n"
        f"assert main(['ranks', {str(folder)!r}, '--workers', '1']) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("STEPTRACE_CLUSTER", None)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


class LostFuture:
    """A future whose task finished, but whose result is lost with the scheduler."""

    status = "finished"

    def result(self) -> Any:
        raise OSError("in <TCP (closed) ConnectionPool.gather>: Stream is closed")


class CancelledFuture:
    """A future the client cancelled when it lost the scheduler."""

    status = "cancelled"


def test_a_summary_lost_with_the_scheduler_is_that_ranks_error() -> None:
    from tui.core.runs.cluster import outcome_of

    lost = outcome_of("r0.json", "/run/r0.json", LostFuture())
    assert lost.summary is None
    assert lost.error == (
        "/run/r0.json: its summary could not be fetched from the cluster "
        "(OSError: in <TCP (closed) ConnectionPool.gather>: Stream is closed)"
    )
    cancelled = outcome_of("r1.json", "/run/r1.json", CancelledFuture())
    assert cancelled.summary is None
    assert cancelled.error == (
        "/run/r1.json: its task was cancelled on the cluster (was the scheduler lost?)"
    )


class RecomputedFuture:
    """A future whose result died with its worker: pending again until the cluster recomputes it."""

    def __init__(self) -> None:
        self.status = "pending"

    def _recomputed(self) -> None:
        self.status = "finished"

    def result(self) -> Any:
        self._recomputed()
        return None, "/run/r2.json: no step in the trace", 0.25

    def exception(self) -> BaseException | None:
        self._recomputed()
        return None


def test_a_result_recomputed_after_its_worker_died_is_read_once_finished() -> None:
    """A killed worker's finished rank goes back to pending; its outcome is the recomputed one."""
    from tui.core.runs.cluster import outcome_of

    outcome = outcome_of("r2.json", "/run/r2.json", RecomputedFuture())
    assert outcome.summary is None
    assert outcome.error == "/run/r2.json: no step in the trace"
    assert outcome.seconds == 0.25
