"""A folder as input everywhere: `steptrace DIR`, `open DIR`, `serve DIR`, and a served run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.app.test_app_ranks import ARRIVALS, settle_on
from tests.builders.runs import write_run
from tui.app.app import StepTraceApp
from tui.app.screens.ranks import RanksScreen
from tui.cli import main
from tui.commands.open import target_error
from tui.serve.server import app_argv


@pytest.fixture
def run_folder(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_run(tmp_path / "run", ARRIVALS, world_size=4)


def test_a_run_folder_is_a_target_and_an_empty_one_is_not(
    tmp_path: Path, run_folder: Path
) -> None:
    assert target_error(run_folder) is None
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a trace")
    (empty / "rank-0.pt.trace.json.notes.json").write_text("{}")  # a notes sidecar
    (empty / "sub.json").mkdir()  # a folder named like a trace
    problem = target_error(empty)
    assert problem is not None and problem.startswith("is a folder without trace files")


@pytest.mark.parametrize(
    "argv",
    [["open", "{run}"], ["{run}"], ["open", "{run}", "--zone", "lecture_batch_cpu"]],
    ids=["open", "bare", "open-zone"],
)
def test_open_and_the_bare_form_accept_a_run_folder(
    run_folder: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """Past the folder check, the next refusal is the missing terminal (as in CI)."""
    assert main([word.format(run=run_folder) for word in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("steptrace: the explorer needs a terminal"), err


def test_serve_accepts_a_run_folder(
    run_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder passes; the port (out of range) is what is refused."""
    assert main(["serve", str(run_folder), "--port", "70000"]) == 2
    assert "not a port" in capsys.readouterr().err
    argv = app_argv(run_folder.resolve(), allow_capture=False)
    assert argv[-2:] == ["--", str(run_folder.resolve())]


def test_a_served_run_reads_its_ranks_in_worker_processes(run_folder: Path) -> None:
    """`steptrace serve DIR` runs `open --served DIR`: the ranks screen, marked served."""

    async def walk() -> RanksScreen:
        app = StepTraceApp(run_folder, served=True)  # the pool, as served
        app.animation_level = "none"
        async with app.run_test(size=(100, 30)) as pilot:
            screen: RanksScreen = await settle_on(pilot, RanksScreen)
            assert [row.rank for row in screen.run.ranks] == [0, 1, 2, 3]
            assert str(screen.header_text()).startswith(" served  run run")
            return screen

    screen = asyncio.run(walk())
    stragglers = [step.straggler for step in screen.run.steps]
    expected = [
        max(ARRIVALS, key=lambda rank: ARRIVALS[rank][index]) for index in range(4)
    ]
    assert stragglers == expected


def test_the_help_over_the_run_loading_screen_gives_way_to_the_ranks(
    run_folder: Path,
) -> None:
    """? while the ranks load: once read, the ranks screen shows, nothing left behind."""
    from tui.app.screens.help import HelpScreen
    from tui.app.screens.run_loading import RunLoadingScreen

    async def walk() -> list[str]:
        app = StepTraceApp(run_folder, rank_workers=2)
        app.animation_level = "none"
        async with app.run_test(size=(100, 30)) as pilot:
            while not isinstance(app.screen, RunLoadingScreen):
                await pilot.pause()
            await pilot.press("question_mark")
            assert isinstance(app.screen, (HelpScreen, RanksScreen))
            await settle_on(pilot, RanksScreen)
            return [type(screen).__name__ for screen in app.screen_stack[1:]]

    assert asyncio.run(walk()) == ["RanksScreen"]
