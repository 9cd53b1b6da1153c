"""The explorer's status line in words: the window, a step, an event, a gap, a match.

Durations read with `duration_text`, positions from the trace start in the
unit of the zoom; a key is offered only where it does something. Each line is
made of parts ranked by how much they matter: on a narrow terminal the least
useful are shortened, then dropped, so what is left reads whole (never cut
in the middle of a word).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from tui.core.base.textsafe import printable
from tui.core.base.units import NOT_OBSERVED, duration_text, plural, size_text
from tui.core.base.vocab import AllocatedSource, GapKind
from tui.core.figures.analysis import Analysis, Step
from tui.core.figures.kernels import readable_kernel_name
from tui.core.figures.memory import DeviceMemory, devices_of
from tui.core.figures.memory_timeline import peak_operator
from tui.core.model.trace import Kind
from tui.report.fit import ELLIPSIS, fit_middle
from tui.report.gpu_idle import step_idle_text
from tui.view.axis import position_text

ALWAYS = 9
"""The rank of a part that is never dropped (what the line is about)."""

TIMELINE_FOCUSED = (
    "back on the timeline: w s a d x Q work from any pane (Tab: the next pane)"
)
"""Said when a timeline key pressed in another pane gives the timeline the focus."""


def out_of_view_words(count: int, what: str) -> str:
    """`; 3 launch queues out of view (shift+↓ walks the tracks)`, "" for none:
    said when a key adds rows to the timeline that it cannot show."""
    if not count:
        return ""
    return f"; {plural(count, what)} out of view (shift+↓ walks the tracks)"


@dataclass(frozen=True)
class Part:
    """A piece of the line with its own leading spaces; `rank` says how long
    it is kept (higher: longer), `short` is what it reads as when room runs out."""

    text: Text
    rank: int
    short: Text | None = None


@dataclass(frozen=True)
class StatusLine:
    """A status line's parts in reading order; `fit` writes it in a width."""

    parts: tuple[Part, ...]

    @property
    def plain(self) -> str:
        """The whole line's words."""
        return self.text().plain

    def text(self, parts: tuple[Part, ...] | None = None) -> Text:
        """The parts (all by default) joined."""
        line = Text()
        for part in self.parts if parts is None else parts:
            line.append_text(part.text)
        return line

    def fit(self, width: int) -> Text:
        """The line in at most `width` cells: the lowest-ranked parts (the later
        of equals first) are shortened, then dropped; what must stay is cut at a
        word's end with an ellipsis. A width of 0 or less means "unknown": whole."""
        parts = list(self.parts)
        if width <= 0 or cell_len(self.text().plain) <= width:
            return self.text()
        order = sorted(range(len(parts)), key=lambda index: (parts[index].rank, -index))
        for index in order:
            short = parts[index].short
            if short is not None:
                parts[index] = Part(short, parts[index].rank)
                if cell_len(self.text(tuple(parts)).plain) <= width:
                    return self.text(tuple(parts))
        kept = [True] * len(parts)
        for index in order:
            if parts[index].rank >= ALWAYS:
                break
            kept[index] = False
            line = self.text(
                tuple(p for p, keep in zip(parts, kept, strict=True) if keep)
            )
            if cell_len(line.plain) <= width:
                return line
        line = self.text(tuple(p for p, keep in zip(parts, kept, strict=True) if keep))
        return _cut_at_word(line, width)


def _cut_at_word(line: Text, width: int) -> Text:
    """`line` in `width` cells ending at a word's end, then an ellipsis (a
    single word longer than the room is cut where it must be)."""
    plain = line.plain
    room = width - 1
    end = room
    while end > 0 and cell_len(plain[:end]) > room:
        end -= 1
    space = plain.rfind(" ", 0, end + 1)
    if space > 0 and plain[:space].strip():
        end = len(plain[:space].rstrip())
    cut = line[:end]
    cut.append(ELLIPSIS)
    return cut


def _part(words: str, rank: int, style: str = "", short: str | None = None) -> Part:
    return Part(
        Text(words, style=style),
        rank,
        None if short is None else Text(short, style=style),
    )


def _hint(words: str) -> Part:
    return _part(f"  {words}", 0, "italic")


