"""The report's CPU figure says what it counts beside TensorBoard's CPU Exec,
and no row label of its split is cut."""

from __future__ import annotations

from pathlib import Path

from tests.builders.traces import cpu_only_steps, write_trace
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.report.report import ReportResult
from tui.report.report_markdown import report_markdown
from tui.report.report_text import report_text

ZONE = "a_data_zone_name_far_longer_than_its_column_would_hold"


def _report(tmp_path: Path) -> ReportResult:
    events = cpu_only_steps(ZONE)
    trace = load_trace(write_trace(tmp_path / "cpu.json", events))
    return ReportResult.of(Analysis(trace, [ZONE]), ())


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_cpu_figure_says_what_it_counts_against_cpu_exec(tmp_path: Path) -> None:
    result = _report(tmp_path)
    assert result.summary.step_breakdown is not None
    for words in (report_text(result), report_markdown(result, "cpu.json")):
        flat = _flat(words)
        assert "CPU busy: time when at least one thread runs an operator" in flat
        assert (
            "TensorBoard's CPU Exec (the step split below) counts user annotations"
            in flat
        )


def test_no_label_of_the_split_is_cut(tmp_path: Path) -> None:
    text = report_text(_report(tmp_path))
    table = text.split("kept apart, never added)")[1].split("CPU busy: time")[0]
    assert "…" not in table
    # Wrapped over lines where it is longer than its column, never cut.
    assert ZONE in "".join(table.split())
    rows = [line for line in table.splitlines() if line.strip()]
    assert all(len(line) <= 80 for line in rows), rows
