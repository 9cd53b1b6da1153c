"""A run of many ranks in words: spreads per rank, outliers, top ranks, a compact heat map.

What `steptrace ranks` prints past `MANY_RANKS` ranks in place of the
table of every rank (which `--json` keeps), and what the ranks screen's
spread tab shows. At most 80 columns; host names and paths are untrusted
text, made printable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from tui.core.base.textsafe import printable
from tui.core.base.vocab import HeatLevel
from tui.core.results.ranks import RanksResult
from tui.core.runs.heat import OUTLIER_MADS, RunHeat
from tui.core.runs.many import ManyRanks, SpreadAcross
from tui.report.fit import fit_end
from tui.report.text import TEXT_WIDTH, fill

# The compact heat map: one character a step (or a bucket of steps)...
HEAT_GLYPHS = {
    HeatLevel.FASTER: "-",
    HeatLevel.NEAR: "·",
    HeatLevel.SLOWER: "░",
    HeatLevel.SLOW: "▒",
    HeatLevel.SLOWEST: "█",
}
_WORST_FIRST = (
    HeatLevel.SLOWEST,
    HeatLevel.SLOW,
    HeatLevel.SLOWER,
    HeatLevel.NEAR,
    HeatLevel.FASTER,
)
# ...the slowest rows on top and the fastest at the bottom, the rest counted.
HEAT_TOP_ROWS = 8
HEAT_BOTTOM_ROWS = 3
_HEAT_LABEL = 18
# Outlier ranks named in one line before "+N more".
_NAMED_OUTLIERS = 12


def _ms(ns: float | None) -> str:
    return "–" if ns is None else f"{ns / 1e6:.3f}"


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.1f}%"


def _ranks(ranks: Sequence[int]) -> str:
    shown = ", ".join(str(rank) for rank in ranks[:_NAMED_OUTLIERS])
    more = len(ranks) - _NAMED_OUTLIERS
    return shown + (f" (+{more} more)" if more > 0 else "")


def spread_lines(
    title: str, spread: SpreadAcross, number: Callable[[float | None], str]
) -> list[str]:
    """A per-rank figure: its distribution over the ranks, the outliers, the top ranks."""
    lines = fill(title, "", "  ")
    if spread.median is None:
        return [*lines, "  not observed on any rank"]
    lines.append(
        f"  ranks' medians: median {number(spread.median)}, p90 {number(spread.p90)},"
        f" max {number(spread.max)}"
    )
    if spread.outliers:
        lines += fill(
            f"beyond {number(spread.bound)}: {len(spread.outliers)} rank(s), "
            + _ranks(spread.outliers),
            "  outliers ",
            "           ",
        )
    else:
        lines.append(f"  outliers none (bound {number(spread.bound)})")
    if spread.not_observed:
        lines += fill(
            f"{len(spread.not_observed)} rank(s): {_ranks(spread.not_observed)}",
            "  not observed on ",
            "    ",
        )
    lines.append(
        f"  {'rank':>6} {'median':>10} {'p90':>10} {'max':>10}"
        f"   the {len(spread.top)} largest medians"
    )
    for rank in spread.top:
        item = spread.of_rank(rank)
        if item is not None:
            lines.append(
                f"  {rank:>6} {number(item.median):>10} {number(item.p90):>10}"
                f" {number(item.max):>10}"
            )
    return lines


def waited_for_lines(many: ManyRanks) -> list[str]:
    """The ranks last at the collectives, most waited for first."""
    if not many.waited_for:
        return ["waited for most: no straggler read (no collective in two ranks)"]
    lines = fill(
        "waited for most: steps a rank reached the collectives last, and its "
        "peers' median wait summed over them (ms)",
        "",
        "  ",
    )
    lines.append(f"  {'rank':>6} {'late':>9} {'peers wait':>12}")
    for item in many.waited_for:
        late = f"{item.late_steps}/{many.read_steps}"
        lines.append(f"  {item.rank:>6} {late:>9} {_ms(item.wait_ns):>12}")
    return lines


def summary_lines(result: RanksResult) -> list[str]:
    """The figures without the heat map: step time, waits, waited for, idle share."""
    many = result.many
    lines = fill(
        f"a rank's median, p90 and max over the {many.steps} common steps; an "
        f"outlier's median lies beyond the ranks' median + {OUTLIER_MADS:g} × 1.4826 "
        "× MAD (at least 3 % of a step)",
        "",
        "  ",
    )
    lines.append("")
    lines += spread_lines("step time per rank (ms)", many.step_time, _ms)
    lines.append("")
    lines += waited_for_lines(many)
    lines.append("")
    lines += spread_lines(
        "wait in the collectives per rank (ms; 0 in a step it was last)",
        many.wait,
        _ms,
    )
    lines.append("")
    lines += spread_lines(
        "GPU idle share per rank (idle ÷ span of each step's device breakdown)",
        many.idle_share,
        _pct,
    )
    return lines


def heat_map_lines(result: RanksResult) -> list[str]:
    """Ranks (or hosts) × steps, one character a cell, within 80 columns."""
    many = result.many
    heat = RunHeat.of(result.run)
    if not heat.steps:
        return ["heat map: no step recorded by every rank"]
    width = TEXT_WIDTH - _HEAT_LABEL - 1
    per_column = math.ceil(len(heat.steps) / width)
    levels = {item.rank: item.levels for item in heat.ranks}
    if many.hosts is not None:
        title = (
            f"heat map by host ({len(many.hosts)}), slowest host first: a cell is "
            "the slowest of its ranks in the step"
        )
        rows = [
            (f"{fit_end(printable(group.host), _HEAT_LABEL - 8)} ({len(group.ranks)})",
             [levels[rank] for rank in group.ranks])
            for group in many.hosts
        ]  # fmt: skip
    else:
        title = (
            "heat map, slowest median step time first (no host in the file names: "
            "not grouped)"
            if many.without_host
            else "heat map, slowest median step time first"
        )
        rows = [(f"rank {rank}", [levels[rank]]) for rank in many.order]
    lines = fill(title, "", "  ")
    key = "  ".join(
        f"{HEAT_GLYPHS[level]} {words}"
        for level, words in (
            (HeatLevel.FASTER, ">3% faster"),
            (HeatLevel.NEAR, "near"),
            (HeatLevel.SLOWER, "≤10%"),
            (HeatLevel.SLOW, "≤25%"),
            (HeatLevel.SLOWEST, "more"),
        )
    )
    lines.append(f"  vs each step's median: {key}")
    if per_column > 1:
        lines.append(f"  a column is {per_column} steps, the slowest of them")
    lines.append(f"{'step':>{_HEAT_LABEL}} " + _step_axis(heat.steps, per_column))
    hidden = len(rows) - HEAT_TOP_ROWS - HEAT_BOTTOM_ROWS
    shown = rows if hidden <= 1 else rows[:HEAT_TOP_ROWS]
    for label, members in shown:
        lines.append(_heat_row(label, members, per_column))
    if hidden > 1:
        lines.append(f"{'…':>{_HEAT_LABEL}} {hidden} more rows, all in --json")
        for label, members in rows[-HEAT_BOTTOM_ROWS:]:
            lines.append(_heat_row(label, members, per_column))
    return lines


def _step_axis(steps: tuple[int, ...], per_column: int) -> str:
    """The first step's number under the first column, the last's ending under the last."""
    columns = math.ceil(len(steps) / per_column)
    first, last = str(steps[0]), str(steps[-1])
    if columns < len(first) + len(last) + 1:
        return first
    return first + last.rjust(columns - len(first))


def _heat_row(
    label: str,
    members: list[tuple[HeatLevel | None, ...]],
    per_column: int,
) -> str:
    steps = len(members[0]) if members else 0
    cells: list[str] = []
    for start in range(0, steps, per_column):
        found = {
            level
            for levels in members
            for level in levels[start : start + per_column]
            if level is not None
        }
        worst = next((level for level in _WORST_FIRST if level in found), None)
        cells.append(" " if worst is None else HEAT_GLYPHS[worst])
    return f"{fit_end(label, _HEAT_LABEL):>{_HEAT_LABEL}} " + "".join(cells)


def panel_lines(result: RanksResult) -> list[str]:
    """The ranks screen's spread tab: the same figures, densest first, one
    paragraph each (the screen wraps them)."""
    many = result.many
    lines = [
        _compact("step time (ms)", many.step_time, _ms),
        _top_line(many.step_time, _ms),
        _waited_line(many),
        _compact("wait in the collectives (ms)", many.wait, _ms),
        _top_line(many.wait, _ms),
        _compact("GPU idle share", many.idle_share, _pct),
        _top_line(many.idle_share, _pct),
        f"an outlier's median lies beyond the ranks' median + {OUTLIER_MADS:g} × "
        "1.4826 × MAD (at least 3 % of a step); a rank's figures are over the "
        f"{many.steps} common steps",
        _hosts_line(many),
    ]
    return [line for line in lines if line]


def _compact(
    title: str, spread: SpreadAcross, number: Callable[[float | None], str]
) -> str:
    """Outliers first, then the distribution of the ranks' medians."""
    if spread.median is None:
        return f"{title}: not observed on any rank"
    if spread.outliers:
        text = (
            f"{title}: outlier(s) {_ranks(spread.outliers)} (beyond "
            f"{number(spread.bound)})"
        )
    else:
        text = f"{title}: no outlier (bound {number(spread.bound)})"
    text += (
        f" · ranks' medians: median {number(spread.median)},"
        f" p90 {number(spread.p90)}, max {number(spread.max)}"
    )
    if spread.not_observed:
        text += f" · not observed on {len(spread.not_observed)} rank(s): " + _ranks(
            spread.not_observed
        )
    return text


