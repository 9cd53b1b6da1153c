"""The header: which capture, which question, unit, window, data zone, what was
observed, how many warnings reading it gave, and a banner when the file is cut off."""

from __future__ import annotations

import textwrap
from typing import Any

from rich.text import Text
from textual.widget import Widget

from tui.core.base.textsafe import printable
from tui.core.base.vocab import ZoneSource
from tui.core.figures.analysis import Analysis
from tui.core.model.observed import gpu_missing_reason
from tui.core.results.summary import capture_warnings, cut_off_coverage
from tui.report.fit import fit_end, fit_middle

GPU_OBSERVED = " GPU observed "
GPU_NOT_OBSERVED = " GPU not observed "


def _text(value: Any) -> str:
    return printable(str(value))


def zone_words(analysis: Analysis) -> str:
    """The data zone in use and where it came from: `lecture_batch_cpu (default)`."""
    choice = analysis.zone_choice
    if choice.source is ZoneSource.NONE or not choice.names:
        return "none found (z chooses one)"
    if choice.source is ZoneSource.PROPOSED:
        return f"{_text(choice.label())} ({choice.source.label}; z chooses another)"
    return f"{_text(choice.label())} ({choice.source.label})"


def warnings_badge(count: int) -> str:
    """The header's mark of load warnings and the key that lists them ("": none)."""
    if not count:
        return ""
    return f" {count} load warning{'' if count == 1 else 's'} (W) "


def header_lines(
    analysis: Analysis,
    width: int,
    *,
    served: bool = False,
    capture_allowed: bool = True,
    run_label: str | None = None,
    warnings: int = 0,
) -> Text:
    """The header fitted to `width`: names and the question are shortened, the
    GPU state and its reason are wrapped, never cut; `warnings` reading the
    capture gave are counted in a badge that names their key (W)."""
    width = max(width, 20)
    trace = analysis.trace
    capture = trace.capture
    first = Text(no_wrap=True, overflow="ellipsis")
    if served:
        mark = " served, captures on " if capture_allowed else " served "
        first.append(mark, style="bold reverse")
        first.append(" ")
    if run_label:
        first.append(f" {fit_end(run_label, width // 2)} ", style="bold reverse")
        first.append(" ")
    gpu = trace.gpu_observed
    state = GPU_OBSERVED if gpu else GPU_NOT_OBSERVED
    badge = warnings_badge(warnings)
    room = width - first.cell_len - len(state) - 2 - (len(badge) + 1 if badge else 0)
    name = fit_middle(_text(trace.path.name), max(min(room, width * 2 // 3), 12))
    first.append(name, style="bold")
    if badge:
        first.append(" ")
        first.append(badge, style="bold reverse")
    if capture.question:
        room = width - first.cell_len - len(state) - 6
        if room >= 12:
            first.append("  Q: ", style="bold")
            first.append(fit_end(_text(capture.question), room))
    # The zone first (it decides the gaps), then the unit and the window.
    second = Text(no_wrap=True, overflow="ellipsis")
    second.append("zone ", style="bold")
    second.append(fit_middle(zone_words(analysis), max(width - 5, 16)))
    samples = capture.samples_per_step
    unit = _text(capture.unit_name)
    full_unit = unit + (f", {samples} samples/step" if samples else "")
    steps = analysis.steps
    if capture.window is not None:
        window = f"{capture.window.short()}, {len(steps)} steps"
    elif steps:
        window = f"{len(analysis.active_steps)} active of {len(steps)} steps"
    else:
        window = "no steps"
    # Shorter forms before leaving a figure out (the steps strip repeats them).
    for label, forms in (("unit", (full_unit, unit)), ("window", (window,))):
        for value in forms:
            if second.cell_len + len(label) + len(value) + 3 <= width:
                second.append(f"  {label} ", style="bold")
                second.append(value)
                break
    if capture.scenario.inputs_simplified:
        second.append("  ")
        second.append("simplified inputs", style="italic underline")
    lines = [first, second, *_demo_lines(analysis, width)]
    if gpu:
        if first.cell_len + 2 + len(state) <= width:
            first.append("  ")
            first.append(state, style="bold reverse")
        else:
            lines.append(Text(state, style="bold reverse"))
    else:
        lines += _banner(state, _text(gpu_missing_reason(trace) or ""), width, "italic")
    if trace.cut_off:
        lines += cut_off_banner(analysis, width)
    return Text("\n").join(lines)


# What the demo's header words mean, one line each: a capture on simplified
# inputs, and the method's zone names (French, as the method writes them).
SIMPLIFIED_LINE = (
    "simplified inputs: the capture isolates a behaviour, not the full load"
)
METHOD_ZONES = ("lecture_batch_cpu", "transfert", "entrainement")
ZONES_LINE = (
    "zones: lecture_batch_cpu reads, transfert copies to device, entrainement trains"
)


def _demo_lines(analysis: Analysis, width: int) -> list[Text]:
    """On a capture of simplified inputs (the demo's), what that means and what
    the method's zone names stand for, a line each."""
    if not analysis.trace.capture.scenario.inputs_simplified:
        return []
    lines = [Text(fit_end(SIMPLIFIED_LINE, width), style="italic")]
    present = analysis.zone_names_present
    if all(name in present for name in METHOD_ZONES):
        lines.append(Text(fit_end(ZONES_LINE, width), style="italic"))
    return lines


CUT_OFF = " CUT OFF "


def cut_off_banner(analysis: Analysis, width: int) -> list[Text]:
    """A cut-off file's banner, whole and wrapped: what the figures cover (the
    first load warning, W lists the others)."""
    words = f"{_text(cut_off_coverage(analysis))} (W: every load warning)"
    return _banner(CUT_OFF, words, width, "bold")


def _banner(mark: str, words: str, width: int, style: str) -> list[Text]:
    """`mark` in reverse, then `words` wrapped to `width`, never cut."""
    wrapped = textwrap.wrap(
        words, width=width, initial_indent=" " * (len(mark) + 1)
    ) or [""]
    first = Text(no_wrap=True)
    first.append(mark, style="bold reverse")
    first.append(" " + wrapped[0].lstrip(), style=style)
    return [first, *(Text(line, style=style) for line in wrapped[1:])]


class HeaderLine(Widget):
    """Two or three lines on top of the main screen; texts from the trace stay text."""

    DEFAULT_CSS = """
    HeaderLine { height: auto; }
    """

    def __init__(self, analysis: Analysis, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis = analysis

    def set_analysis(self, analysis: Analysis) -> None:
        """Another data zone: say which."""
        self.analysis = analysis
        self.refresh(layout=True)

    def render(self) -> Text:
        return header_lines(
            self.analysis,
            self.content_region.width or 80,
            served=bool(getattr(self.app, "served", False)),
            capture_allowed=bool(getattr(self.app, "capture_allowed", True)),
            run_label=getattr(self.screen, "run_label", None),
            warnings=len(capture_warnings(self.analysis)),
        )
