"""The ranks screen through Pilot: what Enter opens, what r/R/u keep, how sorting orders.

Run folders come from `builders.ranks_app` (step times and arrivals known
by construction); where a timeline is opened, the expected step window is
read from the rank's raw JSON, not from steptrace.
"""

from __future__ import annotations

import contextlib
import statistics
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

from tests.builders.ranks_app import straggler_of, write_heat_run
from tests.pilot import pilot_test, workers_finished
from tui.app.app import StepTraceApp
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.main import MainScreen
from tui.app.screens.ranks import RanksScreen
from tui.app.widgets.heat_table import FIXED_LINES, HeatTable
from tui.core.base.vocab import RankSort

ARRIVALS = {
    0: [100.0, 700.0, 120.0, 200.0],
    1: [150.0, 160.0, 140.0, 210.0],
    2: [400.0, 300.0, 500.0, 220.0],
    3: [130.0, 110.0, 100.0, 600.0],
}
SCALES = {
    0: [1.0, 1.0, 1.0, 1.0],
    1: [1.0, 1.07, 0.9, 1.0],
    2: [1.2, 1.0, 1.0, 1.4],
    3: [1.0, 1.0, 1.0, 1.0],
}
# A float64 timestamp near 1.7e15 µs holds 0.25 µs: the raw JSON read with
# orjson is that close to steptrace's own reading of the digits.
RAW_NS = 300
# Step i's band on rank r (others near the median), by construction.
BANDS = {(1, 1): "↑", (1, 2): "↓", (2, 0): "↑↑", (2, 3): "↑↑↑"}


@pytest.fixture
def run_folder(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_heat_run(tmp_path / "run", ARRIVALS, SCALES, world_size=4)


def make_run_app(folder: Path, **options: Any) -> StepTraceApp:
    """The app on a run folder, ranks read in this process (quick, and the same figures)."""
    app = StepTraceApp(folder, rank_workers=options.pop("rank_workers", 1), **options)
    app.animation_level = "none"
    return app


ScreenT = TypeVar("ScreenT", bound=Screen[Any])


async def settle_on(
    pilot: Pilot[Any], wanted: type[ScreenT], *, not_this: Any = None
) -> ScreenT:
    """Wait for the workers and for a screen of type `wanted` (other than `not_this`)."""
    app = pilot.app
    for _ in range(300):
        with contextlib.suppress(WorkerCancelled):  # an exclusive worker replaced
            await workers_finished(app)
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, wanted) and screen is not not_this:
            break
        if isinstance(screen, LoadErrorScreen):
            raise AssertionError(f"load error: {screen.reason}")
    await pilot.pause()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, wanted), screen
    return screen


def raw_step(folder: Path, rank: int, number: int) -> tuple[int, int]:
    """Step `number` of a rank, from its raw JSON: start (ns from the earliest event) and end."""
    events = orjson.loads((folder / f"rank-{rank}.pt.trace.json").read_bytes())[
        "traceEvents"
    ]
    origin = min(round(e["ts"] * 1000) for e in events if e.get("ph") == "X")
    step = next(e for e in events if e.get("name") == f"ProfilerStep#{number}")
    start = round(step["ts"] * 1000) - origin
    return start, start + round(step["dur"] * 1000)


def table_lines(heat: HeatTable) -> list[str]:
    """The heat table's visible lines as text."""
    return [
        "".join(segment.text for segment in heat.render_line(y))
        for y in range(heat.size.height)
    ]


async def open_cell(pilot: Pilot[Any], rank: int, step: int) -> MainScreen:
    ranks = pilot.app.screen
    assert isinstance(ranks, RanksScreen)
    ranks.heat.go_to(rank, step)
    await pilot.press("enter")
    screen: MainScreen = await settle_on(pilot, MainScreen)
    return screen


