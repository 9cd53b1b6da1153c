"""Choosing the data zone in the explorer: `z`, `--zone`, and the choice remembered.

The expected gaps come from how the fixture trace is built (`builders.app_traces`):
in each 10 ms step, `transfert` runs [3700, 4400) µs and its host-to-device
copy [3800, 4100) µs, so the GPU idles [3700, 3800) and [4100, 4400) of it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.builders.app_traces import write_training_trace
from tests.pilot import main_screen, make_app, workers_finished
from tui.app.app import StepTraceApp
from tui.app.dialogs.zone_picker import ZonePicker
from tui.app.screens.main import MainScreen
from tui.app.widgets.header_line import HeaderLine
from tui.app.widgets.timeline import Timeline
from tui.core.base.vocab import FindingId, RowRole, ZoneSource
from tui.notes.paths import sidecar_path
from tui.report.findings import words

STEP_US = 10_000
STEPS = 3
TRANSFERT_GAPS_US = sorted(
    (step * STEP_US + start, length)
    for step in range(STEPS)
    for start, length in ((3700, 100), (4100, 300))
)


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(test())


@pytest.fixture
def cuda_trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train-cuda.json", gpu=True, steps=STEPS)


def gaps_us(screen: MainScreen) -> list[tuple[int, int]]:
    """The screen's gaps in µs from the first step (the trace starts with it)."""
    return [(g.start_ns // 1000, g.duration_ns // 1000) for g in screen.analysis.gaps]


def zone_names(screen: MainScreen) -> tuple[str, ...]:
    return screen.analysis.zone_choice.names


def header(screen: MainScreen) -> str:
    return str(screen.query_one(HeaderLine).render())


async def finish(pilot: Pilot[Any]) -> None:
    """Wait for the zone worker and the notes save it starts."""
    for _ in range(3):
        await workers_finished(pilot.app)
        await pilot.pause()


@pytest.mark.slow
def test_z_chooses_a_zone_and_everything_follows(cuda_trace: Path) -> None:
    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await main_screen(pilot)
            assert "lecture_batch_cpu (default)" in header(screen)
            await pilot.press("z")
            picker = app.screen
            assert isinstance(picker, ZonePicker)
            listed = {c.id: c.text for c in picker.options.choices}
            # Calls and total time, the zone in use marked.
            assert "●" in listed["lecture_batch_cpu"]
            assert "3 calls" in listed["transfert"] and "2.1 ms" in listed["transfert"]
            assert "aten::relu" in listed  # operators can be a data zone too
            await pilot.press(*"TRANSF")
            shown = [c.id for c in picker.options.choices]
            assert shown == ["transfert"]
            await pilot.press("enter")
            await finish(pilot)
            assert app.screen is screen
            choice = screen.analysis.zone_choice
            assert choice.names == ("transfert",) and choice.source is ZoneSource.CHOSEN
            assert gaps_us(screen) == TRANSFERT_GAPS_US
            assert "transfert (your choice)" in header(screen)
            # The timeline marks the new gaps, the findings read the new zone.
            timeline = screen.query_one(Timeline)
            zones = next(r for r in timeline._rows if r.role is RowRole.ZONES)
            assert zones.gaps is not None
            assert (zones.gaps[0] // 1000).tolist() == [s for s, _ in TRANSFERT_GAPS_US]
            assert screen.findings is not None
            idle = next(
                f for f in screen.findings if f.id is FindingId.GPU_IDLE_DATA_ZONE
            )
            # 400 µs idle of 700 µs in each of the 3 steps.
            assert "1.2 ms of the 2.1 ms" in words(idle).observation
            await pilot.press("b")
            assert screen.gap_index is not None
            biggest = screen.analysis.gaps[screen.gap_index]
            assert biggest.duration_ns == 300_000
            # Remembered beside the trace, with the notes.
            saved = json.loads(sidecar_path(cuda_trace).read_text())
            assert saved["zone"]["names"] == ["transfert"]

        again = make_app(cuda_trace)
        async with again.run_test(size=(120, 40)) as pilot:
            screen = await main_screen(pilot)
            assert screen.analysis.zone_choice.names == ("transfert",)
            assert gaps_us(screen) == TRANSFERT_GAPS_US
            assert "transfert (your choice)" in header(screen)
            # The automatic line brings the default back, and that is remembered too.
            await pilot.press("z", "enter")
            await finish(pilot)
            assert screen.analysis.zone_choice.names == ("lecture_batch_cpu",)
            assert screen.analysis.zone_choice.source is ZoneSource.DEFAULT
            assert (
                json.loads(sidecar_path(cuda_trace).read_text())["zone"]["names"] == []
            )

    run(scenario)


@pytest.mark.slow
def test_tab_marks_several_ranges(cuda_trace: Path) -> None:
    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await main_screen(pilot)
            await pilot.press("z", *"transfert", "tab")
            for _ in range(len("transfert")):
                await pilot.press("backspace")
            await pilot.press(*"entrainement", "tab", "escape")
            assert zone_names(screen) == ("lecture_batch_cpu",)
            await pilot.press("z", *"transfert", "tab")
            for _ in range(len("transfert")):
                await pilot.press("backspace")
            await pilot.press(*"entrainement", "tab", "enter")
            await finish(pilot)
            assert zone_names(screen) == ("transfert", "entrainement")
            assert "transfert, entrainement (your choice)" in header(screen)

    run(scenario)


def test_open_with_zone_uses_it_without_writing_a_sidecar(cuda_trace: Path) -> None:
    async def scenario() -> None:
        app = StepTraceApp(cuda_trace, zones=("transfert",))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await main_screen(pilot)
            assert gaps_us(screen) == TRANSFERT_GAPS_US
            assert "transfert (your choice)" in header(screen)
            await finish(pilot)
        assert not sidecar_path(cuda_trace).exists()

    run(scenario)


def test_an_unknown_zone_exits_2_with_the_closest_names(cuda_trace: Path) -> None:
    async def scenario() -> None:
        app = StepTraceApp(cuda_trace, zones=("lecture_batch",))
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(100):
                await workers_finished(app)
                await pilot.pause()
                if not app.is_running:
                    break
        assert app.return_code == 2
        assert app.exit_lines == [
            "steptrace: no range named 'lecture_batch' in this capture; "
            "closest: lecture_batch_cpu"
        ]

    run(scenario)


def test_a_remembered_zone_missing_from_the_trace_falls_back_and_says_so(
    cuda_trace: Path,
) -> None:
    sidecar_path(cuda_trace).write_text(
        json.dumps(
            {
                "schema": 2,
                "trace": {"name": cuda_trace.name},
                "zone": {"names": ["gone_zone"], "chosen": "2024-01-01T00:00:00+00:00"},
                "notes": [],
            }
        )
    )

    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await main_screen(pilot)
            assert screen.analysis.zone_choice.source is ZoneSource.DEFAULT
            shown = [str(n.message) for n in app._notifications]
            assert any("gone_zone" in text for text in shown)

    run(scenario)
