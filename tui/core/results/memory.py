"""`steptrace memory`: peak allocated per device and step, and bytes per operator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import DeviceMemory, MemoryReading
from tui.core.figures.memory_timeline import DeviceTimeline, memory_timeline
from tui.core.results.memory_timeline import timeline_json

NO_LEVEL_REASON = (
    "its [memory] events carry neither Total Allocated nor Bytes: "
    "no allocated level can be read or rebuilt"
)


@dataclass(frozen=True)
class MemoryResult:
    """The memory of a capture; `reading` None when it holds no memory event."""

    reading: MemoryReading | None
    memory_option: bool | None  # what the capture description says about profile_memory
    timeline: list[DeviceTimeline] | None = None  # asked with --timeline

    @classmethod
    def of(cls, analysis: Analysis, timeline: bool = False) -> MemoryResult:
        """Read the memory events of an analysed trace (and, asked, each device
        over the window)."""
        trace = analysis.trace
        option = trace.capture.options.profile_memory
        if option is None and trace.metadata and "profile_memory" in trace.metadata:
            option = bool(trace.metadata.get("profile_memory"))
        series = memory_timeline(analysis) if timeline else None
        return cls(MemoryReading.of(analysis), option, series)

    def to_json(self) -> dict[str, Any]:
        """What `steptrace memory --json` prints."""
        document = self._json()
        if self.timeline is not None:
            document["timeline"] = timeline_json(self.timeline)
        return document

    def _json(self) -> dict[str, Any]:
        reading = self.reading
        if reading is None:
            return {
                "recorded": False,
                "devices": None,
                "peak_bytes": None,
                "peak_source": None,
                "peak_missing_reason": None,
                "steps": None,
                "ops": None,
            }
        ops = reading.ops
        device = reading.has_device_memory
        return {
            "recorded": True,
            "devices": [item.label for item in reading.devices],
            "peak_bytes": reading.peak,
            "peak_source": {
                item.label: None if item.source is None else item.source.value
                for item in reading.devices
            },
            "peak_missing_reason": {
                item.label: peak_missing_reason(item) for item in reading.devices
            },
            "steps": [
                {"step": number, "phase": phase, "peak_bytes": peaks}
                for number, phase, peaks in reading.steps
            ],
            "ops": [
                {
                    "name": ops.names[row],
                    "calls": int(ops.calls[row]),
                    "self_bytes": int(ops.self_cpu[row]),
                    "total_bytes": int(ops.total_cpu[row]),
                    "self_device_bytes": int(ops.self_device[row]) if device else None,
                    "total_device_bytes": int(ops.total_device[row])
                    if device
                    else None,
                }
                for row in ops.order().tolist()
            ],
        }


def peak_missing_reason(device: DeviceMemory) -> str | None:
    """Why a device's allocated level is unknown (None when it is read or rebuilt)."""
    return NO_LEVEL_REASON if device.source is None else None
