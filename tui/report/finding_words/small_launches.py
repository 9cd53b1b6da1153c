"""The small launches' words: many short kernels per step, and what launching costs."""

from __future__ import annotations

from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import FindingId
from tui.core.findings.small_launches import LaunchFigures
from tui.report.finding_words.wording import FindingText, Wording, percent
from tui.report.kernel_names import kernel_label


def _launch_text(figures: LaunchFigures) -> str:
    scope = (
        f"per step (median of {figures.steps})"
        if figures.steps
        else "in the capture (no steps)"
    )
    text = (
        f"{figures.median_kernels_per_step:.0f} kernels {scope}, median kernel"
        f" duration {duration_text(figures.median_kernel_ns)}"
    )
    if figures.short_share is not None:
        text += (
            f"; kernels under 10 µs fill {percent(figures.short_share)} of a step's"
            " device time"
        )
    if figures.launch_share is not None:
        text += f", launch calls {percent(figures.launch_share)} of its host time"
    if figures.launch_ns_per_step is not None:
        text += (
            f"; launch calls take {duration_text(figures.launch_ns_per_step)} of host"
            " time per step"
        )
        if figures.device_wait_ns_per_step is not None:
            text += (
                ", while the device waits on the host or between kernels"
                f" {duration_text(figures.device_wait_ns_per_step)}"
            )
    if figures.graph_kernels:
        text += f" ({plural(figures.graph_kernels, 'CUDA-graph kernel')} left out)"
    if figures.kernel is not None:
        text += f"; most launched: {kernel_label(figures.kernel, 60)}"
    return text


TEXT = FindingText(
    FindingId.SMALL_LAUNCHES,
    LaunchFigures,
    Wording(
        "Many small launches per step",
        "the work may be fragmented into many small kernels",
        "group the work (torch.compile fusion, CUDA graphs, larger batches) and"
        " compare the step time",
    ),
    lambda figures, _seen: _launch_text(figures),
)
