"""The tables of rows (operators, the comparison's operators, kernels, copies) share
one Line-API base: header lines that stay, rows drawn from their own columns in
the order shown, and the same cursor, paging, clicks, sort and filter keys."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from textual.app import App, ComposeResult

from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.rows_view import RowsView
from tui.core.base.units import duration_text
from tui.core.figures.analysis import OpTable

ROWS = 57


def _table() -> OpTable:
    generator = np.random.default_rng(3)
    calls = generator.integers(1, 500, ROWS).astype(np.int64)
    self_cpu = generator.integers(1_000, 9_000_000, ROWS).astype(np.int64)
    return OpTable(
        names=[f"aten::op_{index:03d}" for index in range(ROWS)],
        calls=calls,
        self_cpu_ns=self_cpu,
        total_cpu_ns=self_cpu * 3,
        self_gpu_ns=None,
        total_gpu_ns=None,
    )


class TableApp(App[None]):
    def __init__(self, table: OpTable) -> None:
        super().__init__()
        self.table = table
        self.selected: list[str] = []
        self.activated: list[str] = []

    def compose(self) -> ComposeResult:
        yield OperatorTable(self.table)

    def on_operator_selected(self, message: Any) -> None:
        self.selected.append(message.name)

    def on_operator_activated(self, message: Any) -> None:
        self.activated.append(message.name)


def _lines(view: RowsView) -> list[str]:
    return [view.render_line(y).text for y in range(view.size.height)]


def test_rows_drawn_in_the_order_of_their_figures() -> None:
    table = _table()
    # Largest self CPU first (ties: the name order), as the CLI sorts.
    expected = sorted(range(ROWS), key=lambda r: (-int(table.self_cpu_ns[r]), r))

    async def scenario() -> None:
        app = TableApp(table)
        async with app.run_test(size=(90, 20)) as pilot:
            await pilot.pause()
            view = app.query_one(OperatorTable)
            lines = _lines(view)
            assert lines[0].startswith(f"Operator ({ROWS} of {ROWS}; whole window)")
            assert "Self CPU ▼" in lines[0]
            for y, row in enumerate(expected[: view.size.height - 1], start=1):
                words = lines[y].split()
                assert words[0] == table.names[row]
                assert words[1] == str(int(table.calls[row]))
                assert " ".join(words[2:4]) == duration_text(
                    int(table.self_cpu_ns[row])
                )
                assert lines[y].rstrip().endswith("—")  # GPU not observed, never 0
            # Every line fills the width exactly: the base fits each one.
            assert {len(line) for line in lines} == {
                view.scrollable_content_region.width
            }

    asyncio.run(scenario())


@pytest.mark.parametrize("height", [12, 20])
def test_cursor_paging_clicks_and_keys(height: int) -> None:
    table = _table()

    async def scenario() -> None:
        app = TableApp(table)
        async with app.run_test(size=(90, height)) as pilot:
            view = app.query_one(OperatorTable)
            view.focus()
            await pilot.pause()
            visible = view.size.height - view.HEADER_LINES
            await pilot.press("down", "down")
            assert view.cursor == 2
            await pilot.press("pagedown")
            assert view.cursor == 2 + visible - 1
            await pilot.press("end")
            await pilot.pause()
            assert view.cursor == ROWS - 1
            top = int(view.scroll_y)
            assert top <= view.cursor < top + visible  # scrolled into view
            await pilot.press("home")
            await pilot.pause()
            assert view.cursor == 0 and view.scroll_y == 0
            # A click on the 4th row line puts the cursor there; twice activates it.
            await pilot.click(OperatorTable, offset=(3, view.HEADER_LINES + 3))
            assert view.cursor == 3
            row = int(view.order[3])
            assert app.selected[-1] == table.names[row]
            await pilot.click(OperatorTable, offset=(3, view.HEADER_LINES + 3), times=2)
            assert app.activated == [table.names[row]]
            # A click on the header sorts by the column under it: calls.
            calls_at = view.header_text().index("Calls")
            await pilot.click(OperatorTable, offset=(calls_at + 2, 0))
            calls = table.calls[view.order]
            assert view.sort == "calls" and bool(np.all(calls[:-1] >= calls[1:]))
            await pilot.press("r")
            calls = table.calls[view.order]
            assert not view.descending and bool(np.all(calls[:-1] <= calls[1:]))
            await pilot.press("o")  # the next column: CPU time, largest first
            cpu = table.self_cpu_ns[view.order]
            assert view.sort == "cpu" and bool(np.all(cpu[:-1] >= cpu[1:]))
            view.set_filter("op_01")
            await pilot.pause()
            assert [table.names[r] for r in view.order.tolist()] == sorted(
                (f"aten::op_{i:03d}" for i in range(10, 20)),
                key=lambda name: -int(table.self_cpu_ns[table.names.index(name)]),
            )
            assert view.cursor == 0 and view.scroll_y == 0
            assert "filter: op_01" in view.render_line(0).text

    asyncio.run(scenario())


def test_a_two_line_header_stays_above_the_rows(tmp_path: Path) -> None:
    from tests.builders.diff_pair import write_pair
    from tui.app.widgets.diff_table import DiffOpTable
    from tui.core.diff import TraceDiff
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace

    before, after = write_pair(tmp_path)
    diff = TraceDiff.of(Analysis(load_trace(before)), Analysis(load_trace(after)))

    class DiffApp(App[None]):
        def compose(self) -> ComposeResult:
            yield DiffOpTable(diff)

    async def scenario() -> None:
        app = DiffApp()
        async with app.run_test(size=(140, 12)) as pilot:
            view = app.query_one(DiffOpTable)
            view.focus()
            await pilot.pause()
            lines = _lines(view)
            assert lines[0].rstrip() == view.title_text()
            assert lines[1].strip() == view.columns_text().strip()
            for y in range(2, min(view.size.height, 2 + int(view.order.size))):
                assert (
                    lines[y].rstrip() == view.row_text(int(view.order[y - 2])).rstrip()
                )
            await pilot.press("pagedown")
            assert view.cursor == min(view.size.height - 3, int(view.order.size) - 1)
            await pilot.click(DiffOpTable, offset=(5, 1))  # a header line: no move
            assert view.cursor == min(view.size.height - 3, int(view.order.size) - 1)
            await pilot.click(DiffOpTable, offset=(5, 2))
            assert view.cursor == int(view.scroll_y)

    asyncio.run(scenario())


class HiddenTableApp(App[None]):
    """A table that is not shown yet, as a tab's table before its first show."""

    def __init__(self, table: OpTable) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        view = OperatorTable(self.table)
        view.display = False
        yield view