def window_info(analysis: Analysis) -> StatusLine:
    """Events, span, the data zone's gaps (or how to choose a zone), help."""
    trace = analysis.trace
    parts = [
        _part(plural(trace.event_count, "event"), ALWAYS, "bold"),
        _part(f" over {duration_text(trace.span_ns)}", 3),
    ]
    gaps = analysis.gaps
    if gaps:
        kind = gaps[0].kind.label
        parts.append(
            _part(
                f"  {plural(len(gaps), 'gap')} ({kind}) in the data zone: g G b",
                4,
                short=f"  {plural(len(gaps), 'gap')}: g G b",
            )
        )
    elif analysis.zone_reading.found:
        parts.append(_part("  no gaps in the data zone", 4))
    else:
        parts.append(_part("  no data zone", 4))
        parts.append(_part(" (z chooses one)", 2, "italic"))
    parts.append(_hint("? help"))
    return StatusLine(tuple(parts))


def step_info(analysis: Analysis, step: Step) -> StatusLine:
    """A step's duration, device busy time, peak allocated per device (when
    memory was recorded), its data zone's time (kept while there is room) and
    its device's idle split."""
    parts = [
        _part(f"step {step.number}", ALWAYS, "bold"),
        _part(f" ({step.phase.value})", 6),
        _part(f"  {duration_text(step.duration_ns)}", 7),
    ]
    busy = analysis.device_busy_ns(step.start_ns, step.end_ns)
    parts.append(
        _part(
            "  GPU busy " + (duration_text(busy) if busy is not None else NOT_OBSERVED),
            5,
        )
    )
    memory = analysis.trace.memory
    if len(memory):  # profile_memory captures: the step's peaks (as steptrace memory)
        devices = devices_of(memory)
        parts.append(Part(_step_peaks(devices, step), 4))
        held = _peak_holder(analysis, devices, step)
        if held:
            parts.append(_part(held, 1))
    idle = analysis.gpu_idle
    split = None if idle is None else idle.step(step.number)
    if split is not None:
        # Below the step's data zone: the zone is the method's first figure.
        parts.append(_part(f"  {step_idle_text(split)}", 2))
    # The step's data zone (the chosen names, as summary's column), not every
    # annotation that happens to sit in the step.
    reading = analysis.zone_reading
    step_zone = reading.step_zone(step.number) if reading.found else None
    for share in () if step_zone is None else step_zone.shares[:4]:
        line = Text(f"  {printable(share.name)} ")
        line.append(duration_text(share.duration_ns), style="bold")
        parts.append(Part(line, 3))
    return StatusLine(tuple(parts))


def _step_peaks(devices: list[DeviceMemory], step: Step) -> Text:
    """A step's peak allocated per device (devices before the CPU), saying when
    they are rebuilt from the running sum of Bytes, or why none is known."""
    devices.sort(key=lambda device: device.label == "cpu")
    rebuilt = any(device.source is AllocatedSource.RUNNING_SUM for device in devices)
    peaks = Text("  alloc peak" + (" (running sum of Bytes)" if rebuilt else ""))
    known = 0
    for device in devices:
        peak = device.peak(step.start_ns, step.end_ns)
        if peak is not None:
            known += 1
            peaks.append(f" {printable(device.label)} ")
            peaks.append(size_text(peak), style="bold")
    if not known:
        if all(device.source is None for device in devices):
            peaks.append(" unknown (neither Total Allocated nor Bytes)")
        else:
            peaks.append(" unknown: no [memory] event by its end")
    return peaks


def _peak_holder(analysis: Analysis, devices: list[DeviceMemory], step: Step) -> str:
    """The operator in which a device's step peak is reached (as `memory
    --timeline` reads it), for the first device, devices before the CPU, whose
    peak a CPU event holds; "" when none."""
    for device in devices:  # devices before the CPU (_step_peaks sorted them)
        operator = peak_operator(analysis, device, step.start_ns, step.end_ns)
        if operator is not None:
            return f"  {printable(device.label)} peak in {printable(operator.name)}"
    return ""


def event_info(analysis: Analysis, event: int, span_ns: int) -> StatusLine:
    """An event's name, duration and position; Enter opens its details."""
    trace = analysis.trace
    parts = [
        _part(_event_name(analysis, event), ALWAYS, "bold"),
        _part(f"  {duration_text(int(trace.duration_ns[event]))}", 6),
        _part(f"  at {position_text(int(trace.start_ns[event]), span_ns)}", 4),
    ]
    launcher = launcher_text(analysis, event)
    if launcher:
        parts.append(_part(f"  {launcher}", 5))
    parts.append(_hint("Enter: details"))
    return StatusLine(tuple(parts))


