"""`steptrace queue`: per stream, the device ops launched and not yet started
over time (HTA's queue length), its statistics, the time at a full queue and
the longest drain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.queue import LaunchQueue, StreamQueue
from tui.core.model.observed import gpu_missing_reason


def stream_summary_json(stream: StreamQueue) -> dict[str, Any]:
    """One stream's figures, without its series (the report's `launch_queue`)."""
    stats = stream.stats
    return {
        "stream": stream.stream,
        "device": stream.device,
        "ops": stream.ops,
        "count": stats.count,
        "mean": stats.mean,
        "std": stats.std,
        "min": stats.minimum,
        "p25": stats.p25,
        "p50": stats.p50,
        "p75": stats.p75,
        "max": stats.maximum,
        "negative_points": stream.negative_points,
        "mean_over_time": stream.mean_over_time,
        "full_us": us(stream.full_ns),
        "drain_max_us": us(stream.drain_max_ns),
        "drain_mean_us": us(stream.drain_mean_ns),
    }


def stream_json(stream: StreamQueue) -> dict[str, Any]:
    """One stream's figures and its whole series (µs from the trace's origin)."""
    return {
        **stream_summary_json(stream),
        "t_us": [us(value) for value in stream.time_ns.tolist()],
        "length": stream.length.tolist(),
    }


@dataclass(frozen=True)
class QueueResult:
    """The launch queue of a capture; `queue` None when GPU work was not observed."""

    gpu_observed: bool
    gpu_missing_reason: str | None
    queue: LaunchQueue | None

    @classmethod
    def of(cls, analysis: Analysis) -> QueueResult:
        """Read the launch queue of an analysed trace (steptrace's rules)."""
        trace = analysis.trace
        if not trace.gpu_observed:
            return cls(False, gpu_missing_reason(trace), None)
        return cls(True, None, analysis.launch_queue)

    def to_json(self) -> dict[str, Any]:
        """What `steptrace queue --json` prints."""
        queue = self.queue
        if queue is None:
            return {
                "gpu_observed": False,
                "gpu_missing_reason": self.gpu_missing_reason,
                "rules": None,
                "full_at": None,
                "device_ops": None,
                "counted": None,
                "left_out": None,
                "window_us": None,
                "streams": None,
            }
        return {
            "gpu_observed": True,
            "gpu_missing_reason": None,
            "rules": queue.rules.value,
            "full_at": queue.full_at,
            "device_ops": queue.device_ops,
            "counted": queue.counted,
            "left_out": queue.left_out,
            "window_us": [us(queue.start_ns), us(queue.end_ns)]
            if queue.streams
            else None,
            "streams": [stream_json(stream) for stream in queue.streams],
        }
