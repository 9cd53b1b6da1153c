"""The ranks screen's heat table in words: the ranks' order, and each cell's text and level.

Textual-free: the widget only turns these into styled lines. Times share
one unit per table (chosen so the longest step reads with at most three
digits before the point), said in the table's labels. A cell reads
without colour: after its value, `*` marks the straggler and arrows the
band of its step time against the step's median (`tui.core.runs.heat`).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import HeatLevel, HeatValue, RankSort
from tui.core.results.ranks import RanksResult
from tui.core.runs.across import RankRow, StepAcross
from tui.core.runs.heat import RankHeat, RunHeat, change_pct
from tui.core.runs.many import MANY_RANKS, idle_share
from tui.report.fit import fit_end

STRAGGLER_MARK = "*"
WAIT_TITLE = "Σwait"
"""The title of the column of each rank's wait summed over the steps."""
GLYPH_WIDTH = 3
VALUE_WIDTH = 7
CELL_WIDTH = 1 + GLYPH_WIDTH + VALUE_WIDTH
COLUMN_GAP = 1
LEFT_WIDTH = 30  # rank, late, median, wait (host, rank, median when grouped)
_HOST_WIDTH = 14
SEPARATOR = " │"
# Sort keys in the order `o` walks them; numbers largest first, ranks from 0.
SORT_ORDER = (
    RankSort.RANK,
    RankSort.MEDIAN,
    RankSort.WAIT,
    RankSort.LATE,
    RankSort.STEP,
)
_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns"))


@dataclass(frozen=True)
class Cell:
    """One rank's step: its text (exactly CELL_WIDTH cells), its band, straggler or not."""

    text: str
    level: HeatLevel | None
    straggler: bool


def median_words(change_pct: float) -> str:
    """A step time against the step's median, unsigned: `17.6% under the median`."""
    if abs(change_pct) < 0.05:
        return "the median"
    side = "over" if change_pct > 0 else "under"
    return f"{abs(change_pct):.1f}% {side} the median"


def table_unit(
    steps: tuple[StepAcross, ...], medians: Iterable[float | None] = ()
) -> tuple[str, float]:
    """The unit of the table's times: the largest one the longest step (or a
    rank's median step, when no step is common to all ranks) reaches."""
    longest = max(
        (
            *(value for step in steps for value in step.duration_ns.values()),
            *(value for value in medians if value is not None),
        ),
        default=0,
    )
    for scale, name in _UNITS:
        if longest >= scale:
            return name, scale
    return "ns", 1.0


def default_descending(key: RankSort) -> bool:
    """Ranks from 0; every other key largest first (by host: the slowest host first)."""
    return key is not RankSort.RANK


