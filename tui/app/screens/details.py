"""The details of one event: times, self/total CPU and GPU, args, shapes, stack,
and the GPU work it launched or the CPU operator that launched it."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import orjson
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.analysis import Analysis
from tui.core.model.trace import DEVICE_WORK_KINDS, Kind, TrackKind

SHAPE_KEYS = ("Input Dims", "Input type", "Concrete Inputs", "Input Strides")
STACK_KEYS = ("Call stack", "stack", "Stack")
LAUNCHED_SHOWN = 12


def _row(text: Text, label: str, value: str, style: str = "") -> None:
    text.append(f"{label:<14}", style="bold")
    text.append(printable(value), style=style)
    text.append("\n")


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return repr(value)


def launched_by(analysis: Analysis, event: int) -> np.ndarray[Any, Any]:
    """Device events whose launching CPU event is `event` or nested inside it."""
    trace = analysis.trace
    owner = analysis.gpu_owner
    launched = np.flatnonzero(owner >= 0)
    if launched.size == 0:
        return launched
    owners = owner[launched]
    track = int(trace.track[event])
    start = int(trace.start_ns[event])
    end = start + int(trace.duration_ns[event])
    inside = (
        (trace.track[owners] == track)
        & (trace.start_ns[owners] >= start)
        & (trace.start_ns[owners] < end)
    )
    result: np.ndarray[Any, Any] = launched[inside]
    return result


def event_details(analysis: Analysis, event: int) -> Text:
    """Everything known about one event, as text (trace strings escaped).

    In order: its name, kind, track and times; its CPU and GPU totals (for a
    CPU event); its shapes, stack and other args; then what launched it (a
    device event) or the GPU work it launched (a CPU event).
    """
    trace = analysis.trace
    text = Text()
    text.append(printable(trace.event_name(event)) + "\n", style="bold")
    kind = Kind(int(trace.kind[event]))
    track = trace.tracks[int(trace.track[event])]
    _append_placement(text, analysis, event, kind)
    is_device = kind in DEVICE_WORK_KINDS or track.kind == TrackKind.DEVICE
    if not is_device:
        _append_totals(text, analysis, event)
    _append_args(text, trace.event_args(event))
    if is_device:
        _append_launcher(text, analysis, event)
    elif trace.gpu_observed:
        _append_launched(text, analysis, event)
    else:
        text.append("\nGPU work launched: not observed (no GPU events)\n", "italic")
    return text


def _append_placement(text: Text, analysis: Analysis, event: int, kind: Kind) -> None:
    """The event's kind (and category when it says more), track, times and step."""
    trace = analysis.trace
    category = trace.event_category(event)
    kind_name = kind.name.lower()
    _row(
        text,
        "kind",
        kind_name if category == kind_name else f"{kind_name} ({category})",
    )
    _row(text, "track", trace.tracks[int(trace.track[event])].name)
    start = int(trace.start_ns[event])
    duration = int(trace.duration_ns[event])
    _row(text, "start", f"{duration_text(start)} after the trace start")
    _row(text, "duration", duration_text(duration))
    _row(text, "end", duration_text(start + duration))
    step = analysis.step_of(start)
    if step is not None:
        _row(text, "step", str(step))


def _append_totals(text: Text, analysis: Analysis, event: int) -> None:
    """A CPU event's self and total CPU time, and its GPU time when GPU is observed."""
    gpu = analysis.trace.gpu_observed
    _row(text, "self CPU", duration_text(int(analysis.self_cpu_ns[event])))
    _row(text, "total CPU", duration_text(int(analysis.trace.duration_ns[event])))
    _row(
        text,
        "self GPU",
        duration_text(int(analysis.self_gpu_ns[event]) if gpu else None),
    )
    _row(
        text,
        "total GPU",
        duration_text(int(analysis.total_gpu_ns[event]) if gpu else None),
    )


def _append_args(text: Text, args: dict[str, Any]) -> None:
    """The event's shapes, its stack one frame a line, then its other args."""
    shapes = {key: args[key] for key in SHAPE_KEYS if key in args}
    if shapes:
        text.append("\nshapes\n", style="bold underline")
        for key, value in shapes.items():
            _row(text, key, _json(value))
    stack = next((args[key] for key in STACK_KEYS if key in args), None)
    if stack:
        text.append("\nstack\n", style="bold underline")
        frames = stack if isinstance(stack, list) else str(stack).split(";")
        for frame in frames:
            text.append("  " + printable(str(frame)) + "\n")
    others = {
        key: value
        for key, value in args.items()
        if key not in SHAPE_KEYS and key not in STACK_KEYS
    }
    if others:
        text.append("\nargs\n", style="bold underline")
        # Names in full: a long one puts its value on the next line.
        for key, value in others.items():
            name = printable(str(key))
            if len(name) < 14:
                _row(text, name, _json(value))
            else:
                text.append(name, style="bold")
                text.append("\n" + " " * 14 + printable(_json(value)) + "\n")


def _append_launcher(text: Text, analysis: Analysis, event: int) -> None:
    """The CPU operator that launched a device event, when the capture links them."""
    trace = analysis.trace
    text.append("\nlaunched by\n", style="bold underline")
    owner = int(analysis.gpu_owner[event])
    if owner >= 0:
        owner_track = trace.tracks[int(trace.track[owner])]
        _row(text, "CPU operator", trace.event_name(owner))
        _row(text, "on", owner_track.name)
        _row(text, "at", duration_text(int(trace.start_ns[owner])))
    else:
        text.append("  not linked to a CPU operator in this capture\n", "italic")


def _append_launched(text: Text, analysis: Analysis, event: int) -> None:
    """The GPU work a CPU event launched, the first LAUNCHED_SHOWN by start."""
    trace = analysis.trace
    launched = launched_by(analysis, event)
    text.append(f"\nGPU work launched ({launched.size})\n", style="bold underline")
    if launched.size == 0:
        text.append("  none\n", style="italic")
    order = launched[np.argsort(trace.start_ns[launched], kind="stable")]
    for device_event in order[:LAUNCHED_SHOWN].tolist():
        text.append(f"  {duration_text(int(trace.duration_ns[device_event])):>11}  ")
        text.append(printable(trace.event_name(device_event)) + "\n")
    if launched.size > LAUNCHED_SHOWN:
        text.append(f"  … and {launched.size - LAUNCHED_SHOWN} more\n", "italic")


class DetailsScreen(ModalScreen[None]):
    """One event in full; Esc closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "dismiss", "Close details"),
    ]

    def __init__(self, analysis: Analysis, event: int) -> None:
        super().__init__()
        self.analysis = analysis
        self.event = event

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="details-box"):
            yield Static(
                event_details(self.analysis, self.event),
                id="details-text",
                markup=False,
            )
