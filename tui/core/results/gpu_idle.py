"""The JSON of a capture's idle split (`gpu_idle` in `summary --json` and the report)."""

from __future__ import annotations

from typing import Any

from tui.core.base.units import us
from tui.core.base.vocab import IdleCause
from tui.core.figures.analysis import Analysis
from tui.core.figures.breakdown.gpu import KERNEL_WAIT_NS
from tui.core.figures.breakdown.idle import GpuIdle, IdleSplit
from tui.core.model.observed import gpu_missing_reason

NO_STREAM_OPS = (
    "no kernel, copy or set carries a stream argument "
    "(HTA's idle breakdown reads only those)"
)


def gpu_idle_missing_reason(analysis: Analysis) -> str | None:
    """Why a capture has no idle split (None when it has one)."""
    if analysis.gpu_idle is not None:
        return None
    return gpu_missing_reason(analysis.trace) or NO_STREAM_OPS


def split_json(split: IdleSplit) -> dict[str, Any]:
    """One window's split: summed over streams, then per stream (µs)."""
    return {
        "host_wait_us": us(split.cause_ns(IdleCause.HOST_WAIT)),
        "kernel_wait_us": us(split.cause_ns(IdleCause.KERNEL_WAIT)),
        "other_us": us(split.cause_ns(IdleCause.OTHER)),
        "idle_us": us(split.idle_ns),
        "streams": [
            {
                "device": part.device,
                "stream": part.stream,
                "host_wait_us": us(part.host_wait_ns),
                "kernel_wait_us": us(part.kernel_wait_ns),
                "other_us": us(part.other_ns),
                "idle_us": us(part.idle_ns),
            }
            for part in split.streams
        ],
    }


def gpu_idle_json(idle: GpuIdle | None) -> dict[str, Any] | None:
    """`gpu_idle` as documented in docs/commands.md; None without a split."""
    if idle is None:
        return None
    return {
        "rules": "hta",
        "kernel_wait_below_us": us(KERNEL_WAIT_NS),
        "window": split_json(idle.window),
        "steps": [{"step": step.step, **split_json(step.split)} for step in idle.steps],
    }
