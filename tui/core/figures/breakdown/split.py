"""A device's span split into disjoint parts: compute, communication, memory, other, idle.

Read from a `Breakdown`'s kernel types (time split by the exact set of
classes running), so the parts never overlap and add up to the span:
time when computation runs is compute, whatever else runs with it; of the
rest, time with communication is communication, then time with copies or
sets is memory; device work of no class (HTA's syncs) is other; the rest
of the span is idle. The ranks screen draws it as one bar per rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.base.vocab import KernelType
from tui.core.figures.breakdown.gpu import Breakdown
from tui.core.figures.kernel_types import OVERLAPPING

PART_NAMES = ("compute", "communication", "memory", "other", "idle")


@dataclass(frozen=True)
class DeviceSplit:
    """Disjoint parts of a device's span, in ns; they add up to `span_ns`."""

    span_ns: int
    compute_ns: int
    communication_ns: int
    memory_ns: int
    other_ns: int
    idle_ns: int

    @classmethod
    def of(cls, breakdown: Breakdown) -> DeviceSplit:
        """Split a breakdown's span by priority: compute, communication, memory."""
        communication = memory = 0
        for part in breakdown.kernel_types:
            classes = set(part.label.split(OVERLAPPING))
            if KernelType.COMPUTATION.value in classes:
                continue
            if KernelType.COMMUNICATION.value in classes:
                communication += part.ns
            elif KernelType.MEMORY.value in classes:
                memory += part.ns
        compute = breakdown.compute_ns
        other = max(breakdown.busy_ns - compute - communication - memory, 0)
        return cls(
            breakdown.span_ns,
            compute,
            communication,
            memory,
            other,
            breakdown.idle_ns,
        )

    def parts(self) -> list[tuple[str, int]]:
        """(name, ns) of each part, in `PART_NAMES` order."""
        return list(
            zip(
                PART_NAMES,
                (
                    self.compute_ns,
                    self.communication_ns,
                    self.memory_ns,
                    self.other_ns,
                    self.idle_ns,
                ),
                strict=True,
            )
        )

    def share(self, ns: int) -> float:
        """A part's share of the span, in %."""
        return 100.0 * ns / self.span_ns if self.span_ns > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """Each part in µs and in % of the span."""
        return {
            "span_us": us(self.span_ns),
            **{f"{name}_us": us(ns) for name, ns in self.parts()},
            **{f"{name}_pct": self.share(ns) for name, ns in self.parts()},
        }
