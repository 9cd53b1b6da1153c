"""`steptrace memory` in words: peaks, per step, and the operators that allocated."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import size_text
from tui.core.base.vocab import AllocatedSource
from tui.core.figures.memory import MemoryReading
from tui.core.results.memory import MemoryResult, peak_missing_reason
from tui.report.fit import fit_end, pad_end
from tui.report.memory_timeline import timeline_lines
from tui.report.text import TEXT_WIDTH, distinct_cuts, fill

_CELL = 11
# Operator rows in text (JSON has them all).
TEXT_OPS = 30


def memory_text(result: MemoryResult) -> str:
    """Peaks, per step, and the operators that allocated, at 80 columns."""
    reading = result.reading
    if reading is None:
        why = (
            "the capture says profile_memory was on, yet the trace holds none"
            if result.memory_option
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
        f"{label} {'unknown' if value is None else signed_size(value)}"
        for label, value in reading.peak.items()
    )
    lines = fill(f"peak allocated over {scope}: {peaks}", "memory    ")
    lines += _source_lines(reading)
    if result.timeline is not None:
        lines += timeline_lines(result.timeline, scope)
    if reading.steps:
        header = f"{'step':>8} {'phase':<8} " + " ".join(
            f"{fit_end(label, 12):>12}" for label in labels
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
    header = f"{'name':<{w}} {'calls':>6} {'self CPU':>{_CELL}} {'total CPU':>{_CELL}}"
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
            f"{pad_end(name, w)} {int(ops.calls[row]):>6} "
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


def signed_size(count: int | None) -> str:
    """A byte count that may be negative (frees), or "–" when unknown."""
    if count is None:
        return "–"
    return ("-" if count < 0 else "") + size_text(abs(count))


def _source_lines(reading: MemoryReading) -> list[str]:
    """Where the levels come from, when not the allocator's own totals: rebuilt
    from the running sum of Bytes, or unknown and why."""
    rebuilt = [
        device.label
        for device in reading.devices
        if device.source is AllocatedSource.RUNNING_SUM
    ]
    lines: list[str] = []
    if rebuilt:
        lines += fill(
            f"{', '.join(rebuilt)}: no Total Allocated in this trace (PyTorch 1.9 "
            "wrote none); allocated bytes rebuilt from the running sum of Bytes "
            "since the capture began (memory allocated before it is not seen)",
            "          ",
        )
    for device in reading.devices:
        reason = peak_missing_reason(device)
        if reason is not None:
            lines += fill(f"{device.label} unknown: {reason}", "          ")
    return lines
