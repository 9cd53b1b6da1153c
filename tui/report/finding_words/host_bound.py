"""The host-bound words: the device waits on the host to issue its work."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import FindingId
from tui.core.findings.host_bound import HostBoundFigures
from tui.report.finding_words.wording import FindingText, Wording, percent


def _device_name(device: int | str) -> str:
    """`GPU 0` for a device id, the label as it is otherwise."""
    return f"GPU {device}" if isinstance(device, int) else printable(str(device))


def _busy_words(figures: HostBoundFigures) -> str:
    """`is busy 290 µs of a 1.1 ms step`; its busy time is a mean over the
    steps and the step a median, so a busy time past the median step is said
    as what it is, never as a part of the step longer than the step."""
    busy, step = duration_text(figures.busy_ns), duration_text(figures.step_ns)
    if figures.busy_ns <= figures.step_ns:
        return f"is busy {busy} of a {step} step"
    return (
        f"is busy {busy} per step on average, more than the median step ({step}):"
        " the longer steps raise the average"
    )


def _host_bound_text(figures: HostBoundFigures) -> str:
    idle = figures.host_wait_ns + figures.kernel_wait_ns + figures.other_ns
    share = figures.host_wait_ns / idle if idle > 0 else 0.0
    return (
        f"{_device_name(figures.device)} {_busy_words(figures)}; of its idle"
        f" time, {percent(share)} waits for the host to issue"
        f" work ({duration_text(figures.host_wait_ns)} per step), against"
        f" {duration_text(figures.kernel_wait_ns)} between kernels and"
        f" {duration_text(figures.other_ns)} other"
        + (
            f"; {duration_text(figures.host_wait_in_zone_ns)} of that wait falls in"
            " the data zone (weighed with the data zone, not here)"
            if figures.host_wait_in_zone_ns > 0
            else ""
        )
    )


TEXT = FindingText(
    FindingId.HOST_BOUND,
    HostBoundFigures,
    Wording(
        "The device waits on the host",
        "the host (Python, operator dispatch, input) may not issue work as fast as"
        " the device runs it",
        "look at the host's operators inside the device's gaps, then try less host"
        " work per step (torch.compile, CUDA graphs, a larger batch) and compare",
    ),
    lambda figures, _seen: _host_bound_text(figures),
)
