"""The first screen, as opened with no key pressed, at 80x24 and 200x60: a CPU
capture, a GPU capture whose device is saturated, and a run of ranks. Each
leads with its headline (the top finding with its cost, the device's state,
the slow rank with the others' wait), asserted in words beside the picture."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from tests import shared_traces as shared
from tests.app.test_app_ranks import ARRIVALS, SCALES, make_run_app, settle_on
from tests.builders.ranks_app import write_heat_run
from tests.pilot import make_app, screen_text, settle, workers_finished
from tui.app.screens.main import MainScreen
from tui.app.screens.ranks import RanksScreen
from tui.app.widgets.headline import HeadlineLine
from tui.report.headline import findings_lead, run_headline

SIZES = [(80, 24), (200, 60)]
NS_TRACE = (
    shared.FOLDER / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
)


def _headline_lines(app: App[Any]) -> list[str]:
    """The lines the headline draws, read off the screen."""
    region = app.screen.query_one(HeadlineLine).region
    lines = screen_text(app).splitlines()
    assert region.height >= 1
    return [line.strip() for line in lines[region.y : region.bottom]]


def _main_shot(
    snap_compare: Callable[..., bool],
    path: Path,
    size: tuple[int, int],
    check: Callable[[App[Any], str], None],
) -> bool:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await workers_finished(pilot.app)  # a big capture's findings, after the frame
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen)
        check(pilot.app, " ".join(_headline_lines(pilot.app)))

    return snap_compare(make_app(path), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_cpu_capture(
    snap_compare: Callable[..., bool], cpu_trace: Path, size: tuple[int, int]
) -> None:
    """A CPU capture leads with its top finding and its cost; no device is read."""

    def check(app: App[Any], headline: str) -> None:
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.findings
        lead = screen.query_one(HeadlineLine).headline.lead
        assert " per step (" in lead and "of the median step)" in lead
        assert headline.startswith(lead[: size[0] - 4])
        assert "busy" not in headline
        # The steps the headline's median is of say which they are.
        assert "CPU-side steps  #1 " in screen_text(app)

    assert _main_shot(snap_compare, cpu_trace, size, check)


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_gpu_capture_device_bound(
    snap_compare: Callable[..., bool], isolated_data_dir: Path, size: tuple[int, int]
) -> None:
    """A real GPU capture whose device is 99% busy with the host ahead: its top
    finding with the cost, and the device's state, device-bound."""

    def check(app: App[Any], headline: str) -> None:
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.findings
        lead = findings_lead(screen.findings, None)  # the first as they rank
        assert lead == screen.query_one(HeadlineLine).headline.lead
        assert headline.startswith(lead) and " per step (" in lead
        assert "device 0 99% busy (median step): device-bound" in headline
        assert len(_headline_lines(app)) <= 2
        # Nothing of the screen scrolled away: the header is still on top.
        assert screen_text(app).splitlines()[0].lstrip().startswith("ns_resolution")

    assert _main_shot(snap_compare, NS_TRACE, size, check)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_ranks_folder(
    snap_compare: Callable[..., bool],
    tmp_path: Path,
    isolated_data_dir: Path,
    size: tuple[int, int],
) -> None:
    """A run of four ranks names the rank last at the collectives, with the
    others' wait per step, as the run's reading weighs it."""
    folder = write_heat_run(
        tmp_path / "run", ARRIVALS, SCALES, world_size=4, on_gpu=(0, 1, 2)
    )

    async def before(pilot: Pilot[Any]) -> None:
        screen = await settle_on(pilot, RanksScreen)
        headline = " ".join(_headline_lines(pilot.app))
        lead = run_headline(screen.result.finding).lead  # the run's own reading
        assert headline.startswith(lead)
        # Rank 2 is last in 2 of 4 steps: named, with the others' wait per step.
        assert "rank 2" in lead and "2 of 4 steps" in lead
        assert "the others wait 275 µs per step" in lead
        if size[0] >= 200:  # and the ranks' device state, after the lead
            assert "device 69% busy (median of 3 ranks; least: rank 2" in headline

    assert snap_compare(make_run_app(folder), terminal_size=size, run_before=before)