@pilot_test
async def test_enter_opens_the_rank_at_the_step(run_folder: Path) -> None:
    app = make_run_app(run_folder)
    async with app.run_test(size=(120, 36)) as pilot:
        ranks = await settle_on(pilot, RanksScreen)
        assert [row.rank for row in ranks.run.ranks] == [0, 1, 2, 3]
        screen = await open_cell(pilot, 2, 4)
        assert screen.path == run_folder / "rank-2.pt.trace.json"
        raw = orjson.loads(screen.path.read_bytes())
        assert raw["distributedInfo"]["rank"] == 2
        timeline = screen.timeline
        assert [timeline.view_start_ns, timeline.view_end_ns] == pytest.approx(
            raw_step(run_folder, 2, 4), abs=RAW_NS
        )
        assert screen.current_step is not None
        assert screen.analysis.steps[screen.current_step].number == 4
        header = str(screen.query_one("#header-line").render())
        assert "rank 2 of run (world size 4)" in header
        # Back to the table: on the same rank and step, the timeline gone.
        await pilot.press("u")
        await pilot.pause()
        heat = ranks.heat
        assert app.screen is ranks and len(app.screen_stack) == 2
        assert (heat.current_rank, heat.current_step) == (2, 4)


@pilot_test
async def test_r_and_R_keep_the_step_and_the_zoom_within_it(run_folder: Path) -> None:
    app = make_run_app(run_folder)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle_on(pilot, RanksScreen)
        first = await open_cell(pilot, 1, 2)
        await pilot.press("w", "w", "d")  # zoom in twice, pan right
        await pilot.pause()
        start, end = raw_step(run_folder, 1, 2)
        view = first.timeline.view_start_ns, first.timeline.view_end_ns
        relative = [(edge - start) / (end - start) for edge in view]
        assert 0 < relative[0] < relative[1] < 1  # a view inside the step
        await pilot.press("r")
        second = await settle_on(pilot, MainScreen, not_this=first)
        assert second.rank_place is not None and second.rank_place.rank == 2
        assert second.path.name == "rank-2.pt.trace.json"
        start, end = raw_step(run_folder, 2, 2)
        assert second.analysis.steps[second.current_step or 0].number == 2
        expected = [start + value * (end - start) for value in relative]
        got = [second.timeline.view_start_ns, second.timeline.view_end_ns]
        assert got == pytest.approx(expected, abs=RAW_NS)
        await pilot.press("R", "R")
        third = await settle_on(pilot, MainScreen, not_this=second)
        if third.rank_place is not None and third.rank_place.rank == 1:
            third = await settle_on(pilot, MainScreen, not_this=third)
        assert third.rank_place is not None and third.rank_place.rank in (0, 1)
        # Only one timeline is ever kept above the ranks screen.
        assert [type(s).__name__ for s in app.screen_stack[1:]] == [
            "RanksScreen",
            "MainScreen",
        ]


@pilot_test
async def test_r_walks_the_ranks_in_the_tables_order(run_folder: Path) -> None:
    app = make_run_app(run_folder)
    async with app.run_test(size=(120, 36)) as pilot:
        ranks = await settle_on(pilot, RanksScreen)
        await pilot.press("o")  # median step time, slowest first: rank 2 (1.1 ms)
        assert ranks.ranks_in_order()[0] == 2
        screen = await open_cell(pilot, 2, 1)
        await pilot.press("r")
        nxt = await settle_on(pilot, MainScreen, not_this=screen)
        assert nxt.rank_place is not None
        assert nxt.rank_place.rank == ranks.ranks_in_order()[1]


def _medians() -> dict[int, float]:
    return {rank: statistics.median(scales) for rank, scales in SCALES.items()}


def sort_of(heat: HeatTable) -> RankSort:
    """The heat table's sort, read afresh after a key press changed it (an
    attribute an assert named stays narrowed for the type checker)."""
    return heat.sort


