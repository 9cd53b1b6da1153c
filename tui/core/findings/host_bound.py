"""The device waits on the host: a host that cannot keep the device fed.

Weighed by the device's **host wait** (`device_waits.py`) on the device
busiest over the window, per step. The pattern: that host wait is the
largest cause of the device's idle time. Its cost is the host wait per step
outside the data zone (the wait inside it is the data zone's own finding:
costs never count the same time twice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.base.vocab import FindingId, IdleCause
from tui.core.figures.analysis import Analysis
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.device_waits import busiest_device_time, device_waits
from tui.core.findings.finding import (
    Figures,
    Finding,
    ShowStep,
    gpu_not_observed,
    kernels_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of


@dataclass(frozen=True)
class HostBoundFigures(Figures):
    """Per step (medians): how long the device is busy, and why it idles.

    Idle causes are HTA's, read on the device busiest over the window, all
    its streams as one: host wait (the launch came after the device went
    idle), kernel wait (a gap under 30 µs), other.
    """

    steps: int
    step_ns: float
    busy_ns: float
    host_wait_ns: float
    host_wait_in_zone_ns: float
    """The part of the host wait inside the data zone (weighed there, not here)."""
    kernel_wait_ns: float
    other_ns: float
    device: int | str


def host_bound(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """The device waits on the host more than on anything else, per step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.HOST_BOUND, trace)
    waits = device_waits(analysis)
    if waits is None:
        return kernels_not_observed(FindingId.HOST_BOUND)
    host = waits.mean(IdleCause.HOST_WAIT)
    in_zone = float(waits.host_wait_in_zone_ns.mean())
    kernel = waits.mean(IdleCause.KERNEL_WAIT)
    other = waits.mean(IdleCause.OTHER)
    steps = analysis.window_steps
    figures = HostBoundFigures(
        steps=len(steps),
        step_ns=scale.median_step_ns,
        busy_ns=float(waits.busy_ns.mean()),
        host_wait_ns=host,
        host_wait_in_zone_ns=in_zone,
        kernel_wait_ns=kernel,
        other_ns=other,
        device=waits.device,
    )
    status, weight = scale.weigh(
        host > in_zone and host >= max(kernel, other), host - in_zone
    )
    worst = int(np.argmax(waits.idle_ns[IdleCause.HOST_WAIT]))
    time = busiest_device_time(analysis)
    claim = None
    if time is not None:
        host_wait = time[1][IdleCause.HOST_WAIT]
        if analysis.zone_reading.found:
            host_wait = host_wait.subtract(analysis.zone_reading.zone)
        # Every wait on the host: syncs and launches name parts of it.
        claim = Claim(
            host_wait,
            ClaimSpace.DEVICE_IDLE,
            CostBound.HOST_WAIT_OUTSIDE_ZONE,
            umbrella=True,
        )
    return Finding(
        FindingId.HOST_BOUND,
        status,
        figures,
        ShowStep(steps[worst].number) if steps else None,
        weight=weight,
        claim=claim,
    )


RULE = FindingRule(FindingId.HOST_BOUND, HostBoundFigures, (ShowStep,), host_bound)
