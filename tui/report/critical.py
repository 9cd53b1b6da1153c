"""`steptrace critical` in words: the path's time and what bounds it, per step."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.critical import (
    AdjustedPath,
    BoundBy,
    Correction,
    CriticalPath,
    PathFlag,
)
from tui.core.results.critical import CriticalResult
from tui.report.text import cut_middle, fill, more_steps_line

# Column heads of the classes, in BoundBy's order.
HEADS = {
    BoundBy.CPU: "cpu",
    BoundBy.GPU_COMPUTE: "compute",
    BoundBy.GPU_COMMUNICATION: "comm",
    BoundBy.KERNEL_KERNEL: "k→k gap",
    BoundBy.LAUNCH: "launch",
}
TEXT_STEPS = 40
CORRECTIONS = {
    Correction.ANNOTATIONS: "step and user annotations",
    Correction.AUTOGRAD_THREAD: "autograd thread joined",
    Correction.OTHER_STREAMS: "gaps other streams filled",
}
FLAGS = {
    PathFlag.LOW_COVERAGE: "covers little of the window",
    PathFlag.CPU_BOUND_ON_BUSY_DEVICE: "cpu-bound on a busy device",
}
DEFINITIONS = (
    "HTA 0.5.0's critical path: the longest chain of dependent work (a thread's"
    " operators in order, launch → kernel, a stream's kernels in order, the"
    " kernel a synchronising call waits for). cpu: operators' time; compute:"
    " kernels' (comm: NCCL kernels'); k→k gap: between two kernels of a stream;"
    " launch: from a launch call to its kernel's start."
)


def _share(path: CriticalPath, kind: BoundBy) -> str:
    share = path.share(kind)
    return "–" if share is None else f"{share:.1f} %"


def _row(label: str, path: CriticalPath | None, refused: str | None) -> str:
    if path is None:
        return f"{label:<8} no path: {printable(str(refused))}"
    shares = " ".join(f"{_share(path, kind):>8}" for kind in HEADS)
    return f"{label:<8} {duration_text(path.path_ns):>10} {shares}"


def _top(path: CriticalPath) -> list[str]:
    return [
        f"  {duration_text(part.ns):>10}  {HEADS[part.bound_by]:<8} "
        + cut_middle(printable(part.name), 56)
        for part in path.top
    ]


def _time_and_shares(path: CriticalPath) -> str:
    shares = ", ".join(
        f"{HEADS[kind]} {path.share(kind) or 0.0:.1f} %"
        for kind, ns in path.bound_ns
        if ns
    )
    return f"{duration_text(path.path_ns)} — {shares}"


def critical_line(path: CriticalPath, where: str) -> str:
    """One line for the explorer: the path's time and its classes' shares."""
    return f"critical path of {where}: {_time_and_shares(path)}"


def adjusted_line(adjusted: AdjustedPath) -> str:
    """One line: the adjusted path's time and shares, what was corrected (with
    the path time each moved) and how much of the window the path covers."""
    line = _time_and_shares(adjusted.path)
    corrected = ", ".join(
        f"{CORRECTIONS[item.correction]} {duration_text(item.moved_ns)}"
        for item in adjusted.corrected
    )
    cover = (
        ""
        if adjusted.coverage is None
        else f"; covers {adjusted.coverage * 100:.0f} % of the window"
    )
    return f"adjusted: {line}; corrected: {corrected or 'nothing'}{cover}"


def _flag_lines(adjusted: AdjustedPath) -> list[str]:
    """What flags each reading, with the device's busy share."""
    busy = adjusted.device_busy_share
    busy_text = "" if busy is None else f" (device busy {busy * 100:.0f} %)"
    lines = []
    for reading, flags in (("HTA's", adjusted.hta_flags), ("adjusted", adjusted.flags)):
        if flags:
            said = ", ".join(FLAGS[flag] for flag in flags)
            lines.append(f"  {reading} reading: {said}{busy_text}")
    return lines


def critical_text(result: CriticalResult) -> str:
    """The window's path and split, each step's, and what holds most of it."""
    paths = result.paths
    if paths is None:
        reason = printable(str(result.gpu_missing_reason))
        return "\n".join(fill("critical path: not observed — " + reason, "", "  "))
    lines = fill(DEFINITIONS, "", "")
    lines.append("")
    head = " ".join(f"{name:>8}" for name in HEADS.values())
    lines.append(f"{'':<8} {'path':>10} {head}")
    label = "capture" if paths.whole_capture else "window"
    lines.append(_row(label, paths.window, paths.window_refused))
    for step in paths.steps[:TEXT_STEPS]:
        lines.append(_row(f"step {step.number}", step.path, step.refused))
    lines.extend(more_steps_line(len(paths.steps), TEXT_STEPS))
    if paths.whole_capture:
        lines.append("  (no ProfilerStep: the whole capture is the window)")
    shown = paths.steps[0].path if result.step is not None and paths.steps else None
    where = f"step {result.step}" if shown is not None else f"the {label}"
    adjusted = (
        paths.steps[0].adjusted
        if result.step is not None and paths.steps
        else paths.window_adjusted
    )
    if adjusted is not None:
        lines.append("")
        lines.append(adjusted_line(adjusted))
        lines.extend(_flag_lines(adjusted))
    shown = shown or paths.window
    if adjusted is not None and adjusted.path.top:
        lines.append("")
        lines.append(f"most of {where}'s adjusted path:")
        lines.extend(_top(adjusted.path))
    elif shown is not None and shown.top:
        lines.append("")
        lines.append(f"most of {where}'s path:")
        lines.extend(_top(shown))
    return "\n".join(lines)
