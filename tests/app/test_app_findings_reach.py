"""At 80x24 every finding's next check is reachable from the keyboard: PgDn
pages through the findings' lines (a finding taller than the pane included),
and v shows the highlighted finding in full."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from tests.pilot import main_screen, make_app, pilot_test, screen_text, settle
from tui.app.screens.figures import FiguresScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.findings_panel import FindingsPanel
from tui.report.findings import words


def _next_check_start(panel: FindingsPanel, index: int) -> str:
    """The first words of a finding's next check, as the pane wraps them."""
    return words(panel.findings[index]).next_check[:30]


async def _findings_pane(pilot: Pilot[Any]) -> FindingsPanel:
    """The findings pane, shown with 2 once the load has settled."""
    screen = await main_screen(pilot)
    await pilot.press("2")
    await pilot.pause()
    return screen.query_one(FindingsPanel)


@pilot_test
async def test_page_down_reaches_every_next_check(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await _findings_pane(pilot)
        count = len(panel.findings)
        assert count >= 2
        first = _next_check_start(panel, 0)
        assert first not in screen_text(app)  # taller than the pane at 80x24
        seen: set[int] = set()
        for _ in range(len(panel.shown_texts()) * 8):
            shown = screen_text(app)
            seen |= {i for i in range(count) if _next_check_start(panel, i) in shown}
            if panel.highlighted == count - 1 and panel.scroll_y == panel.max_scroll_y:
                break
            await pilot.press("pagedown")
            await pilot.pause()
        assert seen == set(range(count))
        assert panel.highlighted == count - 1


@pilot_test
async def test_page_down_shows_the_lines_below(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await _findings_pane(pilot)
        assert _next_check_start(panel, 0) not in screen_text(app)
        await pilot.press("pagedown")
        await pilot.pause()
        assert panel.scroll_y > 0
        assert _next_check_start(panel, 0) in screen_text(app)


@pilot_test
async def test_v_shows_the_finding_in_full(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2", "v")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, FiguresScreen)
        text = str(dialog.query_one("#figures-text", Static).render())
        assert "next check: " in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
