"""The host-bound observation never says a device is busy longer than its step:
its busy time is a mean over the steps, the step a median."""

from __future__ import annotations

from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.findings.finding import Finding
from tui.core.findings.host_bound import HostBoundFigures
from tui.report.findings import words

MS = 1_000_000


def _said(busy_ms: float, step_ms: float) -> str:
    figures = HostBoundFigures(
        steps=4,
        step_ns=step_ms * MS,
        busy_ns=busy_ms * MS,
        host_wait_ns=3 * MS,
        host_wait_in_zone_ns=0.0,
        kernel_wait_ns=1 * MS,
        other_ns=0.0,
        device=1,
    )
    return words(
        Finding(FindingId.HOST_BOUND, FindingStatus.POSSIBLE, figures)
    ).observation


def test_busy_within_the_step_is_a_part_of_it() -> None:
    assert _said(80.0, 114.7).startswith("GPU 1 is busy 80 ms of a 114.7 ms step;")


def test_busy_past_the_median_step_is_not_a_part_of_it() -> None:
    said = _said(119.5, 114.7)
    assert "of a 114.7 ms step" not in said
    assert said.startswith(
        "GPU 1 is busy 119.5 ms per step on average, more than the median step"
        " (114.7 ms)"
    )
