"""Pictures of the ranks screen, from a small run folder written the same way each time.

Four ranks, four steps: rank 2 slow in steps 1 and 4, rank 1 a little slow
then fast, stragglers changing from step to step, three ranks with GPU
events and one CPU-only (its bar reads not observed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.app.test_app_ranks import ARRIVALS, SCALES, make_run_app, settle_on
from tests.builders.ranks_app import write_heat_run
from tui.app.screens.main import MainScreen
from tui.app.screens.ranks import RanksScreen


@pytest.fixture
def run_folder(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_heat_run(
        tmp_path / "run", ARRIVALS, SCALES, world_size=4, on_gpu=(0, 1, 2)
    )


def _shot(
    snap_compare: Callable[..., bool],
    folder: Path,
    size: tuple[int, int],
    press: Iterable[str] = (),
    wait_for: type = RanksScreen,
) -> bool:
    async def before(pilot: Pilot[Any]) -> None:
        await settle_on(pilot, RanksScreen)
        for key in press:
            await pilot.press(key)
        await settle_on(pilot, wait_for)

    return snap_compare(make_run_app(folder), terminal_size=size, run_before=before)


def test_ranks_80x24(snap_compare: Callable[..., bool], run_folder: Path) -> None:
    """The heat table with its marks, the info line on rank 0 step 1, the bars."""
    assert _shot(snap_compare, run_folder, (80, 24))


def test_ranks_wide(snap_compare: Callable[..., bool], run_folder: Path) -> None:
    """160 columns: sorted by median step time (rank 2 first); the cursor down to rank 1."""
    assert _shot(snap_compare, run_folder, (160, 40), press=["o", "down"])


def test_ranks_no_color(
    snap_compare: Callable[..., bool],
    run_folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NO_COLOR: the same marks, without colour; the reading tab in front."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert _shot(snap_compare, run_folder, (100, 30), press=["2"])


def test_rank_timeline_80x24(
    snap_compare: Callable[..., bool], run_folder: Path
) -> None:
    """Enter on rank 2, step 4: the header names the rank and the run, r/u offered."""
    assert _shot(
        snap_compare,
        run_folder,
        (80, 24),
        press=["down", "down", "right", "right", "right", "enter"],
        wait_for=MainScreen,
    )
