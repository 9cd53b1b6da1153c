"""A selected step's status line says why the GPU idled in it (its largest cause)."""

from __future__ import annotations

from pathlib import Path

from tests.builders.idle import idle_trace
from tests.builders.traces import cpu, metadata, write_trace
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.view.status import step_info


def test_a_step_names_its_largest_idle_cause(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(idle_trace(tmp_path / "idle.json")))
    first, second = analysis.steps
    # Step 1: host wait 400 µs, other 100 µs, kernel wait 20 µs (built so).
    assert "stream idle 520 µs, host wait 77%" in step_info(analysis, first).plain
    # Step 2: other 200 µs, host wait 100 µs, kernel wait 20 µs.
    assert "stream idle 320 µs, other 62%" in step_info(analysis, second).plain


def test_no_gpu_no_idle_part(tmp_path: Path) -> None:
    events = [*metadata(), cpu("ProfilerStep#1", 0, 1000, cat="user_annotation")]
    analysis = Analysis(load_trace(write_trace(tmp_path / "cpu.json", events)))
    assert "stream idle" not in step_info(analysis, analysis.steps[0]).plain


def test_the_step_line_shows_the_data_zone_not_other_annotations(
    tmp_path: Path,
) -> None:
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("## forward ##", 10, 600, cat="user_annotation"),
        cpu(
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
            700,
            71,
            cat="user_annotation",
        ),
    ]
    analysis = Analysis(load_trace(write_trace(tmp_path / "t.json", events)))
    line = step_info(analysis, analysis.steps[0]).plain
    assert "enumerate(DataLoader)#… 71 µs" in line
    assert "## forward ##" not in line