def gap_info(analysis: Analysis, index: int, span_ns: int) -> StatusLine:
    """The figures of one gap, named GPU idle or untraced time as it is."""
    gaps = analysis.gaps
    gap = gaps[index]
    parts = [_part(f"gap {index + 1}/{len(gaps):,} ", ALWAYS, "bold")]
    if gap.kind is GapKind.GPU_IDLE:
        several = len(analysis.devices) > 1 and gap.device is not None
        device = f" (device {gap.device})" if several else ""
        parts.append(_part(" GPU idle" + device + " ", ALWAYS, "bold reverse"))
    else:
        parts.append(
            _part(
                " untraced time (no GPU events) ",
                ALWAYS,
                "bold reverse",
                short=" untraced ",
            )
        )
    parts.append(_part(" ", ALWAYS))
    parts.append(_part(duration_text(gap.duration_ns), ALWAYS, "bold"))
    parts.append(_part(f" at {position_text(gap.start_ns, span_ns)}", 4))
    parts.append(_part("  step " + ("—" if gap.step is None else str(gap.step)), 5))
    zone = Text("  zone ")
    zone.append(printable(gap.zone), style="bold")
    parts.append(Part(zone, 3))
    return StatusLine(tuple(parts))


def _event_name(analysis: Analysis, event: int) -> str:
    """An event's name, escaped; a kernel's as every kernel table reads it
    (no `void`, namespaces or parameters; the details keep the full name)."""
    name = analysis.trace.event_name(event)
    if int(analysis.trace.kind[event]) == Kind.KERNEL:
        return printable(readable_kernel_name(name))
    return printable(name)


def launcher_text(analysis: Analysis, event: int) -> str:
    """For device work: the CPU operator that launched (kernels) or issued (copies,
    sets) it, after the CUDA graph that replayed it; empty for other events."""
    trace = analysis.trace
    if not trace.device_work_mask[event]:
        return ""
    copy = int(trace.kind[event]) in (Kind.MEMCPY, Kind.MEMSET)
    owner = int(analysis.gpu_owner[event])
    replays = analysis.graph_replays
    graph = ""
    if replays.work[event]:
        graph_id = int(replays.ids[event])
        graph = "replayed by CUDA graph" + (f" {graph_id}" if graph_id > 0 else "")
        graph += ", "
    if owner < 0:
        return (
            graph + ("issuing" if copy else "launching") + " operator not in the trace"
        )
    verb = "issued by" if copy else "launched by"
    return f"{graph}{verb} {printable(trace.event_name(owner))}"


def mark_info(
    analysis: Analysis, label: str, position: int, count: int, event: int, span_ns: int
) -> StatusLine:
    """Which match (or operator occurrence) is selected, of how many, and where;
    device work names its operator before its own (long) name."""
    trace = analysis.trace
    parts = [
        _part(f"{label} ", ALWAYS, "bold"),
        _part(f"{position + 1}/{count:,}", ALWAYS),
    ]
    launcher = launcher_text(analysis, event)
    name = _event_name(analysis, event)
    if launcher:
        parts.append(_part(f"  {launcher}", 6, "bold"))
    else:
        parts.append(_part(f"  {name}", 6))
    parts.append(_part(f"  {duration_text(int(trace.duration_ns[event]))}", 7))
    parts.append(_part(f" at {position_text(int(trace.start_ns[event]), span_ns)}", 4))
    parts.append(_hint("n/N next  Enter details"))
    if launcher:
        parts.append(_part(f"  {name}", 0))
    return StatusLine(tuple(parts))


def zone_info(analysis: Analysis) -> StatusLine:
    """What choosing a data zone changed, in one line."""
    choice = analysis.zone_choice
    names = printable(choice.label()) if choice.names else "none found"
    parts = [
        _part("zone ", ALWAYS, "bold"),
        _part(fit_middle(names, 30, head=14), ALWAYS),
    ]
    gaps = analysis.gaps
    if gaps:
        parts.append(
            _part(
                f": {plural(len(gaps), 'gap')} ({gaps[0].kind.label}), "
                f"{duration_text(analysis.total_gap_ns)} of "
                f"{duration_text(analysis.total_zone_ns)}",
                ALWAYS,
            )
        )
        parts.append(_hint("g G b"))
    elif analysis.zone_reading.found:
        parts.append(
            _part(f": no gaps in {duration_text(analysis.total_zone_ns)}", ALWAYS)
        )
    else:
        parts.append(_part(": occurs nowhere in this capture", ALWAYS))
    return StatusLine(tuple(parts))
