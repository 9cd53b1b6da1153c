"""The four readings on fixture captures: possible observations, never causes,
and 'not observed' where the capture lacks what a reading needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_app import write_training_trace
from tui.core.analysis import Analysis
from tui.core.findings import Finding, compute_findings
from tui.core.load import load_trace

FORBIDDEN = ("speed-up", "speedup", "faster by", "proves", "caused by", "the cause")


def _findings(path: Path) -> dict[str, Finding]:
    return {f.id: f for f in compute_findings(Analysis(load_trace(path)))}


def test_cuda_capture_readings(tmp_path: Path) -> None:
    found = _findings(write_training_trace(tmp_path / "t.json", gpu=True))
    idle = found["gpu_idle_data_zone"]
    assert idle.observed
    assert idle.evidence["idle_ns"] == 3_000_000 + 3_500_000 + 3_700_000
    copy = found["repeated_copy"]
    assert copy.observed and copy.evidence["bytes"] == 4_194_304
    small = found["small_launches"]
    assert small.evidence["kernels_per_step"] == [13, 13, 13]
    assert not small.observed
    dominant = found["dominant_op"]
    assert dominant.observed and dominant.evidence["operator"] == "aten::addmm"
    assert dominant.evidence["unit"] == "GPU"


def test_cpu_only_capture_says_not_observed(tmp_path: Path) -> None:
    found = _findings(write_training_trace(tmp_path / "t.json", gpu=False))
    wait = found["gpu_idle_data_zone"]
    assert "GPU idle" not in wait.title + wait.observation
    assert "CPU wait" in wait.title
    for key in ("repeated_copy", "small_launches"):
        finding = found[key]
        assert not finding.observed
        assert finding.observation.startswith("not observed")
        assert "CUDA is not available" in finding.observation
    assert found["dominant_op"].evidence["unit"] == "CPU"


@pytest.mark.parametrize("gpu", [True, False], ids=["cuda", "cpu-only"])
def test_readings_are_worded_as_possibilities(tmp_path: Path, gpu: bool) -> None:
    for finding in _findings(
        write_training_trace(tmp_path / "t.json", gpu=gpu)
    ).values():
        words = " ".join(
            [finding.title, finding.observation, finding.hypothesis, finding.next_check]
        ).lower()
        assert not any(phrase in words for phrase in FORBIDDEN)
        assert "may" in finding.hypothesis
        assert finding.next_check
