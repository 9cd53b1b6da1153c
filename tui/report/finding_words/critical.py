"""The critical path's words: what bounds the step, and its largest overhead."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import FindingId
from tui.core.figures.critical import BoundBy, Correction, PathFlag
from tui.core.findings.critical import CriticalPathFigures
from tui.report.finding_words.wording import FindingText, Wording, over_steps

BOUND_WORDS = {
    BoundBy.CPU: "CPU-bound",
    BoundBy.GPU_COMPUTE: "GPU-bound",
    BoundBy.GPU_COMMUNICATION: "communication-bound",
    BoundBy.KERNEL_KERNEL: "bound by gaps between kernels",
    BoundBy.LAUNCH: "launch-bound",
}


# By its largest overhead class: hypothesis, next check.
_CRITICAL_WORDS = {
    BoundBy.CPU: (
        "the host's operators on the critical path may hold the step: the device"
        " waits for the work they issue",
        "read the operators on the path (steptrace critical TRACE --step N), cut"
        " host work there (torch.compile, fewer synchronisations, a larger"
        " batch) and compare the step time",
    ),
    BoundBy.LAUNCH: (
        "kernels on the critical path may wait between their launch call and"
        " their start: launching, not computing, may hold the step",
        "group the launches on the path (CUDA graphs, torch.compile fusion) and"
        " compare the step time (steptrace critical TRACE --step N lists them)",
    ),
    BoundBy.KERNEL_KERNEL: (
        "gaps between consecutive kernels of a stream on the critical path may"
        " hold the step",
        "read what the stream waits for between those kernels (steptrace"
        " critical TRACE --step N, steptrace queue TRACE), fuse them or capture"
        " them in a CUDA graph, and compare the step time",
    ),
}


def _reword(figures: CriticalPathFigures, seen: bool, wording: Wording) -> Wording:
    """The title says what bounds the step; the rest follows its largest overhead."""
    hypothesis, next_check = _CRITICAL_WORDS.get(
        figures.overhead, (wording.hypothesis, wording.next_check)
    )
    title = f"The step is {BOUND_WORDS[figures.bound_by]} (critical path)"
    return Wording(title, hypothesis, next_check)


_CORRECTED = {
    Correction.ANNOTATIONS: "step and user annotations not read as CPU work",
    Correction.AUTOGRAD_THREAD: "the autograd thread joined to the forward",
    Correction.OTHER_STREAMS: "gaps other streams or CUDA graphs filled read as work",
}


def _caveats(figures: CriticalPathFigures) -> str:
    """What the reading corrected in HTA's, and why it may not be taken at its word."""
    parts = []
    if figures.corrected:
        done = "; ".join(_CORRECTED[correction] for correction in figures.corrected)
        parts.append(f"read with HTA's path corrected ({done})")
    if PathFlag.LOW_COVERAGE in figures.flags and figures.coverage is not None:
        parts.append(
            f"the path covers only {figures.coverage:.0%} of the step: other work"
            " decides the rest, so this is possible at most"
        )
    if PathFlag.CPU_BOUND_ON_BUSY_DEVICE in figures.flags:
        parts.append(
            "the path reads CPU-bound on a device busy most of the step: the two"
            " disagree, so this is possible at most"
        )
    if figures.saturated:
        parts.append(
            "the device is saturated (the host runs ahead): gaps and launch delays"
            " are not read as what bounds the step"
        )
    if not figures.window_agrees and figures.window_bound_by is not None:
        parts.append(
            f"over the whole window the path is {BOUND_WORDS[figures.window_bound_by]}:"
            " it crosses steps and joins work one step alone does not, so the"
            " per-step reading is the one weighed"
        )
    return "".join(f"; {part}" for part in parts)


def _critical_text(figures: CriticalPathFigures) -> str:
    scope = over_steps(figures.steps)
    shares = ", ".join(
        f"{kind.value} {share:.1f} %" for kind, share in figures.shares if share
    )
    text = (
        f"the critical path {scope} is {duration_text(figures.path_ns_per_step)}"
        f" per step ({shares}): the step is {BOUND_WORDS[figures.bound_by]};"
        f" its largest overhead is {figures.overhead.value},"
        f" {duration_text(figures.overhead_ns_per_step)} per step"
    )
    if figures.top is not None:
        text += f", most of it in {printable(figures.top)}"
    return text + _caveats(figures)


TEXT = FindingText(
    FindingId.CRITICAL_PATH,
    CriticalPathFigures,
    Wording(
        "What bounds the step (critical path)",
        "overhead on the step's longest chain of dependent work may hold it",
        "read the step's critical path (steptrace critical TRACE --step N) and"
        " compare the step time after shortening its largest overhead",
    ),
    lambda figures, _seen: _critical_text(figures),
    _reword,
)
