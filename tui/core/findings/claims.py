"""What a finding claims: the time of the step it could give back, as a set.

Costs are made disjoint from claims (`ranking.py`): each finding names the
wall-clock intervals its cost lives in (device idle in the data zone, the
idle after syncs, the kernels it counts, ...), and a finding ranked below
another keeps only what its claim holds beyond the claims ranked above it.
Types only: each rule builds its own claim beside its figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, Word


class ClaimSpace(Word):
    """Where a claim's time lives: device idle, device work, or host time."""

    DEVICE_IDLE = "device_idle"
    DEVICE_WORK = "device_work"
    HOST = "host"


class CostBound(Word):
    """How a finding's cost was bounded (the report words each)."""

    DEVICE_IDLE_IN_ZONE = "device_idle_in_zone"
    """The device idle inside the data zone, per step."""
    UNTRACED_IN_ZONE = "untraced_in_zone"
    """The data zone's time outside any traced operator, per step (no device events)."""
    HOST_WAIT_OUTSIDE_ZONE = "host_wait_outside_zone"
    """The device's host wait outside the data zone, per step."""
    LAUNCH_WAITS = "launch_waits"
    """The launch calls' host time, at most the device's waits on the host and
    between kernels."""
    IDLE_AFTER_SYNCS = "idle_after_syncs"
    """The device idle after each sync until new work arrives."""
    COPY_TIME = "copy_time"
    """The copies' device time."""
    OPERATOR_TIME = "operator_time"
    """The operator's self time (its kernels' time on the device clock)."""
    TENSOR_CORE_SPEEDUP = "tensor_core_speedup"
    """Eligible kernels' time off Tensor Cores at a 2x speed-up: an upper bound."""
    DEVICE_IDLE = "device_idle"
    """The step's device idle: shortening the host's chain gives back at most that."""
    DEVICE_BUSY = "device_busy"
    """The device's busy time, less the parts findings above name."""
    COMPILE_TIME = "compile_time"
    """torch.compile's compile time inside the window's steps."""


# Tensor Cores: the speed-up the upper bound assumes (half the kernel time back).
TENSOR_CORE_SPEEDUP = 2.0


@dataclass(frozen=True)
class Claim:
    """The time a finding could give back: wall-clock intervals (clipped to the
    window's steps when ranked), the part of them it could give back (`scale`:
    0.5 at a 2x speed-up), and how that bounds its cost.

    `umbrella`: it holds a whole kind of time (the device's busy time, its
    idle waiting on the host, the step's device idle), so findings naming a
    part of it claim first and it keeps the rest (`ranking.py`).
    """

    time: Intervals
    space: ClaimSpace
    how: CostBound
    scale: float = 1.0
    umbrella: bool = False


@dataclass(frozen=True)
class Bounded:
    """How a finding's cost was bounded, per step.

    `read_ns_per_step` is the cost its own figures give; `held_ns_per_step`
    the part of its claim that findings ranked above already hold (`held_by`);
    `capped_ns_per_step` what was cut so that the costs ranked so far stay
    within the median step. `how` is None for a finding without a claim
    (its cost as read, capped only).
    """

    how: CostBound | None
    read_ns_per_step: float
    held_ns_per_step: float = 0.0
    held_by: tuple[FindingId, ...] = ()
    capped_ns_per_step: float = 0.0
