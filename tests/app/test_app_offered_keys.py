"""A key the help offers works in this view: W only when reading warned, the
ranks screen's 5 only on a run of many ranks, its i only where some rank has a
device idle share; the palette the same; a run opens on a tab that shows
something."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TabbedContent

from tests import shared_traces as shared
from tests.app.test_app_ranks import ARRIVALS, SCALES, make_run_app, settle_on
from tests.builders.ranks_app import write_heat_run
from tests.pilot import main_screen, make_app, pilot_test, settle
from tui.app.screens.help import KeySection, bindings_rows
from tui.app.screens.ranks import RanksScreen

NS_TRACE = (
    shared.FOLDER / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
)


def _keys(sections: list[KeySection], title: str) -> set[str]:
    bindings = next(found for name, found in sections if name == title)
    return {key for key, _ in bindings_rows(bindings)}


async def _main_keys(path: Path) -> set[str]:
    app = make_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await main_screen(pilot)
        return _keys(screen.key_sections(), "Main screen")


@pilot_test
async def test_w_is_not_offered_without_warnings(cuda_trace: Path) -> None:
    keys = await _main_keys(cuda_trace)
    assert "W" not in keys and "?" in keys


@pytest.mark.usefixtures("shared_traces", "isolated_data_dir")
@pilot_test
async def test_w_is_offered_when_reading_warned() -> None:
    assert "W" in await _main_keys(NS_TRACE)


async def _ranks_keys(folder: Path) -> tuple[set[str], RanksScreen]:
    app = make_run_app(folder)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await settle_on(pilot, RanksScreen)
        return _keys(screen.key_sections(), "Ranks screen"), screen


@pilot_test
async def test_ranks_offer_the_idle_shares_only_with_device_work(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    on_gpu = write_heat_run(
        tmp_path / "gpu", ARRIVALS, SCALES, world_size=4, on_gpu=(0, 1, 2)
    )
    keys, _ = await _ranks_keys(on_gpu)
    assert "i" in keys and "1" in keys
    assert "5" not in keys  # four ranks: no spread tab
    cpu_only = write_heat_run(tmp_path / "cpu", ARRIVALS, SCALES, world_size=4)
    keys, screen = await _ranks_keys(cpu_only)
    assert "i" not in keys and not screen.table.has_idle


@pilot_test
async def test_the_palette_offers_only_what_works_here(cuda_trace: Path) -> None:
    """A single capture without warnings: no way back to a run's ranks, no W."""
    app = make_app(cuda_trace)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert "Next gap" in titles and "Zoom in" in titles
        assert "Back to the ranks" not in titles
        assert "Next rank, same step" not in titles
        assert "Load warnings" not in titles


@pilot_test
async def test_a_run_without_device_work_opens_on_its_reading(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    """The breakdown bars would all read not observed: the reading comes first."""
    cpu_only = write_heat_run(tmp_path / "cpu", ARRIVALS, SCALES, world_size=4)
    app = make_run_app(cpu_only)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await settle_on(pilot, RanksScreen)
        assert screen.query_one(TabbedContent).active == "ranks-reading"
    on_gpu = write_heat_run(tmp_path / "gpu", ARRIVALS, SCALES, on_gpu=(0, 1))
    app = make_run_app(on_gpu)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await settle_on(pilot, RanksScreen)
        assert screen.query_one(TabbedContent).active == "ranks-breakdown"
