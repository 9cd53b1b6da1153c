"""What the comparison screen shows while it loads, when it cannot compare, and
once it has compared: the widgets, from the request and the comparison alone."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, ProgressBar, Static

from tui.app.screens.comparison_data import CompareRequest, Comparison
from tui.app.widgets.diff_table import DiffOpTable
from tui.app.widgets.info_line import InfoLine
from tui.app.widgets.steps_strip import StepsStrip
from tui.app.widgets.timeline import Timeline
from tui.core.base.textsafe import printable
from tui.core.base.vocab import SortKey
from tui.core.results.diff import DiffResult
from tui.view.comparison import comparability_text, sides_text, verdict_text

SIDES = ("before", "after")


def loading(open_path: Path, request: CompareRequest) -> ComposeResult:
    """The other capture being read and compared (Esc cancels)."""
    with Vertical(id="cmp-loading-box"):
        yield Static(
            Text.assemble(
                ("Comparing ", "bold"),
                printable(open_path.name),
                (" with ", "bold"),
                printable(str(request.path)),
            ),
            markup=False,
        )
        yield ProgressBar(total=None, show_eta=False, id="cmp-loading-bar")
        yield Static("starting", id="cmp-loading-phase", markup=False)
        yield Static(Text("Esc cancels", style="italic"), markup=False)


def failure(request: CompareRequest, lines: list[str]) -> ComposeResult:
    """Why the captures could not be compared."""
    with Vertical(id="cmp-error-box"):
        yield Static(Text("Could not compare", style="bold"), markup=False)
        yield Static(
            Text.assemble(("other capture  ", "bold"), printable(str(request.path))),
            markup=False,
        )
        for line in lines:
            yield Static(printable(line), classes="cmp-error-line", markup=False)
        yield Static(
            Text("Esc goes back to the open capture, q quits.", style="italic"),
            markup=False,
        )


def comparison(
    compared: Comparison, request: CompareRequest, mode: SortKey
) -> ComposeResult:
    """Verdict and checks, both steps strips, the operator changes, and the two
    timelines (shown in the table's place when an operator is chosen)."""
    result = DiffResult.from_diff(compared.diff)
    sides = (compared.before, compared.after)
    with Vertical(id="cmp-head"):
        yield Static(sides_text(result), id="cmp-sides", markup=False)
        yield Static(verdict_text(result), id="cmp-verdict", markup=False)
        yield Static(comparability_text(result), id="cmp-checks", markup=False)
    for word, side in zip(SIDES, sides, strict=True):
        with Horizontal(classes="cmp-strip"):
            yield Static(Text(word, style="bold"), classes="cmp-side", markup=False)
            yield StepsStrip(side.analysis, id=f"cmp-steps-{word}")
    with ContentSwitcher(initial="cmp-table", id="cmp-switcher"):
        yield DiffOpTable(
            compared.diff,
            mode=mode,
            order="calls"
            if request.sort is SortKey.CALLS
            else "name"
            if request.sort is SortKey.NAME
            else "change",
            device=request.device,
            id="cmp-table",
        )
        with Vertical(id="cmp-timelines"):
            for word, side in zip(SIDES, sides, strict=True):
                yield Static("", id=f"cmp-line-{word}", markup=False)
                yield Timeline(
                    side.trace,
                    side.analysis,
                    index=side.index,
                    zone_view=side.zone_view,
                    id=f"cmp-timeline-{word}",
                )
    yield InfoLine(id="cmp-info")
