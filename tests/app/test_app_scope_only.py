"""`S` changes the operator table's scope and nothing else: the row under the
cursor stays, and no operator is marked on the timeline for it."""

from __future__ import annotations

from pathlib import Path

from tests.pilot import main_screen, make_app, pilot_test, workers_finished
from tui.app.widgets.op_table import OperatorTable


@pilot_test
async def test_scope_marks_nothing_and_keeps_the_row(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await main_screen(pilot)
        table = screen.query_one(OperatorTable)
        await pilot.press("right_square_bracket")
        before = table.current_name
        assert before is not None and screen.marks.size == 0
        for scope in ("step 1", "whole window"):
            await pilot.press("S")
            await workers_finished(app)
            await pilot.pause()
            assert table.scope_label == scope
            assert table.current_name == before
            assert screen.marks.size == 0
        # Choosing a row is still what marks its operator.
        table.select_name("aten::relu")
        await pilot.pause()
        assert screen.marks.size > 0
