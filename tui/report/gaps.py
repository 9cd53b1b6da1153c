"""`steptrace gaps` in words: the data zone's totals, then each gap."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.results.gaps import GapsResult
from tui.report.fit import fit_end
from tui.report.zones import zone_lines


def gaps_text(result: GapsResult) -> str:
    """`steptrace gaps` for people."""
    lines = zone_lines(result.zone)
    if result.zone.total_gap_ns is None:
        return "\n".join(lines)
    share = result.listed_share
    if share is not None and (result.slivers.count or result.past_limit.count):
        lines.append(
            f"{plural(len(result.gaps), 'gap')} of {duration_text(result.min_ns)}"
            f" or more listed {'holds' if len(result.gaps) == 1 else 'hold'}"
            f" {share:.1%} of the gap time"
        )
    lines += ["", f"{'step':>6} {'device':>6} {'start':>12} {'duration':>12}  zone"]
    for gap in result.gaps:
        step = "–" if gap.step is None else str(gap.step)
        device = "–" if gap.device is None else str(gap.device)
        lines.append(
            f"{step:>6} {device:>6} {duration_text(gap.start_ns):>12} "
            f"{duration_text(gap.duration_ns):>12}  {fit_end(printable(gap.zone), 38)}"
        )
    if result.past_limit.count:
        lines.append(
            f"  … {plural(result.past_limit.count, 'smaller gap')} past --limit"
            f" {result.limit}: {duration_text(result.past_limit.total_ns)} in all"
        )
    if result.slivers.count:
        lines.append(
            f"  … {plural(result.slivers.count, 'sliver')} under"
            f" {duration_text(result.min_ns)}:"
            f" {duration_text(result.slivers.total_ns)} in all (--min-us 0 lists them)"
        )
    if not result.gaps and not result.slivers.count and not result.past_limit.count:
        lines.append("  (the zone never waited: no gap)")
    return "\n".join(lines)
