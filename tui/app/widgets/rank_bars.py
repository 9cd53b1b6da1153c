"""Per-rank device breakdown bars, one line per rank in the heat table's order.

A Line-API widget: each visible line is drawn from the rank's summary, so
it stays light over hundreds of ranks. The bars split the device span into
compute, communication, memory, other and idle (`tui.core.figures.breakdown.split`,
steptrace's own definitions), over the whole capture or in one step; a rank
without GPU events reads "not observed", with the reason, never an empty bar.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.strip import Strip
from textual.widget import Widget

from tui.core.base.textsafe import printable
from tui.core.base.units import NOT_OBSERVED, duration_text
from tui.core.figures.breakdown.gpu import Breakdown
from tui.core.figures.breakdown.split import PART_NAMES, DeviceSplit
from tui.core.runs.across import RankRow
from tui.view.device_bars import GLYPHS, LEGEND, bar_cells, shares_text

BAR_WIDTH_MAX = 40
_PART_CLASS = {name: f"rank-bars--{name}" for name in PART_NAMES}


def rank_breakdown(row: RankRow, step: int | None) -> Breakdown | None:
    """A rank's breakdown (steptrace's rules, else HTA's), whole or in one step."""
    summary = row.summary
    if step is None:
        return summary.breakdown_steptrace or summary.breakdown
    found = summary.step(step)
    if found is None:
        return None
    return found.breakdown_steptrace or found.breakdown


class RankBars(Widget):
    """Compute / communication / memory / other / idle of each rank, as bars."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "rank-bars--header",
        "rank-bars--current",
        "rank-bars--dim",
        *_PART_CLASS.values(),
    }

    # Okabe-Ito colours (told apart with any colour vision); glyphs carry the parts.
    DEFAULT_CSS = """
    RankBars { height: 1fr; }
    RankBars > .rank-bars--header { text-style: bold; }
    RankBars > .rank-bars--current { text-style: bold reverse; }
    RankBars > .rank-bars--dim { text-style: italic; }
    RankBars > .rank-bars--compute { color: #0072b2; }
    RankBars > .rank-bars--communication { color: #e69f00; }
    RankBars > .rank-bars--memory { color: #cc79a7; }
    RankBars > .rank-bars--other { color: #999999; }
    RankBars > .rank-bars--idle { color: #999999; }
    """

    def __init__(self, rows: tuple[RankRow, ...], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows = rows
        self._by_rank = {row.rank: row for row in rows}
        self.ranks: list[int] = [row.rank for row in rows]
        self.current: int | None = self.ranks[0] if self.ranks else None
        self.step: int | None = None
        self.top = 0
        self._styles: LRUCache[str, Style] = LRUCache(64)

    def show(self, ranks: list[int], current: int | None, step: int | None) -> None:
        """Follow the table: its order, its cursor's rank, and the step (None: whole capture)."""
        self.ranks = ranks
        self.current = current
        self.step = step
        visible = max(self.size.height - 1, 1)
        if current in ranks:
            position = ranks.index(current)
            if position < self.top:
                self.top = position
            elif position >= self.top + visible:
                self.top = position - visible + 1
        self.top = max(0, min(self.top, max(len(ranks) - visible, 0)))
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style + self.get_component_rich_style(name)
            self._styles[name] = style
        return style

    def scope_text(self) -> str:
        """What the bars cover."""
        return "whole capture" if self.step is None else f"step {self.step}"

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y == 0:
            header = self._style("rank-bars--header")
            other = "a step" if self.step is None else "whole capture"
            text = f"{self.scope_text()} (b: {other})  {LEGEND}"
            return Strip([Segment(text, header)]).adjust_cell_length(width, base)
        position = self.top + y - 1
        if position >= len(self.ranks):
            return Strip.blank(width, base)
        rank = self.ranks[position]
        row = self._by_rank[rank]
        label_style = (
            self._style("rank-bars--current") if rank == self.current else base
        )
        segments = [Segment(f"{rank:>6}", label_style), Segment(" ", base)]
        breakdown = rank_breakdown(row, self.step)
        if breakdown is None:
            reason = (
                "not recorded by this rank"
                if row.summary.gpu_observed
                else f"{NOT_OBSERVED} — "
                + printable(str(row.summary.gpu_missing_reason or "no device op"))
            )
            segments.append(Segment(reason, self._style("rank-bars--dim")))
            return Strip(segments).adjust_cell_length(width, base)
        split = DeviceSplit.of(breakdown)
        bar_width = max(min(BAR_WIDTH_MAX, (width - 8) // 3), 10)
        for name, cells in bar_cells(split, bar_width):
            if cells:
                segments.append(
                    Segment(GLYPHS[name] * cells, self._style(_PART_CLASS[name]))
                )
        segments.append(
            Segment(f" {duration_text(split.span_ns)}  {shares_text(split)}", base)
        )
        return Strip(segments).adjust_cell_length(width, base)
