"""A capture of simplified inputs (the demo's) says in its header what that
means and what the method's zone names stand for, one line each; other
captures' headers do not."""

from __future__ import annotations

from pathlib import Path

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.app.widgets.header_line import SIMPLIFIED_LINE, ZONES_LINE, header_lines
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace


def _header(tmp_path: Path, simplified: bool) -> list[str]:
    events = metadata()
    for step in (1, 2):
        events += training_step_events(step, (step - 1) * 1000.0)
    scenario = {"inputs_simplified": simplified}
    path = write_trace(
        tmp_path / "demo.json",
        events,
        extra={"steptrace": {"schema": 1, "scenario": scenario}},
    )
    analysis = Analysis(load_trace(path))
    assert analysis.trace.capture.scenario.inputs_simplified is simplified
    return header_lines(analysis, 80).plain.splitlines()


def test_the_demos_header_explains_its_words_a_line_each(tmp_path: Path) -> None:
    lines = _header(tmp_path, simplified=True)
    assert SIMPLIFIED_LINE in lines and ZONES_LINE in lines
    assert len(SIMPLIFIED_LINE) <= 80 and len(ZONES_LINE) <= 80


def test_another_captures_header_has_neither_line(tmp_path: Path) -> None:
    lines = _header(tmp_path, simplified=False)
    assert SIMPLIFIED_LINE not in lines and ZONES_LINE not in lines
