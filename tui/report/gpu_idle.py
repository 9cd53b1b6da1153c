"""Why the GPU idles, in words: the causes of stream idle time, largest first."""

from __future__ import annotations

from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import IdleCause
from tui.core.figures.breakdown.idle import GpuIdle, IdleSplit
from tui.report.text import fill

CAUSE_WORDS = {
    IdleCause.HOST_WAIT: "host wait",
    IdleCause.KERNEL_WAIT: "kernel wait",
    IdleCause.OTHER: "other",
}
MEANING = (
    "host wait: the next op was launched after its stream went idle; "
    "kernel wait: a gap under 30 µs between ops; other: the rest; "
    "as HTA's idle breakdown counts them"
)
SHORT_MEANING = "HTA's causes"


def causes_text(split: IdleSplit) -> str:
    """`host wait 59.5%, other 35.7%, kernel wait 4.8%`: shares of the idle time."""
    total = split.idle_ns
    return ", ".join(
        f"{CAUSE_WORDS[cause]} {100.0 * ns / total:.1f}%"
        for cause, ns in split.largest_first()
    )


def idle_sentence(split: IdleSplit) -> str:
    """The whole split in one sentence: how much stream idle time, and its causes."""
    if split.idle_ns <= 0:
        return "no idle time between ops on any stream"
    streams = plural(len(split.streams), "stream")
    return (
        f"{duration_text(split.idle_ns)} between ops over {streams}: "
        f"{causes_text(split)}"
    )


def gpu_idle_lines(idle: GpuIdle | None) -> list[str]:
    """`summary`'s idle lines (none without a split: the GPU line says why)."""
    if idle is None:
        return []
    return fill(f"{idle_sentence(idle.window)} ({SHORT_MEANING})", "idle      ")


def gpu_idle_report_line(idle: GpuIdle | None) -> str | None:
    """The report's sentence on why the GPU idles, with what each cause means."""
    if idle is None:
        return None
    return f"Stream idle time: {idle_sentence(idle.window)} ({MEANING})."


def step_idle_text(split: IdleSplit) -> str:
    """`stream idle 520 µs, host wait 77%`: a step's idle time and its largest cause."""
    if split.idle_ns <= 0:
        return "no stream idle"
    cause, ns = split.largest_first()[0]
    share = 100.0 * ns / split.idle_ns
    return (
        f"stream idle {duration_text(split.idle_ns)}, {CAUSE_WORDS[cause]} {share:.0f}%"
    )
