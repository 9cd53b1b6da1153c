"""Each figure that several consumers read is computed once per analysis:
findings, the report and the syncs and copies results share one reading."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.copies import CopiesResult
from tui.core.results.findings import FindingsResult
from tui.core.results.syncs import SyncsResult
from tui.report.report import ReportResult

TRACE = "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz"
# (module, function): the computations Analysis.memo keeps.
KEPT = (
    ("tui.core.figures.syncs", "sync_columns"),
    ("tui.core.figures.sync_reading", "sync_reading"),
    ("tui.core.figures.copies", "copy_columns"),
    ("tui.core.figures.copies", "copy_reading"),
    ("tui.core.findings.critical", "_read_paths"),
    ("tui.core.findings.device_bound", "device_load"),
)


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each kept computation ran."""
    counts: Counter[str] = Counter()

    def counting(
        key: str, compute: Callable[[Analysis], Any]
    ) -> Callable[[Analysis], Any]:
        def counted(analysis: Analysis) -> Any:
            counts[key] += 1
            return compute(analysis)

        return counted

    for module_name, name in KEPT:
        module = importlib.import_module(module_name)
        monkeypatch.setattr(module, name, counting(name, getattr(module, name)))
    return counts


def _findings_and_report(analysis: Analysis) -> None:
    FindingsResult.of(analysis)
    ReportResult.of(analysis)
    SyncsResult.of(analysis)
    CopiesResult.of(analysis)


def test_findings_and_report_compute_each_figure_once(
    shared_traces: Path, computed: Counter[str]
) -> None:
    analysis = Analysis(load_trace(shared_traces / TRACE))
    _findings_and_report(analysis)
    assert computed == {name: 1 for _module, name in KEPT}
    reading = SyncsResult.of(analysis).reading
    assert reading is not None and len(reading.columns) == 21


def test_another_analysis_computes_again(
    shared_traces: Path, computed: Counter[str]
) -> None:
    trace = load_trace(shared_traces / TRACE)
    _findings_and_report(Analysis(trace))
    _findings_and_report(Analysis(trace))
    assert computed == {name: 2 for _module, name in KEPT}


def test_another_zone_shares_what_is_kept(
    shared_traces: Path, computed: Counter[str]
) -> None:
    analysis = Analysis(load_trace(shared_traces / TRACE))
    first = SyncsResult.of(analysis).reading
    other = analysis.with_zones(["no such zone"])
    assert SyncsResult.of(other).reading is first
    assert computed["sync_columns"] == 1


def test_a_failed_computation_is_not_kept(shared_traces: Path) -> None:
    analysis = Analysis(load_trace(shared_traces / TRACE))
    calls: list[int] = []

    def fails_once(analysis: Analysis) -> int:
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("first call")
        return len(calls)

    with pytest.raises(ValueError):
        analysis.memo(fails_once)
    assert analysis.memo(fails_once) == 2
    assert analysis.memo(fails_once) == 2
