"""The readings on fixture captures: figures and a place to show as data, words apart;
possible observations, never causes, and 'not observed' where the capture lacks
what a reading needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.app_traces import write_training_trace
from tui.core.base.vocab import FindingId, FindingStatus, GapKind
from tui.core.figures.analysis import Analysis
from tui.core.findings.copies import CopyFigures
from tui.core.findings.data_zone import IdleFigures
from tui.core.findings.dominant import DominantFigures
from tui.core.findings.finding import (
    Finding,
    MissingReason,
    ShowEvents,
    ShowGap,
    ShowOperator,
)
from tui.core.findings.readings import compute_findings
from tui.core.findings.small_launches import LaunchFigures
from tui.core.ingest.load import load_trace
from tui.report.findings import words

FORBIDDEN = ("speed-up", "speedup", "faster by", "proves", "caused by", "the cause")


def _findings(path: Path) -> tuple[Analysis, dict[FindingId, Finding]]:
    analysis = Analysis(load_trace(path))
    return analysis, {f.id: f for f in compute_findings(analysis)}


def test_cuda_capture_readings(tmp_path: Path) -> None:
    analysis, found = _findings(write_training_trace(tmp_path / "t.json", gpu=True))
    idle = found[FindingId.GPU_IDLE_DATA_ZONE]
    assert idle.observed and isinstance(idle.figures, IdleFigures)
    assert idle.figures.idle_ns == 3_000_000 + 3_500_000 + 3_700_000
    assert idle.figures.idle_ns == analysis.total_gap_ns
    # Weighed: the idle per step (3.4 ms) against the median step (9.95 ms).
    assert idle.cost_ns_per_step == pytest.approx(idle.figures.idle_ns / 3)
    assert idle.share_of_step == pytest.approx(idle.figures.idle_ns / 3 / 9_950_000)
    assert idle.status is FindingStatus.LIKELY
    # It points at the biggest gap.
    assert isinstance(idle.anchor, ShowGap)
    biggest = analysis.gaps[idle.anchor.index]
    assert biggest.duration_ns == max(gap.duration_ns for gap in analysis.gaps)
    # The one copy moves the batch right after the data zone: not a constant.
    copy = found[FindingId.REPEATED_COPY]
    assert copy.status is FindingStatus.NOT_SEEN
    assert isinstance(copy.figures, CopyFigures) and copy.figures.input_copies == 1
    pageable = found[FindingId.PAGEABLE_COPY]
    assert pageable.observed and isinstance(pageable.anchor, ShowEvents)
    assert pageable.anchor.name == "Memcpy HtoD (Pageable -> Device)"
    small = found[FindingId.SMALL_LAUNCHES]
    assert isinstance(small.figures, LaunchFigures)
    assert small.figures.kernels_per_step == [13, 13, 13]
    assert small.status is FindingStatus.NOT_SEEN
    dominant = found[FindingId.DOMINANT_OP]
    assert dominant.observed and isinstance(dominant.figures, DominantFigures)
    assert dominant.figures.operator == "aten::addmm"
    assert dominant.figures.unit == "GPU"
    assert dominant.anchor == ShowOperator("aten::addmm")
    assert dominant.cost_ns_per_step == 2_500_000
    # Costliest first: the idle (3.4 ms), the host wait, the matmul (2.5 ms), ...
    costs = [f.cost_ns_per_step for f in compute_findings(analysis) if f.seen]
    weighed = [cost for cost in costs if cost is not None]
    assert weighed == costs  # every finding seen is weighed
    assert weighed == sorted(weighed, reverse=True)


def test_cpu_only_capture_says_not_observed(tmp_path: Path) -> None:
    _, found = _findings(write_training_trace(tmp_path / "t.json", gpu=False))
    wait = found[FindingId.GPU_IDLE_DATA_ZONE]
    assert isinstance(wait.figures, IdleFigures)
    assert wait.figures.kind is GapKind.UNTRACED
    said = words(wait)
    assert "GPU idle" not in said.title + said.observation
    assert "Untraced time" in said.title and "not proven" in said.observation
    for key in (
        FindingId.REPEATED_COPY,
        FindingId.PAGEABLE_COPY,
        FindingId.HOST_BOUND,
        FindingId.SMALL_LAUNCHES,
    ):
        finding = found[key]
        assert finding.status is FindingStatus.NOT_OBSERVED
        assert finding.missing is not None
        assert finding.missing.reason is MissingReason.NO_GPU
        observation = words(finding).observation
        assert observation.startswith("not observed")
        assert "CUDA is not available" in observation
    dominant = found[FindingId.DOMINANT_OP].figures
    assert isinstance(dominant, DominantFigures) and dominant.unit == "CPU"


def test_no_data_zone_is_not_observed_and_says_how_to_choose_one(
    tmp_path: Path,
) -> None:
    analysis = Analysis(
        load_trace(write_training_trace(tmp_path / "t.json", gpu=True)),
        ["no such zone"],
    )
    (idle,) = [
        f for f in compute_findings(analysis) if f.id is FindingId.GPU_IDLE_DATA_ZONE
    ]
    assert idle.status is FindingStatus.NOT_OBSERVED
    assert (
        idle.missing is not None and idle.missing.reason is MissingReason.NO_DATA_ZONE
    )
    assert "choose one" in words(idle).observation


@pytest.mark.parametrize("gpu", [True, False], ids=["cuda", "cpu-only"])
def test_readings_are_worded_as_possibilities(tmp_path: Path, gpu: bool) -> None:
    _, found = _findings(write_training_trace(tmp_path / "t.json", gpu=gpu))
    for finding in found.values():
        said = words(finding)
        text = " ".join(
            [said.title, said.observation, said.hypothesis, said.next_check]
        ).lower()
        assert not any(phrase in text for phrase in FORBIDDEN)
        assert "may" in said.hypothesis
        assert said.next_check
