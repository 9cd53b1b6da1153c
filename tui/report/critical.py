"""`steptrace critical` in words: the path's time and what bounds it, per step."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.critical import BoundBy, CriticalPath
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


def critical_line(path: CriticalPath, where: str) -> str:
    """One line for the explorer: the path's time and its classes' shares."""
    shares = ", ".join(
        f"{HEADS[kind]} {path.share(kind) or 0.0:.1f} %"
        for kind, ns in path.bound_ns
        if ns
    )
    return f"critical path of {where}: {duration_text(path.path_ns)} — {shares}"


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
    shown = shown or paths.window
    if shown is not None and shown.top:
        lines.append("")
        lines.append(f"most of {where}'s path:")
        lines.extend(_top(shown))
    return "\n".join(lines)
