"""Pictures of the ranks screen at 8 and at 512 ranks, from runs made of summaries.

`builders.many_ranks.spread_run`: every step about 48 ms, rank 300 (of 512)
or rank 6 (of 8) 30 % slower, rank 17 (or 2) last at the collectives in
three steps of four, rank 301 (or 5) without device work; files named as
tensorboard_trace_handler names them, eight (or four) ranks a host. No
trace is read: the screen draws from the summaries.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from tests.builders.many_ranks import MS, spread_run, summary_run
from tests.pilot import pilot_test, screen_text
from tui.app.app import StepTraceApp
from tui.app.messages import RunLoaded
from tui.app.screens.ranks import RanksScreen
from tui.app.widgets.heat_table import HeatTable
from tui.core.base.vocab import HeatValue, RankSort
from tui.core.results.ranks import RanksResult

STEPS = 40


@functools.cache
def many(ranks: int) -> RanksResult:
    """512 ranks: rank 300 slow, rank 17 late, rank 301 without device work;
    8 ranks: rank 6 slow, rank 2 late, rank 5 without device work."""
    slow, late, no_gpu, per_host = (300, 17, 301, 8) if ranks > 8 else (6, 2, 5, 4)
    return RanksResult.of(
        spread_run(ranks, STEPS, slow=slow, late=late, no_gpu=no_gpu, per_host=per_host)
    )


class SummaryRunApp(StepTraceApp):
    """The app showing a run already read (its ranks screen, as after loading)."""

    def __init__(self, result: RanksResult) -> None:
        super().__init__(result.run.folder)
        self.result = result
        self.animation_level = "none"

    @on(events.Mount)
    def show_the_run(self, event: events.Mount) -> None:
        event.prevent_default()  # StepTraceApp's own on_mount would read the folder
        self.push_screen(RanksScreen(RunLoaded(self.result.run.folder, self.result)))
        self.sub_title = self.result.run.folder.name


def shown(heat: HeatTable) -> HeatValue:
    """What the heat table shows, read afresh after a key press changed it
    (an attribute an assert named stays narrowed for the type checker)."""
    return heat.shown


def _shot(
    snap_compare: Callable[..., bool],
    ranks: int,
    size: tuple[int, int],
    check: Callable[[App[Any], list[str]], None],
    press: Iterable[str] = (),
) -> bool:
    async def before(pilot: Pilot[Any]) -> None:
        for _ in range(50):
            if isinstance(pilot.app.screen, RanksScreen):
                break
            await pilot.pause()
        await pilot.pause()
        for key in press:
            await pilot.press(key)
        await pilot.pause()
        check(pilot.app, screen_text(pilot.app).splitlines())

    return snap_compare(
        SummaryRunApp(many(ranks)), terminal_size=size, run_before=before
    )


def _rows(lines: list[str]) -> list[list[str]]:
    """The heat table's rank rows, split into words (left of the bar first)."""
    return [line.split() for line in lines if "│" in line and "/40" in line]


def test_512_ranks_80x24(snap_compare: Callable[..., bool], tmp_path: Path) -> None:
    """Sorted by median step time: rank 300, the one outlier, on the top row; the
    spread tab in front names it, and rank 17 waited for in 30 of 40 steps."""

    def check(app: App[Any], lines: list[str]) -> None:
        text = "\n".join(lines)
        assert "512 ranks" in lines[0]
        assert "sorted by median step time ▼" in text
        assert _rows(lines)[0][:2] == ["300", "0/40"]
        assert "Spread [5]" in text
        assert "step time (ms): outlier(s) 300 (beyond" in text
        assert "waited for most: 17 (30/40 steps last" in text

    assert _shot(snap_compare, 512, (80, 24), check)


