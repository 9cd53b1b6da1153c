"""A tab key draws what changed and nothing else: the screen's background and
the tabbed pane's own lines show neither the focus nor the tab in front, and
Textual's repaint of them on each tab key drew about 100 lines for nothing."""

from __future__ import annotations

from pathlib import Path

from textual.strip import Strip
from textual.widget import Widget

from tests.pilot import make_app, pilot_test, settle, workers_done
from tui.app.screens.bottom_tabs import BottomPane
from tui.app.screens.main import MainScreen
from tui.app.widgets.kernel_table import KernelTable


def _count_lines(widget: Widget, drawn: list[str]) -> None:
    """Record each line `widget` draws from now on."""
    draw = widget.render_line

    def counted(y: int) -> Strip:
        drawn.append(type(widget).__name__)
        return draw(y)

    widget.render_line = counted  # type: ignore[method-assign]


@pilot_test
async def test_tab_keys_draw_neither_the_screen_nor_the_pane_again(
    cuda_trace: Path,
) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for key in "2345":  # every tab shown once, its figures read
            await pilot.press(key)
            await workers_done(pilot)
        await pilot.press("1")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        drawn: list[str] = []
        for widget in (screen, screen.query_one(BottomPane)):
            _count_lines(widget, drawn)
        table = screen.query_one(KernelTable)
        shown: list[str] = []
        _count_lines(table, shown)
        await pilot.press("4")
        await settle(pilot)
        assert table.has_focus and shown, "the Kernels tab is drawn"
        assert drawn == []
        await pilot.press("2")
        await settle(pilot)
        assert drawn == []
