"""A finding's or a note's anchor is shown as the core's anchor kind where the
app has nothing to add: a step (only one in the capture), a gap, an operator."""

from __future__ import annotations

from pathlib import Path

from tests.builders.app_traces import write_training_trace
from tui.app.screens.anchors import finding_target, note_target, step_index
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import Finding, ShowGap, ShowOperator, ShowStep
from tui.core.ingest.load import load_trace
from tui.notes import Anchor


def _analysis(tmp_path: Path) -> Analysis:
    return Analysis(load_trace(write_training_trace(tmp_path / "t.json", gpu=True)))


def _pointing(anchor: ShowGap | ShowOperator | ShowStep | None) -> Finding:
    return Finding(FindingId.HOST_BOUND, FindingStatus.LIKELY, anchor=anchor)


def test_a_findings_step_gap_or_operator_is_shown_as_it_is(tmp_path: Path) -> None:
    analysis = _analysis(tmp_path)
    trace = analysis.trace
    numbers = [step.number for step in analysis.steps]
    last = ShowStep(numbers[-1])
    assert finding_target(_pointing(last), trace, analysis) == last
    assert step_index(analysis, last.number) == len(numbers) - 1
    gap = ShowGap(len(analysis.gaps) - 1)
    assert finding_target(_pointing(gap), trace, analysis) == gap
    operator = ShowOperator("aten::mm")
    assert finding_target(_pointing(operator), trace, analysis) == operator


def test_an_anchor_not_in_the_capture_is_not_shown(tmp_path: Path) -> None:
    analysis = _analysis(tmp_path)
    trace = analysis.trace
    first = ShowStep(analysis.steps[0].number)
    missing = max(step.number for step in analysis.steps) + 1
    assert step_index(analysis, missing) is None
    assert finding_target(_pointing(ShowStep(missing)), trace, analysis) is None
    # A gap out of range, or no anchor at all: the first step.
    out_of_range = ShowGap(len(analysis.gaps))
    assert finding_target(_pointing(out_of_range), trace, analysis) == first
    assert finding_target(_pointing(None), trace, analysis) == first
    assert note_target(Anchor.at_step(missing), trace, analysis, []) is None


def test_a_notes_step_and_operator_are_the_cores_kinds(tmp_path: Path) -> None:
    analysis = _analysis(tmp_path)
    trace = analysis.trace
    number = analysis.steps[-1].number
    assert note_target(Anchor.at_step(number), trace, analysis, []) == ShowStep(number)
    on_op = note_target(Anchor.on_op("aten::mm"), trace, analysis, [])
    assert on_op == ShowOperator("aten::mm")
