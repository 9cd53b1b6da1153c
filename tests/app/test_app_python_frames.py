"""The operator table lists operators only; p brings the Python frames and
module ranges back (and hides them again), in the window and in a step."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from tests.builders.traces import cpu, write_trace
from tests.pilot import pilot_test, workers_done
from tui.app.widgets.op_table import OperatorTable
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace

FRAMES = {"nn.Module: Linear_0", "model.py(12): forward", "<built-in method t>"}


def _trace(path: Path) -> Path:
    events = []
    for number in (1, 2):
        start = number * 1000.0
        events += [
            cpu(f"ProfilerStep#{number}", start, 900.0, "user_annotation"),
            cpu("nn.Module: Linear_0", start + 10, 500.0, "python_function"),
            cpu("model.py(12): forward", start + 20, 400.0, "python_function"),
            cpu("aten::linear", start + 30, 300.0),
            cpu("aten::addmm", start + 40, 200.0),
            # A frame without its category is known by its name.
            cpu("<built-in method t>", start + 600, 50.0, "cpu_instant_event"),
        ]
    return write_trace(path, events)


class TableApp(App[None]):
    def __init__(self, analysis: Analysis) -> None:
        super().__init__()
        self.analysis = analysis

    def compose(self) -> ComposeResult:
        yield OperatorTable(self.analysis.op_table(), analysis=self.analysis)


@pilot_test
async def test_p_shows_and_hides_the_python_frames(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(_trace(tmp_path / "t.json")))
    app = TableApp(analysis)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(OperatorTable)
        table.focus()
        assert "aten::addmm" in table.table.names
        assert not FRAMES & set(table.table.names)
        await pilot.press("p")
        await workers_done(pilot)
        assert set(table.table.names) >= FRAMES
        assert "aten::addmm" in table.table.names
        table.scope_step(analysis, analysis.steps[0])
        await workers_done(pilot)
        assert table.scope_label == "step 1" and set(table.table.names) >= FRAMES
        await pilot.press("p")
        await workers_done(pilot)
        assert not FRAMES & set(table.table.names)
        assert table.scope_label == "step 1"
