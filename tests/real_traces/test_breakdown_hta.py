"""The GPU breakdown agrees with HTA 0.5.0 on every shared GPU trace (tests/fixtures/hta).

Tolerance: 0.5 % of the span for times, 0.5 point for
percentages. The fixture holds HTA's own output (make_hta_fixture.py); no
figure here comes from steptrace's arithmetic.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tui.core.figures.breakdown.gpu import Breakdown, DeviceTimeSets
from tui.core.figures.breakdown.rows import hta_rows
from tui.core.ingest.load import load_trace
from tui.core.runs.rank_summary import summarise_trace

TRACES = shared.FOLDER
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hta" / "hta_figures.json"


@cache
def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


GPU_TRACES = sorted(fixture()["traces"])
SKIPPED = sorted(fixture()["skipped"])


@cache
def hta_breakdown(name: str) -> Breakdown:
    sets = DeviceTimeSets.of(hta_rows(load_trace(TRACES / name)))
    assert sets is not None
    return sets.whole()


def the_rank(figures: dict[str, Any]) -> Any:
    (only,) = figures.values()  # one rank per shared trace
    return only


def test_the_fixture_covers_every_shared_trace() -> None:
    names = {path.name for path in TRACES.iterdir() if ".json" in path.name}
    assert set(GPU_TRACES) | set(SKIPPED) == names
    assert len(GPU_TRACES) == 14


@pytest.mark.parametrize("name", GPU_TRACES)
@pytest.mark.slow
def test_temporal_breakdown_agrees_with_hta(name: str) -> None:
    expected = the_rank(fixture()["traces"][name]["temporal_breakdown"])
    ours = hta_breakdown(name)
    span = expected["kernel_time_us"]
    tolerance = 0.005 * span
    assert ours.span_ns / 1e3 == pytest.approx(span, abs=tolerance)
    for key, value in (
        ("idle_time", ours.idle_ns),
        ("compute_time", ours.compute_ns),
        ("non_compute_time", ours.non_compute_ns),
    ):
        assert value / 1e3 == pytest.approx(expected[f"{key}_us"], abs=tolerance), key
        share = 100.0 * value / ours.span_ns if ours.span_ns else 0.0
        assert share == pytest.approx(expected[f"{key}_pctg"], abs=0.5), key


@pytest.mark.parametrize("name", GPU_TRACES)
def test_kernel_types_agree_with_hta(name: str) -> None:
    trace = fixture()["traces"][name]
    tolerance = 0.005 * the_rank(trace["temporal_breakdown"])["kernel_time_us"]
    theirs = {
        row["kernel_type"]: row
        for row in trace["gpu_kernel_breakdown"]["kernel_type_all_ranks"]
    }
    ours = {part.label: part for part in hta_breakdown(name).kernel_types}
    for label in set(theirs) | set(ours):
        expected = theirs.get(label, {"sum": 0, "percentage": 0.0})
        mine = ours.get(label)
        assert (mine.ns if mine else 0) / 1e3 == pytest.approx(
            expected["sum"], abs=tolerance
        ), label
        assert (mine.pct if mine else 0.0) == pytest.approx(
            expected["percentage"], abs=0.5
        ), label


@pytest.mark.parametrize("name", GPU_TRACES)
def test_comm_comp_overlap_agrees_with_hta(name: str) -> None:
    expected = the_rank(fixture()["traces"][name]["comm_comp_overlap"])[
        "comp_comm_overlap_pctg"
    ]
    ours = hta_breakdown(name).comm_comp_overlap_pct
    if expected is None:
        assert ours is None  # no communication: HTA's 0/0, never a 0 %
    else:
        assert ours == pytest.approx(expected, abs=0.5)


@pytest.mark.parametrize("name", GPU_TRACES)
def test_idle_by_cause_agrees_with_hta(name: str) -> None:
    trace = fixture()["traces"][name]
    tolerance = 0.005 * the_rank(trace["temporal_breakdown"])["kernel_time_us"]
    theirs = {
        (row["stream"], row["idle_category"]): row["idle_time"]
        for row in trace["idle_time_breakdown"]["rows"]
    }
    ours = {
        (part.stream, part.cause.value): part.ns / 1e3
        for part in hta_breakdown(name).idle_by_cause
    }
    assert set(ours) == set(theirs)
    for key, expected in theirs.items():
        assert ours[key] == pytest.approx(expected, abs=tolerance), key


@pytest.mark.parametrize("name", SKIPPED)
def test_a_capture_without_device_ops_has_no_breakdown(name: str) -> None:
    summary = summarise_trace(load_trace(TRACES / name))
    assert not summary.gpu_observed
    assert summary.breakdown is None and summary.breakdown_steptrace is None
    assert all(step.breakdown is None for step in summary.steps)
    assert json.loads(json.dumps(summary.to_json()))["breakdown"] is None
