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
from textual.app import App
from textual.pilot import Pilot

from tests.app.test_app_ranks import ARRIVALS, SCALES, make_run_app, settle_on
from tests.builders.ranks_app import write_heat_run
from tests.pilot import screen_text
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
    check: Callable[[App[Any], list[str]], None] | None = None,
) -> bool:
    """The picture after `press`; `check` asserts the docstring's claims on the
    same settled app and the lines it draws, before the picture is taken."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle_on(pilot, RanksScreen)
        for key in press:
            await pilot.press(key)
        await settle_on(pilot, wait_for)
        if check is not None:
            check(pilot.app, screen_text(pilot.app).splitlines())

    return snap_compare(make_run_app(folder), terminal_size=size, run_before=before)


def test_ranks_80x24(snap_compare: Callable[..., bool], run_folder: Path) -> None:
    """The heat table with its marks, the info line on rank 0 step 1, the bars."""

    def check(app: App[Any], lines: list[str]) -> None:
        _heat_rows_and_marks(lines, first_rank="0")
        assert any(line.startswith(" rank 0 step 1: 1 ms") for line in lines)
        bars = [
            line for line in lines if line.startswith("     ") and " ms  comp " in line
        ]
        assert [bar.split()[0] for bar in bars] == ["0", "1", "2"]
        assert any(line.startswith("     3 not observed") for line in lines)

    assert _shot(snap_compare, run_folder, (80, 24), check=check)


def _heat_rows_and_marks(lines: list[str], first_rank: str) -> list[str]:
    """The four rank rows of the heat table, with the straggler and heat marks."""
    rows = [line for line in lines if "/4 " in line and "│" in line]
    assert len(rows) == 4 and rows[0].split()[0] == first_rank
    slow = next(row for row in rows if row.split()[0] == "2")
    assert "1.200*↑↑" in slow and "1.400 ↑↑↑" in slow  # slow in steps 1 and 4
    fast_then = next(row for row in rows if row.split()[0] == "1")
    assert "1.070 ↑" in fast_then and "0.900 ↓" in fast_then
    assert sum(row.count("*") for row in rows) == 4  # one straggler a step
    return rows


def test_ranks_wide(snap_compare: Callable[..., bool], run_folder: Path) -> None:
    """160 columns: sorted by median step time (rank 2 first); the cursor down to rank 1."""

    def check(app: App[Any], lines: list[str]) -> None:
        rows = _heat_rows_and_marks(lines, first_rank="2")
        assert [row.split()[0] for row in rows] == ["2", "0", "1", "3"]
        assert "sorted by median step time ▼" in "\n".join(lines)
        assert any(line.startswith(" rank 1 step 1:") for line in lines)

    assert _shot(snap_compare, run_folder, (160, 40), press=["o", "down"], check=check)


def test_ranks_no_color(
    snap_compare: Callable[..., bool],
    run_folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NO_COLOR: the same marks, without colour; the reading tab in front."""
    monkeypatch.setenv("NO_COLOR", "1")

    def check(app: App[Any], lines: list[str]) -> None:
        assert app.no_color
        _heat_rows_and_marks(lines, first_rank="0")
        text = "\n".join(lines)
        assert "One rank reaches the collectives late" in text
        assert "next check:" in text

    assert _shot(snap_compare, run_folder, (100, 30), press=["2"], check=check)


def test_rank_timeline_80x24(
    snap_compare: Callable[..., bool], run_folder: Path
) -> None:
    """Enter on rank 2, step 4: the header names the rank and the run, r/u offered."""

    def check(app: App[Any], lines: list[str]) -> None:
        assert lines[0].startswith("  rank 2 of run (world size 4)  rank-2.")
        assert lines[-1].count("r Next rank, same step  u Back to the ranks") == 1
        assert any(line.startswith(" step 4 (active)") for line in lines)

    assert _shot(
        snap_compare,
        run_folder,
        (80, 24),
        press=["down", "down", "right", "right", "right", "enter"],
        wait_for=MainScreen,
        check=check,
    )