class RunTable:
    """A run's rank × step table: ordering, cell texts and the words about a cell."""

    def __init__(self, result: RanksResult) -> None:
        self.result = result
        self.run = result.run
        self.heat = RunHeat.of(result.run)
        self.rows: tuple[RankRow, ...] = self.run.ranks
        self.steps: tuple[StepAcross, ...] = self.run.steps
        self.unit, self.scale = table_unit(
            self.steps, (item.median_ns for item in self.heat.ranks)
        )
        self._heat_of: dict[int, RankHeat] = {
            item.rank: item for item in self.heat.ranks
        }
        self.many = result.many
        self._step_values: dict[tuple[int, HeatValue], list[float]] = {}
        self.is_many = len(self.rows) > MANY_RANKS
        # `o` walks these; grouping by host only when every file names its host.
        self.sort_keys: tuple[RankSort, ...] = SORT_ORDER + (
            (RankSort.HOST,) if self.many.hosts is not None else ()
        )

    @property
    def has_idle(self) -> bool:
        """Whether some rank has a device idle share in some step (what `i` shows)."""
        return any(
            idle_share(row, step.number) is not None
            for row in self.rows
            for step in self.steps
        )

    @property
    def first_sort(self) -> RankSort:
        """A few ranks in rank order; many ranks slowest median step time first."""
        return RankSort.MEDIAN if self.is_many else RankSort.RANK

    # -- order --------------------------------------------------------------

    def order(
        self, key: RankSort, descending: bool, step_index: int | None = None
    ) -> list[int]:
        """Row indices sorted by `key` (ties by rank); ranks without a value go last."""
        if key is RankSort.HOST:
            grouped = [self.row_of_rank(rank) for rank in self.many.order]
            found = [index for index in grouped if index is not None]
            return found if descending else found[::-1]

        def value(index: int) -> float | None:
            row = self.rows[index]
            heat = self._heat_of[row.rank]
            if key is RankSort.RANK:
                return float(row.rank)
            if key is RankSort.MEDIAN:
                return heat.median_ns
            if key is RankSort.WAIT:
                return None if heat.total_wait_ns is None else float(heat.total_wait_ns)
            if key is RankSort.LATE:
                return float(heat.late_steps)
            if step_index is None or not self.steps:
                return None
            found = self.steps[step_index].duration_ns.get(row.rank)
            return None if found is None else float(found)

        sign = -1.0 if descending else 1.0
        keyed = [(value(index), index) for index in range(len(self.rows))]
        known = sorted(
            (item for item in keyed if item[0] is not None),
            key=lambda item: (sign * (item[0] or 0.0), self.rows[item[1]].rank),
        )
        unknown = [item for item in keyed if item[0] is None]
        return [index for _, index in known + unknown]

    def row_of_rank(self, rank: int) -> int | None:
        """The row index of a rank."""
        return next(
            (index for index, row in enumerate(self.rows) if row.rank == rank), None
        )

    def step_index(self, number: int) -> int | None:
        """The column of a step number."""
        return next(
            (index for index, step in enumerate(self.steps) if step.number == number),
            None,
        )

    # -- texts --------------------------------------------------------------

    def number(self, ns: float | None) -> str:
        """A time in the table's unit, at most VALUE_WIDTH cells."""
        if ns is None:
            return "–"
        value = ns / self.scale
        text = f"{value:.0f}" if self.scale == 1.0 else f"{value:.3f}"
        if len(text) > VALUE_WIDTH:
            text = f"{value:.0f}"
        return text

    @staticmethod
    def aligned(value: str, marks: str = "") -> str:
        """A cell: the value right-aligned, then its marks (straggler, band)."""
        return f"{value:>{VALUE_WIDTH}}{marks:<{1 + GLYPH_WIDTH}}"

    def header_left(self, key: RankSort, descending: bool) -> str:
        """The left part of the column titles, with the sort's arrow."""
        arrow = "▼" if descending else "▲"
        if key is RankSort.HOST:
            return f"{'host' + arrow:<{_HOST_WIDTH}} {'rank':>6} {'median':>8}"

        def title(name: str, sort: RankSort) -> str:
            return name + (arrow if key is sort else "")

        return (
            f"{title('rank', RankSort.RANK):>6} {title('late', RankSort.LATE):>5}"
            f" {title('median', RankSort.MEDIAN):>8} {title(WAIT_TITLE, RankSort.WAIT):>8}"
        )

    def step_title(
        self, step_index: int, key: RankSort, descending: bool, current: int | None
    ) -> str:
        """A step column's title: `#N`, with the arrow when sorted by this step."""
        title = f"#{self.steps[step_index].number}"
        if key is RankSort.STEP and step_index == current:
            title += "▼" if descending else "▲"
        return title

    def left_text(self, row_index: int, key: RankSort | None = None) -> str:
        """Rank, steps late, median step time and total wait of a row (grouped by
        host: its host, rank and median step time)."""
        row = self.rows[row_index]
        heat = self._heat_of[row.rank]
        if key is RankSort.HOST:
            host = printable(self.many.host_of(row.rank) or "")
            return (
                f"{fit_end(host, _HOST_WIDTH):<{_HOST_WIDTH}} {row.rank:>6}"
                f" {self.number(heat.median_ns):>8}"
            )
        late = (
            f"{heat.late_steps}/{self.heat.read_steps}" if self.heat.read_steps else "–"
        )
        return (
            f"{row.rank:>6} {late:>5} {self.number(heat.median_ns):>8}"
            f" {self.number(heat.total_wait_ns):>8}"
        )

    def median_label(self, shown: HeatValue = HeatValue.STEP_TIME) -> str:
        """The label of the per-step median row (of what the cells show)."""
        if shown is HeatValue.IDLE:
            return "median idle share (%)"
        if shown is HeatValue.WAIT:
            return f"median wait ({self.unit})"
        return f"step median ({self.unit})"

    def spread_label(self, shown: HeatValue = HeatValue.STEP_TIME) -> str:
        """The label of the per-step spread row."""
        unit = "points" if shown is HeatValue.IDLE else self.unit
        return f"spread, max−min ({unit})"

    def median_text(
        self, step_index: int, shown: HeatValue = HeatValue.STEP_TIME
    ) -> str:
        """A step's median over the ranks, as a cell."""
        if shown is HeatValue.STEP_TIME:
            return self.aligned(self.number(self.steps[step_index].median_ns))
        values = self._values(step_index, shown)
        if not values:
            return self.aligned("–")
        return self._shown_text(statistics.median(values), shown)

    def spread_text(
        self, step_index: int, shown: HeatValue = HeatValue.STEP_TIME
    ) -> str:
        """A step's spread over the ranks, as a cell."""
        if shown is HeatValue.STEP_TIME:
            return self.aligned(self.number(self.steps[step_index].spread_ns))
        values = self._values(step_index, shown)
        if not values:
            return self.aligned("–")
        return self._shown_text(max(values) - min(values), shown)

    def _shown_text(self, value: float, shown: HeatValue) -> str:
        if shown is HeatValue.IDLE:
            return self.aligned(f"{100 * value:.1f}")
        return self.aligned(self.number(value))

    def _values(self, step_index: int, shown: HeatValue) -> list[float]:
        """The waits (the straggler's excluded) or idle shares of a step's ranks."""
        key = (step_index, shown)
        found = self._step_values.get(key)
        if found is None:
            step = self.steps[step_index]
            if shown is HeatValue.WAIT:
                found = [float(value) for value in step.wait_ns.values()]
            else:
                found = [
                    share
                    for row in self.rows
                    if (share := idle_share(row, step.number)) is not None
                ]
            self._step_values[key] = found
        return found

    def cell(
        self,
        row_index: int,
        step_index: int,
        shown: HeatValue = HeatValue.STEP_TIME,
    ) -> Cell:
        """A rank's step time (its wait in the collectives, or its device idle
        share: – where not observed), its band and mark."""
        row = self.rows[row_index]
        rank = row.rank
        step = self.steps[step_index]
        straggler = step.straggler == rank
        mark = STRAGGLER_MARK if straggler else " "
        if shown is HeatValue.IDLE:
            share = idle_share(row, step.number)
            text = "–" if share is None else f"{100 * share:.1f}%"
            return Cell(self.aligned(text, mark), None, straggler)
        if shown is HeatValue.WAIT:
            if straggler:
                text = "last"
            else:
                wait = step.wait_ns.get(rank)
                text = "–" if wait is None else self.number(wait)
            return Cell(self.aligned(text, mark), None, straggler)
        level = self._heat_of[rank].levels[step_index]
        glyph = "" if level is None else level.glyph
        value = step.duration_ns.get(rank)
        return Cell(self.aligned(self.number(value), mark + glyph), level, straggler)

    def busy_shares(self) -> dict[int, float]:
        """Each rank's device busy share of its span over the capture
        (steptrace's breakdown, else HTA's); ranks without device work left out."""
        shares: dict[int, float] = {}
        for row in self.rows:
            summary = row.summary
            breakdown = summary.breakdown_steptrace or summary.breakdown
            if breakdown is not None and breakdown.span_ns > 0:
                shares[row.rank] = 1.0 - breakdown.idle_ns / breakdown.span_ns
        return shares

    def columns_words(self) -> str:
        """The left columns' unit, and what the wait sums: `median, Σwait in
        ms (Σ: over 4 steps)`."""
        return (
            f"median, {WAIT_TITLE} in {self.unit}"
            f" ({WAIT_TITLE[0]}: over {self.heat.read_steps or len(self.steps)} steps)"
        )

    # -- words about a cell -----------------------------------------------------

    def cell_info(self, row_index: int, step_index: int) -> Text:
        """The status line for a cell: time against the median, arrival, wait."""
        row = self.rows[row_index]
        text = Text()
        if not self.steps:
            text.append(f"rank {row.rank}", style="bold")
            text.append("  no step recorded by every rank")
            return text
        step = self.steps[step_index]
        duration = step.duration_ns.get(row.rank)
        host = self.many.host_of(row.rank)
        where = "" if host is None else f" ({printable(host)})"
        text.append(f"rank {row.rank}{where} step {step.number}:", style="bold")
        if duration is None:
            text.append(" not recorded by this rank")
            return text
        text.append(f" {duration_text(duration)}")
        change = change_pct(duration, step.median_ns)
        if change is not None:
            text.append(f" ({median_words(change)})")
        arrival = step.arrival_ns.get(row.rank)
        if step.straggler == row.rank:
            text.append("  last at the collectives", style="bold")
            text.append(f" (at {duration_text(arrival)}): the others wait for it")
        elif arrival is not None:
            text.append(f"  collectives at {duration_text(arrival)}")
            wait = step.wait_ns.get(row.rank)
            if wait is not None:
                text.append(f", wait {duration_text(wait)}")
        else:
            text.append("  no collective in this step")
        steps = self.heat.read_steps
        if steps:
            total = self._heat_of[row.rank].total_wait_ns
            text.append(
                f"  {WAIT_TITLE} {duration_text(total)}: its wait summed over"
                f" {steps} steps"
            )
        return text