@pilot_test
async def test_sort_keys_reorder_the_ranks(run_folder: Path) -> None:
    app = make_run_app(run_folder)
    async with app.run_test(size=(120, 36)) as pilot:
        ranks = await settle_on(pilot, RanksScreen)
        heat = ranks.heat
        assert sort_of(heat) is RankSort.RANK and ranks.ranks_in_order() == [0, 1, 2, 3]
        medians = _medians()
        await pilot.press("o")
        assert sort_of(heat) is RankSort.MEDIAN
        assert ranks.ranks_in_order() == sorted(
            medians, key=lambda rank: (-medians[rank], rank)
        )
        await pilot.press("o", "o")  # total wait, then steps late
        assert sort_of(heat) is RankSort.LATE
        late = {rank: 0 for rank in ARRIVALS}
        for index in range(4):
            late[straggler_of(ARRIVALS, SCALES, index)] += 1
        assert ranks.ranks_in_order() == sorted(late, key=lambda r: (-late[r], r))
        await pilot.press("r")
        assert ranks.ranks_in_order() == sorted(late, key=lambda r: (late[r], r))
        await pilot.press("o")  # the step under the cursor (step 1)
        assert sort_of(heat) is RankSort.STEP
        first = {rank: SCALES[rank][0] for rank in SCALES}
        assert ranks.ranks_in_order() == sorted(first, key=lambda r: (-first[r], r))
        header = table_lines(heat)[0]
        assert "#1▼" in header
        await pilot.press("O", "O", "O", "O")
        assert sort_of(heat) is RankSort.RANK


async def _glyph_lines(folder: Path) -> tuple[list[str], bool]:
    app = make_run_app(folder)
    async with app.run_test(size=(120, 36)) as pilot:
        ranks = await settle_on(pilot, RanksScreen)
        return table_lines(ranks.heat), app.no_color


def _check_marks(lines: list[str]) -> None:
    rows = {int(line.split()[0]): line for line in lines[FIXED_LINES:] if line.strip()}
    assert sorted(rows) == [0, 1, 2, 3]
    stragglers = [straggler_of(ARRIVALS, SCALES, index) for index in range(4)]
    for rank, line in rows.items():
        cells = line.split("│")[1].split()
        # A cell is a value then its marks: `1.200*↑↑`, `1.000`, `0.900 ↓`.
        values = [cell for cell in cells if cell[0].isdigit()]
        assert len(values) == 4, line
        for index, value in enumerate(values):
            marked = value.endswith("*") or "*" in value
            assert marked == (stragglers[index] == rank), (rank, index, line)
        glyphs = [cell for cell in cells if not cell[0].isdigit()]
        marks_of_values = [value.lstrip("0123456789.*") for value in values]
        found = [mark for mark in marks_of_values + glyphs if mark]
        expected = [BANDS[(rank, i)] for i in range(4) if (rank, i) in BANDS]
        assert found == expected, (rank, line)