def test_512_ranks_by_host_200x60(snap_compare: Callable[..., bool]) -> None:
    """g groups by host: node037 (rank 300's host) first, its eight ranks with
    rank 300 on top, then the next host; i shows the idle share, rank 301's
    cells – (no device work), never 0, and the top rows each step's median
    idle share and its spread."""

    def check(app: App[Any], lines: list[str]) -> None:
        text = "\n".join(lines)
        assert "sorted by host (its slowest rank first) ▼" in text
        assert "cells: GPU idle share" in text
        assert "median idle share (%) │" in text
        assert "spread, max−min (points) │" in text
        rows = _rows_by_host(lines)
        assert [row[0] for row in rows[:8]] == ["node037"] * 8
        assert rows[0][1] == "300"
        assert sorted(int(row[1]) for row in rows[:8]) == list(range(296, 304))
        assert rows[8][0] != "node037"
        assert all(cell.endswith("%") for cell in rows[0][4:])
        no_gpu = next(row for row in rows if row[1] == "301")
        assert set(no_gpu[4:]) == {"–"}
        assert "rank 300 (node037) step 1:" in text
        assert "not observed on 1 rank(s): 301" in text
        assert "Spread [5]" in text and "64 host(s) in the file names" in text

    assert _shot(snap_compare, 512, (200, 60), check, press=["g", "i"])


def _rows_by_host(lines: list[str]) -> list[list[str]]:
    """Rows grouped by host: host, rank, median, then │ and the cells."""
    return [line.split() for line in lines if "│" in line and line.startswith("node")]


def test_8_ranks_80x24(snap_compare: Callable[..., bool]) -> None:
    """Eight ranks keep the table of every rank in rank order and no spread tab;
    the info line names the host of the cursor's rank."""

    def check(app: App[Any], lines: list[str]) -> None:
        text = "\n".join(lines)
        assert [row[0] for row in _rows(lines)][:5] == ["0", "1", "2", "3", "4"]
        assert "sorted by rank ▲" in text
        assert "Spread [5]" not in text
        assert "rank 0 (node000) step 1:" in text

    assert _shot(snap_compare, 8, (80, 24), check)


def test_8_ranks_200x60(snap_compare: Callable[..., bool]) -> None:
    """All eight rows at once; rank 6 slowest in every step (↑↑↑), rank 2 the
    straggler in three steps of four (30/40)."""

    def check(app: App[Any], lines: list[str]) -> None:
        rows = {row[0]: row for row in _rows(lines)}
        assert sorted(rows, key=int) == [str(rank) for rank in range(8)]
        assert rows["2"][1] == "30/40"
        assert "↑↑↑" in rows["6"]
        assert not any("↑↑↑" in rows[str(rank)] for rank in range(8) if rank != 6)

    assert _shot(snap_compare, 8, (200, 60), check)


@pilot_test
async def test_keys_of_many_ranks_without_hosts() -> None:
    """Files without a host: g says so and keeps the order; i and v switch the
    cells; 5 shows the spread tab; help lists i, g and 5."""
    run = summary_run(
        {rank: [MS + 1_000 * (rank % 7)] * 3 for rank in range(40)},
        idle={rank: [0.25, 0.5, 0.75] for rank in range(39)},
    )
    app = SummaryRunApp(RanksResult.of(run))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(50):
            if isinstance(app.screen, RanksScreen):
                break
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RanksScreen)
        heat = screen.heat
        order = screen.ranks_in_order()
        assert order[:2] == [6, 13]  # the slowest medians, ties by rank
        await pilot.press("g")
        assert screen.ranks_in_order() == order and heat.sort is RankSort.MEDIAN
        await pilot.press("i")
        assert shown(heat) is HeatValue.IDLE
        cells = heat.table.cell(heat.table.row_of_rank(39) or 0, 0, heat.shown)
        assert cells.text.split() == ["–"]  # no device work: never 0 %
        await pilot.press("v")
        assert shown(heat) is HeatValue.WAIT
        await pilot.press("v")
        assert shown(heat) is HeatValue.STEP_TIME
        await pilot.press("1", "5")
        assert screen.query_one(TabbedContent).active == "ranks-spread"
        helped = {
            binding.key
            for _, bindings in screen.key_sections()
            for binding in bindings
            if isinstance(binding, Binding)
        }
        assert {"i", "g", "5"} <= helped
