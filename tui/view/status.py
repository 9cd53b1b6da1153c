"""The explorer's status line in words: the window, a step, an event, a gap, a match.

Durations read with `duration_text`, positions from the trace start in the
unit of the zoom; a key is offered only where it does something.
"""

from __future__ import annotations

from rich.text import Text

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, size_text
from tui.core.base.vocab import GapKind
from tui.core.figures.analysis import Analysis, Step
from tui.core.figures.memory import devices_of
from tui.core.model.trace import Kind
from tui.report.fit import fit_middle
from tui.view.axis import position_text


def _hint(text: Text, words: str) -> None:
    text.append(f"  {words}", style="italic")


def window_info(analysis: Analysis) -> Text:
    """Events, span, the data zone's gaps (or how to choose a zone), help."""
    trace = analysis.trace
    text = Text()
    text.append(f"{trace.event_count} events", style="bold")
    text.append(f" over {duration_text(trace.span_ns)}")
    gaps = analysis.gaps
    if gaps:
        kind = gaps[0].kind.label
        text.append(f"  {len(gaps):,} gaps ({kind}) in the data zone: g G b")
    elif analysis.zone_reading.found:
        text.append("  no gaps in the data zone")
    else:
        text.append("  no data zone")
        text.append(" (z chooses one)", style="italic")
    _hint(text, "? help")
    return text


def step_info(analysis: Analysis, step: Step) -> Text:
    """A step's duration, device busy time, peak allocated per device (when
    memory was recorded) and zones."""
    text = Text()
    text.append(f"step {step.number}", style="bold")
    text.append(f" ({step.phase.value})  {duration_text(step.duration_ns)}")
    busy = analysis.device_busy_ns(step.start_ns, step.end_ns)
    text.append(
        "  GPU busy " + (duration_text(busy) if busy is not None else "not observed")
    )
    memory = analysis.trace.memory
    if len(memory):  # profile_memory captures: the step's peaks (as steptrace memory)
        devices = devices_of(memory)
        devices.sort(key=lambda device: device.label == "cpu")  # devices first
        text.append("  alloc peak")
        for device in devices:
            peak = device.peak(step.start_ns, step.end_ns)
            if peak is not None:
                text.append(f" {printable(device.label)} ")
                text.append(size_text(peak), style="bold")
    for zone in analysis.zones_in(step.start_ns, step.end_ns)[:4]:
        text.append(f"  {printable(zone.name)} ")
        text.append(duration_text(zone.duration_ns), style="bold")
    return text


def event_info(analysis: Analysis, event: int, span_ns: int) -> Text:
    """An event's name, duration and position; Enter opens its details."""
    trace = analysis.trace
    text = Text()
    text.append(printable(trace.event_name(event)), style="bold")
    text.append(f"  {duration_text(int(trace.duration_ns[event]))}")
    text.append(f"  at {position_text(int(trace.start_ns[event]), span_ns)}")
    launcher = launcher_text(analysis, event)
    if launcher:
        text.append(f"  {launcher}")
    _hint(text, "Enter: details")
    return text


def gap_info(analysis: Analysis, index: int, span_ns: int) -> Text:
    """The figures of one gap, named GPU idle or CPU wait as it is."""
    gaps = analysis.gaps
    gap = gaps[index]
    text = Text()
    text.append(f"gap {index + 1}/{len(gaps):,} ", style="bold")
    if gap.kind is GapKind.GPU_IDLE:
        several = len(analysis.devices) > 1 and gap.device is not None
        device = f" (device {gap.device})" if several else ""
        text.append(" GPU idle" + device + " ", style="bold reverse")
    else:
        text.append(" CPU wait (no GPU events) ", style="bold reverse")
    text.append(" ")
    text.append(duration_text(gap.duration_ns), style="bold")
    text.append(f" at {position_text(gap.start_ns, span_ns)}")
    text.append("  step " + ("—" if gap.step is None else str(gap.step)))
    text.append("  zone ")
    text.append(printable(gap.zone), style="bold")
    return text


def launcher_text(analysis: Analysis, event: int) -> str:
    """For device work: the CPU operator that launched (kernels) or issued (copies,
    sets) it; empty for other events."""
    trace = analysis.trace
    if not trace.device_work_mask[event]:
        return ""
    copy = int(trace.kind[event]) in (Kind.MEMCPY, Kind.MEMSET)
    owner = int(analysis.gpu_owner[event])
    if owner < 0:
        return ("issuing" if copy else "launching") + " operator not in the trace"
    verb = "issued by" if copy else "launched by"
    return f"{verb} {printable(trace.event_name(owner))}"


def mark_info(
    analysis: Analysis, label: str, position: int, count: int, event: int, span_ns: int
) -> Text:
    """Which match (or operator occurrence) is selected, of how many, and where;
    device work names its operator before its own (long) name."""
    trace = analysis.trace
    text = Text()
    text.append(f"{label} ", style="bold")
    text.append(f"{position + 1}/{count:,}  ")
    launcher = launcher_text(analysis, event)
    if launcher:
        text.append(launcher + "  ", style="bold")
    else:
        text.append(printable(trace.event_name(event)) + "  ")
    text.append(duration_text(int(trace.duration_ns[event])))
    text.append(f" at {position_text(int(trace.start_ns[event]), span_ns)}")
    _hint(text, "n/N next  Enter details")
    if launcher:
        text.append("  " + printable(trace.event_name(event)))
    return text


def zone_info(analysis: Analysis) -> Text:
    """What choosing a data zone changed, in one line."""
    choice = analysis.zone_choice
    text = Text()
    text.append("zone ", style="bold")
    names = printable(choice.label()) if choice.names else "none found"
    text.append(fit_middle(names, 30, head=14))
    gaps = analysis.gaps
    if gaps:
        text.append(
            f": {len(gaps):,} gaps ({gaps[0].kind.label}), "
            f"{duration_text(analysis.total_gap_ns)} of "
            f"{duration_text(analysis.total_zone_ns)}"
        )
        _hint(text, "g G b")
    elif analysis.zone_reading.found:
        text.append(f": no gaps in {duration_text(analysis.total_zone_ns)}")
    else:
        text.append(": occurs nowhere in this capture")
    return text
