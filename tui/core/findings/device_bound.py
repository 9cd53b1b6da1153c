"""The device is the bottleneck: busy most of the step while the host runs ahead.

Read on the device busiest over the window (`figures/device_load.py`): its
busy share of the step (the union over its streams), its launch-queue depth
and the kernels holding its time. The pattern is a saturated device (busy
at least `SATURATED_SHARE` of the step, the host running ahead: ops wait
in the queue), and it is then `likely`; busy that much with the host not
ahead is `possible` (the device is busy, but the host may still set the
pace). Its cost is the device's busy time per step: the bound of what
shrinking the device's work could give back. It claims that busy time as a
whole (an umbrella claim): findings naming a part of it (Tensor Cores, a
dominant operator's kernels, copies) claim first, it keeps the rest. On
such a step host-side readings hold little: the device idles little.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.device_load import SATURATED_SHARE, DeviceLoad, device_load
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.device_waits import step_windows
from tui.core.findings.finding import (
    Figures,
    Finding,
    ShowKernel,
    gpu_not_observed,
    kernels_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of


@dataclass(frozen=True)
class DeviceBoundFigures(Figures):
    """The busiest device over the window steps (medians over the steps).

    `busy_share` is the union of its work over the step's length;
    `queue_depth` its launched-but-not-started ops averaged over the step
    (None: no launch known); `top_kernels` the work holding its time, as
    (name, time per step), most first.
    """

    device: int | None
    steps: int
    busy_share: float
    busy_ns_per_step: float
    queue_depth: float | None
    launch_lead_ns: int | None
    host_ahead: bool
    saturated: bool
    top_kernels: tuple[tuple[str, float], ...] = ()


def busiest_load(analysis: Analysis) -> DeviceLoad | None:
    """The load of the device busiest over the window (None without device work),
    read once per analysis."""
    loads = analysis.memo(device_load)
    if not loads:
        return None
    return max(loads, key=lambda load: (load.busy_share_median, str(load.device)))


def device_bound(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """A device busy most of the step while the host runs ahead."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.DEVICE_BOUND, trace)
    load = busiest_load(analysis)
    if load is None:
        return kernels_not_observed(FindingId.DEVICE_BOUND)
    busy = analysis.busy_by_device.get(load.device)
    starts, ends = step_windows(analysis)
    busy_ns = 0.0 if busy is None else float(busy.covered_in(starts, ends).mean())
    figures = DeviceBoundFigures(
        device=load.device,
        steps=len(analysis.window_steps),
        busy_share=load.busy_share_median,
        busy_ns_per_step=busy_ns,
        queue_depth=load.queue_depth_median,
        launch_lead_ns=load.launch_lead_median_ns,
        host_ahead=load.host_ahead,
        saturated=load.saturated,
        top_kernels=tuple(
            (kernel.name, kernel.ns_per_step) for kernel in load.top_kernels
        ),
    )
    busy_most = load.busy_share_median >= SATURATED_SHARE
    if not busy_most or busy is None:
        return Finding(FindingId.DEVICE_BOUND, FindingStatus.NOT_SEEN, figures)
    status, weight = scale.weigh(True, busy_ns)
    if not load.saturated and status is FindingStatus.LIKELY:
        status = FindingStatus.POSSIBLE
    top = load.top_kernels[0].name if load.top_kernels else None
    return Finding(
        FindingId.DEVICE_BOUND,
        status,
        figures,
        None if top is None else ShowKernel(top),
        weight=weight,
        claim=Claim(busy, ClaimSpace.DEVICE_WORK, CostBound.DEVICE_BUSY, umbrella=True),
    )


RULE = FindingRule(
    FindingId.DEVICE_BOUND, DeviceBoundFigures, (ShowKernel,), device_bound
)