def _top_line(spread: SpreadAcross, number: Callable[[float | None], str]) -> str:
    """The largest medians, the first with its p90 and max."""
    cells: list[str] = []
    for rank in spread.top:
        item = spread.of_rank(rank)
        if item is None:
            continue
        cell = f"{rank} {number(item.median)}"
        if not cells:
            cell += f" (p90 {number(item.p90)}, max {number(item.max)})"
        cells.append(cell)
    return "largest medians: " + " · ".join(cells) if cells else ""


def _waited_line(many: ManyRanks) -> str:
    if not many.waited_for:
        return "waited for most: no straggler read (no collective in two ranks)"
    cells = [
        f"{item.rank} ({item.late_steps}/{many.read_steps} steps last, "
        f"peers waited {_ms(item.wait_ns)} ms)"
        for item in many.waited_for[:1]
    ] + [
        f"{item.rank} ({item.late_steps}, {_ms(item.wait_ns)})"
        for item in many.waited_for[1:]
    ]
    return "waited for most: " + " · ".join(cells)


def _hosts_line(many: ManyRanks) -> str:
    if many.hosts is not None:
        return (
            f"{len(many.hosts)} host(s) in the file names: g groups the table by "
            "host, the host of the slowest rank first"
        )
    return (
        f"no host in {len(many.without_host)} file name(s) "
        "(tensorboard_trace_handler's {hostname}_{pid}.… names state it): "
        "not grouped by host"
    )
