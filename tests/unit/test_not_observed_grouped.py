"""On a CPU-only capture the findings that need GPU events are one line, said
once with their reason and no advice, in the CLI, the report and the app."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.traces import cpu_only_steps, training_steps, write_trace
from tui.app.widgets.findings_panel import FindingsPanel
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.findings import FindingsResult
from tui.report.findings import findings_text
from tui.report.report import ReportResult
from tui.report.report_markdown import report_markdown
from tui.report.report_text import report_text

GROUPED = "not observed: {count} findings need GPU events — why: "


def _cpu_only(tmp_path: Path) -> Analysis:
    events = cpu_only_steps("lecture_batch_cpu")
    return Analysis(load_trace(write_trace(tmp_path / "cpu.json", events)))


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def cpu_only(tmp_path: Path) -> tuple[Analysis, FindingsResult]:
    analysis = _cpu_only(tmp_path)
    return analysis, FindingsResult.of(analysis)


def _no_gpu_count(result: FindingsResult) -> int:
    return sum(
        1
        for finding in result.findings
        if finding.missing is not None and finding.missing.reason.value == "no_gpu"
    )


def test_the_cli_says_not_observed_once_without_advice(
    cpu_only: tuple[Analysis, FindingsResult],
) -> None:
    _, result = cpu_only
    count = _no_gpu_count(result)
    assert count >= 2
    text = _flat(findings_text(result))
    assert "— not observed" not in text  # no finding of its own says it
    assert text.count(GROUPED.format(count=count)) == 1
    assert "pin the host memory" not in text


def test_the_report_says_it_once_in_text_and_markdown(
    cpu_only: tuple[Analysis, FindingsResult],
) -> None:
    analysis, result = cpu_only
    report = ReportResult.of(analysis, ())
    for words in (report_text(report), report_markdown(report, "cpu.json")):
        flat = _flat(words)
        assert flat.count(GROUPED.format(count=_no_gpu_count(result))) == 1
        assert flat.count("not observed: no GPU events") == 0


def test_the_app_panel_shows_one_line_and_no_advice_for_it(
    cpu_only: tuple[Analysis, FindingsResult],
) -> None:
    _, result = cpu_only
    panel = FindingsPanel(list(result.findings))
    shown = panel.shown_texts()
    grouped = [text for text in shown if "findings need GPU events" in text]
    assert len(grouped) == 1 and "hypothesis" not in grouped[0]
    assert sum("no GPU events in the capture" in text for text in shown) == 0
    assert len(panel.findings) == len(result.findings) - _no_gpu_count(result)


def test_a_capture_with_gpu_events_lists_its_findings_apart(tmp_path: Path) -> None:
    trace = load_trace(write_trace(tmp_path / "gpu.json", training_steps(3)))
    result = FindingsResult.of(Analysis(trace))
    assert _no_gpu_count(result) == 0
    assert "findings need GPU events" not in findings_text(result)
