"""B shows TensorBoard's step split as bars: one per step, the parts by glyph.

The figures are `summary --json`'s `step_breakdown` (checked against
torch-tb-profiler's own in tests/unit and tests/real_traces); here: that the
app draws those figures, one bar per step, each part's cells in proportion.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.pilot import make_app, pilot_test, screen_text, settle
from tui.app.screens.main import MainScreen
from tui.app.screens.step_split import StepSplitScreen
from tui.app.widgets.step_split_bars import StepSplitBars
from tui.core.figures.analysis import Analysis
from tui.core.figures.step_split import PARTS, StepSplit, step_breakdown
from tui.core.ingest.load import load_trace
from tui.view.step_bars import GLYPHS, LEGEND, bar_cells


def _bar_lines(app: Any) -> list[str]:
    """The bar widget's lines as drawn."""
    widget = app.screen.query_one(StepSplitBars)
    return [widget.render_line(y).text for y in range(widget.size.height)]


@pilot_test
async def test_b_draws_a_bar_per_step_with_the_summary_figures(
    cuda_trace: Path,
) -> None:
    trace = load_trace(cuda_trace)
    expected = step_breakdown(trace, Analysis(trace).steps)
    assert expected is not None and len(expected.steps) > 1
    # Wide enough for the widest bar, 60 cells.
    async with make_app(cuda_trace).run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await pilot.press("B")
        await pilot.pause()
        assert isinstance(pilot.app.screen, StepSplitScreen)
        lines = _bar_lines(pilot.app)
        assert lines[0].strip() == LEGEND
        rows = lines[1 : 1 + len(expected.steps)]
        longest = max(step.total_ns for step in expected.steps)
        for line, step in zip(rows, expected.steps, strict=True):
            assert line.split()[0] == str(step.step)
            # Each part's cells: its share of the step, the step's of the longest.
            length = sum(line.count(GLYPHS[part]) for part in PARTS)
            assert abs(length - 60 * step.total_ns / longest) <= 0.5
            parts_ns = sum(getattr(step, f"{part}_ns") for part in PARTS)
            for part in PARTS:
                share = getattr(step, f"{part}_ns") / parts_ns
                assert abs(line.count(GLYPHS[part]) - share * length) < 1.0, part
        assert lines[1 + len(expected.steps)].split()[0] == "average"
        first = pilot.app.screen.query_one(StepSplitBars)
        assert first.current == expected.steps[0].step
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen)


@pilot_test
async def test_a_cpu_only_capture_says_device_parts_are_not_observed(
    cpu_trace: Path,
) -> None:
    async with make_app(cpu_trace).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await pilot.pause()
        text = screen_text(pilot.app)
        assert "device parts not observed" in text
        for part in ("kernel", "memcpy", "memset"):
            assert GLYPHS[part] not in "".join(_bar_lines(pilot.app)[1:])


def test_cells_are_shared_by_largest_remainder() -> None:
    step = StepSplit(7, 0, 1000, 500, 0, 0, 0, 10, 0, 333, 157)
    cells = dict(bar_cells(step, longest_ns=2000, width=40))
    assert sum(cells.values()) == 20  # half the longest step: half the width
    assert cells == {
        "kernel": 10,
        "memcpy": 0,
        "memset": 0,
        "communication": 0,
        "runtime": 0,  # 0.2 of a cell: less than half, none
        "dataloader": 0,
        "cpu_exec": 7,
        "other": 3,
    }


def test_the_bars_picture(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """B over the CUDA fixture at 100x30: three steps and their average as bars,
    the legend above, the current step marked."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("right_square_bracket", "B")
        await pilot.pause()
        assert "Step time as TensorBoard splits it" in screen_text(pilot.app)

    assert snap_compare(
        make_app(cuda_trace), terminal_size=(100, 30), run_before=before
    )
