"""Why the GPU idles, for one capture: host wait, kernel wait and other, per stream, per step.

HTA 0.5.0's idle time breakdown (tests/fixtures/hta/DEFINITIONS.md §7),
read from the same rows and the same gaps as the ranks' breakdowns
(`gpu.idle_by_cause` over `rows.hta_rows`): a gap before an op on its
stream is host wait when the op's launching call started after the
stream went idle, else kernel wait when shorter than 30 µs, else other.

The window is HTA's whole capture (include_last_profiler_step=True never
clips, §10.1); HTA sums negative gaps (overlapping ops on one stream) into
kernel wait there, as it does. A step holds the part of each gap inside it,
with the cause of the whole gap, so a step's figures are never negative.
Streams idle at the same moment each count: the split is of stream time,
not of device time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.core.base.vocab import IdleCause

if TYPE_CHECKING:  # the split's types are read without the code that computes it
    from tui.core.figures.breakdown.gpu import StreamIdle
    from tui.core.model.steps import Step
    from tui.core.model.trace import Trace

CAUSES = (IdleCause.HOST_WAIT, IdleCause.KERNEL_WAIT, IdleCause.OTHER)


@dataclass(frozen=True)
class StreamIdleSplit:
    """One stream's idle time by cause, in ns (kernel wait may be negative, as in HTA)."""

    device: int | None
    stream: int | str
    host_wait_ns: int
    kernel_wait_ns: int
    other_ns: int

    @property
    def idle_ns(self) -> int:
        """The three causes together."""
        return self.host_wait_ns + self.kernel_wait_ns + self.other_ns


@dataclass(frozen=True)
class IdleSplit:
    """The idle split of one window: per stream, and summed over streams."""

    streams: tuple[StreamIdleSplit, ...]

    def cause_ns(self, cause: IdleCause) -> int:
        """One cause's time summed over streams."""
        field = {
            IdleCause.HOST_WAIT: "host_wait_ns",
            IdleCause.KERNEL_WAIT: "kernel_wait_ns",
            IdleCause.OTHER: "other_ns",
        }[cause]
        return sum(int(getattr(part, field)) for part in self.streams)

    @property
    def idle_ns(self) -> int:
        """All streams' idle time, every cause."""
        return sum(part.idle_ns for part in self.streams)

    def largest_first(self) -> list[tuple[IdleCause, int]]:
        """(cause, ns) from the largest cause to the smallest (ties in HTA's order)."""
        return sorted(
            ((cause, self.cause_ns(cause)) for cause in CAUSES),
            key=lambda part: -part[1],
        )


@dataclass(frozen=True)
class StepIdle:
    """One step's idle split."""

    step: int
    split: IdleSplit


@dataclass(frozen=True)
class GpuIdle:
    """The idle split over the whole capture and in each step."""

    window: IdleSplit
    steps: tuple[StepIdle, ...]

    def step(self, number: int) -> IdleSplit | None:
        """The split of the step with this number, if there is one."""
        for step in self.steps:
            if step.step == number:
                return step.split
        return None


def _split(
    parts: Sequence[StreamIdle], devices: dict[int | str, int | None]
) -> IdleSplit:
    """Per-(stream, cause) parts gathered into one row per stream, in stream order."""
    by_stream: dict[int | str, dict[IdleCause, int]] = {}
    for part in parts:
        causes = by_stream.setdefault(part.stream, {})
        causes[part.cause] = causes.get(part.cause, 0) + part.ns
    return IdleSplit(
        tuple(
            StreamIdleSplit(
                devices.get(stream),
                stream,
                causes.get(IdleCause.HOST_WAIT, 0),
                causes.get(IdleCause.KERNEL_WAIT, 0),
                causes.get(IdleCause.OTHER, 0),
            )
            for stream, causes in by_stream.items()
        )
    )


def gpu_idle(trace: Trace, steps: Sequence[Step]) -> GpuIdle | None:
    """The idle split of a capture and of each step; None without any device op HTA reads."""
    from tui.core.figures.breakdown.gpu import idle_by_cause, idle_in_windows
    from tui.core.figures.breakdown.rows import hta_rows

    rows = hta_rows(trace)
    if len(rows) == 0 or not rows.idle_rows.any():
        return None
    whole, gaps = idle_by_cause(rows)
    devices = dict(zip(rows.streams, rows.stream_device, strict=True))
    per_step = idle_in_windows(
        gaps, [step.start_ns for step in steps], [step.end_ns for step in steps]
    )
    return GpuIdle(
        _split(whole, devices),
        tuple(
            StepIdle(step.number, _split(parts, devices))
            for step, parts in zip(steps, per_step, strict=True)
        ),
    )
