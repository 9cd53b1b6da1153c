"""`steptrace memory`: peak allocated per device and step, and bytes per operator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import size_text
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import MemoryReading
from tui.core.results.text import TEXT_WIDTH, distinct_cuts, fill

_CELL = 11
# Operator rows in text (JSON has them all).
TEXT_OPS = 30


def signed_size(count: int | None) -> str:
    """A byte count that may be negative (frees), or "–" when unknown."""
    if count is None:
        return "–"
    return ("-" if count < 0 else "") + size_text(abs(count))


@dataclass(frozen=True)
class MemoryResult:
    """The memory of a capture; `reading` None when it holds no memory event."""

    reading: MemoryReading | None
    memory_option: bool | None  # what the capture description says about profile_memory

    @classmethod
    def of(cls, analysis: Analysis) -> MemoryResult:
        """Read the memory events of an analysed trace."""
        trace = analysis.trace
        option = trace.capture.options.profile_memory
        if option is None and trace.metadata and "profile_memory" in trace.metadata:
            option = bool(trace.metadata.get("profile_memory"))
        return cls(MemoryReading.of(analysis), option)

    def to_json(self) -> dict[str, Any]:
        """What `steptrace memory --json` prints."""
        reading = self.reading
        if reading is None:
            return {
                "recorded": False,
                "devices": None,
                "peak_bytes": None,
                "steps": None,
                "ops": None,
            }
        ops = reading.ops
        device = reading.has_device_memory
        return {
            "recorded": True,
            "devices": [item.label for item in reading.devices],
            "peak_bytes": reading.peak,
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

    def to_text(self) -> str:
        """Peaks, per step, and the operators that allocated, at 80 columns."""
        reading = self.reading
        if reading is None:
            why = (
                "the capture says profile_memory was on, yet the trace holds none"
                if self.memory_option
                else "capture with memory on to see them (steptrace capture "
                "--profile-memory, or profile_memory=True): tracking every "
                "allocation adds cost"
            )
            return "\n".join(fill(f"memory: not recorded — no [memory] events; {why}"))
        labels = [device.label for device in reading.devices]
        scope = (
            f"the window ({reading.window_steps} steps)"
            if reading.window
            else "the whole trace (no steps)"
        )
        peaks = ", ".join(
            f"{label} {signed_size(value)}" for label, value in reading.peak.items()
        )
        lines = fill(f"peak allocated over {scope}: {peaks}", "memory    ")
        if reading.steps:
            header = f"{'step':>8} {'phase':<8} " + " ".join(
                f"{label[:12]:>12}" for label in labels
            )
            lines += ["", "peak allocated per step (counting the level it starts at)"]
            lines.append(header)
            for number, phase, step_peaks in reading.steps:
                cells = " ".join(
                    f"{signed_size(step_peaks[label]):>12}" for label in labels
                )
                lines.append(f"{number:>8} {phase:<8} {cells}")
        ops = reading.ops
        rows = ops.order().tolist()
        shown = rows[:TEXT_OPS]
        device = reading.has_device_memory
        columns = 4 if device else 2
        w = TEXT_WIDTH - 7 - columns * (_CELL + 1)
        header = (
            f"{'name':<{w}} {'calls':>6} {'self CPU':>{_CELL}} {'total CPU':>{_CELL}}"
        )
        if device:
            header += f" {'self dev':>{_CELL}} {'total dev':>{_CELL}}"
        lines += [
            "",
            "allocated per operator, as key_averages() (self: net of its children)",
            header,
        ]
        names = distinct_cuts([printable(ops.names[row]) for row in shown], w)
        for name, row in zip(names, shown, strict=True):
            line = (
                f"{name:<{w}} {int(ops.calls[row]):>6} "
                f"{signed_size(int(ops.self_cpu[row])):>{_CELL}} "
                f"{signed_size(int(ops.total_cpu[row])):>{_CELL}}"
            )
            if device:
                line += (
                    f" {signed_size(int(ops.self_device[row])):>{_CELL}}"
                    f" {signed_size(int(ops.total_device[row])):>{_CELL}}"
                )
            lines.append(line)
        if len(rows) > len(shown):
            lines.append(f"… {len(rows) - len(shown)} more (--json)")
        if not device:
            lines += fill("device memory: not observed (no device memory events)")
        return "\n".join(lines)
