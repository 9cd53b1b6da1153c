"""Ranks summarised by worker processes: the same summaries as in this process, memory-bounded, cancellable."""

from __future__ import annotations

import gzip
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders.runs import write_run
from tui.core.base.errors import LoadCancelled
from tui.core.base.vocab import LoadPhase, RankEnd
from tui.core.runs.pool import (
    MEMORY_SHARE,
    RankProgress,
    json_bytes_of,
    peak_bytes_of,
    plan_workers,
    summarise_files,
)

REPO = Path(__file__).resolve().parents[2]


def test_pool_and_sequential_summaries_are_equal(
    tmp_path: Path, shared_traces: Path
) -> None:
    folder = write_run(
        tmp_path / "run",
        {0: [100, 120, 90], 1: [300, 310, 280], 2: [150, 140, 160]},
        world_size=3,
        on_gpu=[2],
        gz=True,
    )
    shutil.copy(
        shared_traces / "timeline_analysis-sampled_rank-0.json.gz",
        folder / "rank-3.json.gz",
    )
    paths = sorted(folder.iterdir())
    seen: list[RankProgress] = []
    in_pool = summarise_files(paths, workers=2, progress=seen.append)
    here = summarise_files(paths, workers=1)
    assert [outcome.path for outcome in in_pool] == [str(path) for path in paths]
    for pooled, local in zip(in_pool, here, strict=True):
        assert pooled.error is None and local.error is None
        assert pooled.summary is not None and local.summary is not None
        assert pooled.summary.to_json() == local.summary.to_json()
    finished = [item for item in seen if item.phase is RankEnd.DONE]
    # Phases in flight are the loader's own, relayed from the workers typed.
    assert {type(item.phase) for item in seen} == {LoadPhase, RankEnd}
    assert sorted(item.path for item in finished) == sorted(map(str, paths))
    assert [item.finished for item in finished] == [1, 2, 3, 4]


def test_a_file_that_is_not_a_trace_is_an_outcome_not_a_crash(tmp_path: Path) -> None:
    good = write_run(tmp_path, {0: [100.0]}, world_size=None) / "rank-0.pt.trace.json"
    bad = tmp_path / "rank-1.json"
    bad.write_text("not json")
    for workers in (1, 2):
        outcomes = summarise_files([good, bad], workers=workers)
        assert outcomes[0].summary is not None
        assert outcomes[1].summary is None and "rank-1.json" in str(outcomes[1].error)


def test_the_json_size_of_a_gzip_trace_is_read_from_its_trailer(tmp_path: Path) -> None:
    data = b'{"traceEvents": []}' * 1000
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(data))
    assert json_bytes_of(path) == len(data)
    plain = tmp_path / "t.json"
    plain.write_bytes(data)
    assert json_bytes_of(plain) == len(data)


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 8 * 2**30), min_size=1, max_size=40),
    requested=st.one_of(st.none(), st.integers(1, 64)),
    core_count=st.integers(1, 64),
    memory=st.integers(0, 512 * 2**30),
)
def test_planned_workers_fit_cores_files_and_memory(
    sizes: list[int], requested: int | None, core_count: int, memory: int
) -> None:
    workers = plan_workers(sizes, requested, core_count=core_count, memory=memory)
    assert 1 <= workers <= min(requested or core_count, len(sizes))
    in_flight = sorted(sizes, reverse=True)[:workers]
    if workers > 1:
        # The largest ranks, loaded together, fit in the share of memory allowed.
        assert sum(peak_bytes_of(size) for size in in_flight) <= MEMORY_SHARE * memory
    more = sorted(sizes, reverse=True)[: workers + 1]
    if workers < min(requested or core_count, len(sizes)):
        # One more worker would not have fitted.
        assert sum(peak_bytes_of(size) for size in more) > MEMORY_SHARE * memory


def test_cancel_ends_every_worker(tmp_path: Path) -> None:
    folder = write_run(tmp_path, {rank: [100.0] for rank in range(4)}, world_size=4)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LoadCancelled):
        summarise_files(sorted(folder.iterdir()), workers=2, cancel=cancel)
    assert multiprocessing.active_children() == []


def _processes_in_group(group: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(entry))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_ctrl_c_leaves_no_worker_behind(tmp_path: Path) -> None:
    # Four ranks big enough to be still loading when Ctrl+C comes, even when a
    # busy machine holds this test back a few seconds after it saw the worker
    # (the whole run takes about 6 s on 2 cores).
    write_run(tmp_path, {0: [100.0] * 60_000}, world_size=4)
    data = (tmp_path / "rank-0.pt.trace.json").read_bytes()
    for rank in (1, 2, 3):
        (tmp_path / f"rank-{rank}.pt.trace.json").write_bytes(
            data.replace(b'"rank":0', b'"rank":%d' % rank, 1)
        )
    environment = {**os.environ, "STEPTRACE_NO_CACHE": "1", "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
            "ranks",
            str(tmp_path),
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        start_new_session=True,
        # As from a terminal: a test run launched in the background ignores
        # SIGINT, and a command started so keeps ignoring it (as it should).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # Interrupt as soon as a worker exists (the parent, its resource tracker and
        # one worker): the others may still be starting.
        deadline = time.monotonic() + 30
        while len(_processes_in_group(child.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(_processes_in_group(child.pid)) >= 3
        os.killpg(child.pid, signal.SIGINT)  # as a terminal's Ctrl+C does
        _, error = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 130, error
    assert error.strip().splitlines()[-1] == "steptrace: interrupted"
    assert "Traceback" not in error
    deadline = time.monotonic() + 5
    while _processes_in_group(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_in_group(child.pid) == []


def test_kept_summaries_are_reused_until_the_trace_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.core.runs import pool

    monkeypatch.delenv("STEPTRACE_NO_CACHE", raising=False)
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "cache"))
    folder = write_run(tmp_path / "run", {0: [100.0, 200.0]}, world_size=None)
    path = folder / "rank-0.pt.trace.json"
    first = summarise_files([path], workers=1)[0]
    assert first.summary is not None

    def must_not_load(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the kept summary should have been used")

    monkeypatch.setattr(pool, "summarise_file", must_not_load)
    again = summarise_files([path], workers=1)[0]
    assert again.summary == first.summary
    with pytest.raises(AssertionError, match="kept summary"):  # another zone: a miss
        summarise_files([path], workers=1, zones=["transfert"])
    monkeypatch.undo()
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "cache"))
    write_run(tmp_path / "run", {0: [100.0, 300.0]}, world_size=None)
    changed = summarise_files([path], workers=1)[0]
    assert changed.summary is not None
    assert [step.collectives.arrival_ns for step in changed.summary.steps] == [
        100_000,
        300_000,
    ]


def test_a_worker_prints_nothing_on_the_parents_terminal() -> None:
    """Workers inherit the terminal: their output would land over the app."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from tui.core.runs.pool import _start_worker\n"
        "_start_worker(None)\n"
        "print('out'); print('err', file=sys.stderr)\n"
        "raise SystemExit(3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 3
    assert done.stdout == b"" and done.stderr == b""
