"""`steptrace gaps` in words: the data zone's totals, then each gap."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.results.gaps import GapsResult
from tui.report.fit import fit_end
from tui.report.summary import zone_lines


def gaps_text(result: GapsResult) -> str:
    """`steptrace gaps` for people."""
    lines = zone_lines(result.zone)
    if result.zone.total_gap_ns is None:
        return "\n".join(lines)
    lines += ["", f"{'step':>6} {'device':>6} {'start':>12} {'duration':>12}  zone"]
    for gap in result.gaps:
        step = "–" if gap.step is None else str(gap.step)
        device = "–" if gap.device is None else str(gap.device)
        lines.append(
            f"{step:>6} {device:>6} {duration_text(gap.start_ns):>12} "
            f"{duration_text(gap.duration_ns):>12}  {fit_end(printable(gap.zone), 38)}"
        )
    if not result.gaps:
        lines.append("  (the zone never waited: no gap)")
    return "\n".join(lines)
