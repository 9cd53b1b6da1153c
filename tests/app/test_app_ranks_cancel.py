"""Esc while a run is read: the pool's worker processes end, none is left behind."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import time
from pathlib import Path

import pytest
from textual.worker import WorkerCancelled

from tests.builders.runs import header, rank_events
from tests.builders.traces import cpu, write_trace
from tui.app.app import StepTraceApp
from tui.app.screens.run_loading import RunLoadingScreen

FILLER_EVENTS = 60_000  # some MB of JSON per rank: seconds of reading in a worker


def write_slow_run(folder: Path, ranks: int) -> Path:
    """Ranks big enough that reading them outlasts a key press."""
    folder.mkdir(parents=True, exist_ok=True)
    for rank in range(ranks):
        events = rank_events([100.0, 200.0], clock_us=1000.0 * rank)
        events += [
            cpu("aten::add", 10 + (index % 900), 0.5, tid=200 + index % 7)
            for index in range(FILLER_EVENTS)
        ]
        write_trace(
            folder / f"rank-{rank}.pt.trace.json",
            events,
            extra=header(rank, ranks),
        )
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_escape_ends_every_worker_process(
    tmp_path: Path, isolated_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")  # no summary or columns to reuse
    folder = write_slow_run(tmp_path / "run", 4)
    seen: set[int] = set()
    # Children this process had before (another module's, under xdist) are not
    # the app's: only the pool's are watched.
    before = {child.pid for child in multiprocessing.active_children()}

    def new_children() -> list[multiprocessing.process.BaseProcess]:
        return [c for c in multiprocessing.active_children() if c.pid not in before]

    async def walk() -> StepTraceApp:
        app = StepTraceApp(folder, rank_workers=2)
        app.animation_level = "none"
        async with app.run_test(size=(100, 30)) as pilot:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                await pilot.pause(0.05)
                children = new_children()
                seen.update(child.pid for child in children if child.pid)
                if children and isinstance(app.screen, RunLoadingScreen):
                    break
            assert seen, "the pool never started"
            assert isinstance(app.screen, RunLoadingScreen)
            await pilot.press("escape")
            for _ in range(400):
                with contextlib.suppress(WorkerCancelled):
                    await app.workers.wait_for_complete()
                await pilot.pause(0.05)
                if app.return_code is not None:
                    break
        return app

    app = asyncio.run(walk())
    assert app.return_code == 130  # cancelled before anything was shown
    assert new_children() == []
    assert not [pid for pid in seen if _alive(pid)]