def test_a_cursor_placed_while_hidden_is_in_view_once_shown() -> None:
    """A finding's anchor can place the cursor before its tab is laid out: the
    row must be on screen once the table has its size."""

    async def scenario() -> None:
        app = HiddenTableApp(_table())
        async with app.run_test(size=(80, 12)) as pilot:
            view = app.query_one(OperatorTable)
            await pilot.pause()
            view.move_cursor(ROWS - 5, say=False)
            await pilot.pause()
            view.display = True
            for _ in range(3):
                await pilot.pause()
            top = int(view.scroll_y)
            visible = view.size.height - view.HEADER_LINES
            assert view.size.height > 0
            assert top <= view.cursor < top + visible

    asyncio.run(scenario())


def test_a_cursor_placed_as_the_rows_arrive_is_in_view() -> None:
    """A tab's figures read in a worker arrive while its message shows (no rows,
    so no scrollbar), and a finding's anchor puts the cursor far down in the same
    turn: the row must be on screen, though Textual has not laid the new rows
    out and refuses to scroll a widget without a scrollbar."""

    async def scenario() -> None:
        app = TableApp(_table())
        async with app.run_test(size=(80, 12)) as pilot:
            view = app.query_one(OperatorTable)
            view.show_message("reading the operators…")
            await pilot.pause()
            assert not view.show_vertical_scrollbar
            view.show_message(None)
            view.move_cursor(ROWS - 5, say=False)
            visible = view.size.height - view.HEADER_LINES
            # At once, not after a layout that may come after the next check:
            # the after-refresh retry alone left it off screen, now and then.
            top = int(view.scroll_y)
            assert top <= view.cursor < top + visible
            for _ in range(3):
                await pilot.pause()
            top = int(view.scroll_y)
            assert top <= view.cursor < top + visible

    asyncio.run(scenario())


def test_a_table_shown_draws_its_lines_once_and_again_for_a_new_width() -> None:
    """Showing a tab lays its table out and draws it; its resize must not draw
    every line a second time (4 ms of the key on a 37-line table) — but lines
    drawn for another width are drawn again."""

    async def scenario() -> None:
        app = HiddenTableApp(_table())
        async with app.run_test(size=(80, 12)) as pilot:
            view = app.query_one(OperatorTable)
            await pilot.pause()
            drawn: list[int] = []
            draw = view.render_line

            def counted(y: int) -> Any:
                drawn.append(y)
                return draw(y)

            view.render_line = counted  # type: ignore[method-assign]
            view.display = True
            for _ in range(3):
                await pilot.pause()
            assert view.size.height > 0
            assert sorted(drawn) == list(range(view.size.height))
            drawn.clear()
            await pilot.resize_terminal(60, 12)
            for _ in range(3):
                await pilot.pause()
            assert set(drawn) == set(range(view.size.height))
            assert {len(line) for line in _lines(view)} == {
                view.scrollable_content_region.width
            }

    asyncio.run(scenario())
