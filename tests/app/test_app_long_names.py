"""At 200 columns the operator table's name column holds long operator names
whole; at 80 it cuts them at their end, never in their middle."""

from __future__ import annotations

from pathlib import Path

from tests.builders.traces import cpu, metadata, write_trace
from tests.pilot import make_app, pilot_test, settle
from tui.app.widgets.op_table import OperatorTable

LONG = "autograd::engine::evaluate_function: AddmmBackward0"


def _trace(tmp_path: Path) -> Path:
    events = [*metadata()]
    for step in range(2):
        at = step * 1000.0
        events += [
            cpu(f"ProfilerStep#{step + 1}", at, 1000, cat="user_annotation"),
            cpu(LONG, at + 10, 600),
            cpu("aten::mm", at + 700, 100),
        ]
    return write_trace(tmp_path / "long.json", events)


@pilot_test
async def test_long_names_are_whole_at_200_columns(tmp_path: Path) -> None:
    app = make_app(_trace(tmp_path))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(OperatorTable)
        lines = [table.line_text(i, 200) for i in range(table.line_count())]
        assert any(line.startswith(LONG + " ") for line in lines), lines


@pilot_test
async def test_at_80_columns_they_are_cut_at_their_end(tmp_path: Path) -> None:
    app = make_app(_trace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(OperatorTable)
        lines = [table.line_text(i, 80) for i in range(table.line_count())]
        cut = next(line for line in lines if line.startswith("autograd"))
        shown = cut.split("…")[0]
        assert LONG not in cut and LONG.startswith(shown), cut
