"""The device-bound words: the device is busy most of the step and the host runs ahead."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import FindingId
from tui.core.figures.kernels import short_kernel_name
from tui.core.findings.device_bound import DeviceBoundFigures
from tui.report.finding_words.wording import FindingText, Wording, over_steps, percent


def _device_name(device: int | None) -> str:
    """`GPU 0` for a device id, "the device" without one."""
    return "the device" if device is None else f"GPU {device}"


def _device_bound_text(figures: DeviceBoundFigures) -> str:
    text = (
        f"{_device_name(figures.device)} is busy {percent(figures.busy_share)} of"
        f" the step ({duration_text(figures.busy_ns_per_step)} per step,"
        f" {over_steps(figures.steps)}; its streams read as one)"
    )
    if figures.queue_depth is not None:
        text += f"; {figures.queue_depth:.1f} launched ops wait to start on average"
    if figures.launch_lead_ns is not None:
        text += (
            f", each issued {duration_text(figures.launch_lead_ns)} before it runs"
            " (median)"
        )
    text += (
        ": the host runs ahead of the device"
        if figures.host_ahead
        else ": the host does not run ahead (the queue is short)"
    )
    if figures.top_kernels:
        kernels = ", ".join(
            f"{printable(short_kernel_name(name))} {duration_text(ns)}"
            for name, ns in figures.top_kernels[:3]
        )
        text += f"; the kernels holding it, per step: {kernels}"
    return text


TEXT = FindingText(
    FindingId.DEVICE_BOUND,
    DeviceBoundFigures,
    Wording(
        "The device is the bottleneck",
        "the device's own work may set the step's pace: a faster host would not"
        " shorten it, less or faster device work may",
        "look at the kernels holding the device (steptrace kernels TRACE), try"
        " lower precision, fused or fewer kernels, or a smaller problem per"
        " step, and compare the step time",
    ),
    lambda figures, _seen: _device_bound_text(figures),
)