@pilot_test
async def test_marks_read_without_colour(
    run_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NO_COLOR: every straggler mark and band arrow is there, as in colour."""
    coloured, no_color = await _glyph_lines(run_folder)
    assert not no_color
    monkeypatch.setenv("NO_COLOR", "1")
    plain, no_color = await _glyph_lines(run_folder)
    assert no_color
    assert plain == coloured
    _check_marks(plain)


@pilot_test
async def test_v_shows_waits_and_the_breakdown_says_not_observed(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    """Plain steps: each wait is an arrival difference; a CPU-only rank's bar reads not observed."""
    scales = {rank: [1.0] * 4 for rank in ARRIVALS}
    folder = write_heat_run(
        tmp_path / "run", ARRIVALS, scales, world_size=4, on_gpu=(0, 1, 2, 3)
    )
    (folder / "rank-3.pt.trace.json").unlink()
    write_heat_run(tmp_path / "cpu", {3: ARRIVALS[3]}, {3: [1.0] * 4}, world_size=4)
    (tmp_path / "cpu" / "rank-3.pt.trace.json").rename(folder / "rank-3.pt.trace.json")
    app = make_run_app(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        ranks = await settle_on(pilot, RanksScreen)
        await pilot.press("v")
        lines = table_lines(ranks.heat)
        rows = {
            int(line.split()[0]): line for line in lines[FIXED_LINES:] if line.strip()
        }
        # A CPU rank's gloo op ends with the others' kernels: its time in the
        # collective is also the end minus its arrival, so it takes part alike.
        for index in range(4):
            latest = max(ARRIVALS[rank][index] for rank in ARRIVALS)
            for rank in ARRIVALS:
                cell = rows[rank].split("│")[1].split()[index]
                if ARRIVALS[rank][index] == latest:
                    assert cell == "last*"
                else:
                    # ms with three decimals: the wait is the arrival difference.
                    assert float(cell) == pytest.approx(
                        (latest - ARRIVALS[rank][index]) / 1000, abs=0.0011
                    )
        bars = ranks.query_one("#rank-bars")
        text = [
            "".join(s.text for s in bars.render_line(y))
            for y in range(bars.size.height)
        ]
        by_rank = {line.split()[0]: line for line in text[1:] if line.strip()}
        assert "not observed" in by_rank["3"]
        for label in ("0", "1", "2"):
            assert "█" in by_rank[label] and "▓" in by_rank[label]
        reading = str(ranks.query_one("#ranks-reading Static").render())
        assert "collectives" in reading


@pilot_test
async def test_an_unknown_zone_exits_2_with_the_closest_names(run_folder: Path) -> None:
    app = make_run_app(run_folder, zones=("lecture_batch_cp",))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            with contextlib.suppress(WorkerCancelled):
                await workers_finished(app)
            await pilot.pause()
            if app.return_code is not None:
                break
    assert app.return_code == 2
    assert len(app.exit_lines) == 1
    assert "in any rank of this run" in app.exit_lines[0]
    assert app.exit_lines[0].endswith("closest: lecture_batch_cpu")


@pilot_test
async def test_a_rank_without_the_runs_zone_opens_with_its_own(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    """`--zone` held by rank 1 only: rank 0 still opens, on its default zone, with a warning."""
    folder = write_heat_run(tmp_path / "run", ARRIVALS, SCALES, world_size=4)
    path = folder / "rank-1.pt.trace.json"
    document = orjson.loads(path.read_bytes())
    step = next(e for e in document["traceEvents"] if e.get("name") == "ProfilerStep#1")
    document["traceEvents"].append({**step, "name": "only_on_rank_1", "dur": 50.0})
    path.write_bytes(orjson.dumps(document))
    app = make_run_app(folder, zones=("only_on_rank_1",))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle_on(pilot, RanksScreen)
        screen = await open_cell(pilot, 1, 1)
        assert screen.analysis.zone_choice.names == ("only_on_rank_1",)
        await pilot.press("u")
        await pilot.pause()
        screen = await open_cell(pilot, 0, 1)
        assert screen.path.name == "rank-0.pt.trace.json"
        assert "lecture_batch_cpu" in screen.analysis.zone_choice.names
        messages = [note.message for note in app._notifications]
        assert any("Rank 0 has no range of the run's data zone" in m for m in messages)


@pilot_test
async def test_a_run_no_rank_of_which_reads_shows_why(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "rank-0.pt.trace.json").write_bytes(b"not json at all")
    app = make_run_app(folder)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            with contextlib.suppress(WorkerCancelled):
                await workers_finished(app)
            await pilot.pause()
            if isinstance(app.screen, LoadErrorScreen):
                break
        screen = app.screen
        assert isinstance(screen, LoadErrorScreen)
        # Set aside before ranks are given: it takes no rank.
        assert screen.reason.startswith("no rank could be read (1 file(s) set aside")
        assert "rank-0.pt.trace.json (the JSON is not an object" in screen.reason
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 2


@pilot_test
async def test_4_reads_the_runs_collectives_as_the_cli_says_them(
    run_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Collectives tab is read on demand, in the background, with the words of
    `steptrace collectives DIR`."""
    from tui.app.screens.ranks import COLLECTIVES_HINT
    from tui.cli import main

    assert main(["collectives", str(run_folder)]) == 0
    cli_text = capsys.readouterr().out.rstrip("\n")
    app = make_run_app(run_folder)
    async with app.run_test(size=(120, 40)) as pilot:
        ranks = await settle_on(pilot, RanksScreen)
        shown = ranks.query_one("#ranks-collectives-text")
        assert str(shown.render()) == COLLECTIVES_HINT  # nothing read before 4
        await pilot.press("4")
        for _ in range(200):
            await workers_finished(app)
            await pilot.pause()
            if str(shown.render()) == cli_text:
                break
        assert str(shown.render()) == cli_text
