"""`steptrace zones` in words: the candidates, the chosen ones first and marked;
the data zone's line the summary and `gaps` open with."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import GapKind, ZoneSource
from tui.core.figures.zones import DATALOADER_GROUP, DEFAULT_DATA_ZONE, ZoneSummary
from tui.core.results.zones import ZonesResult
from tui.report.fit import pad_end
from tui.report.text import UNTRACED_MEANS, distinct_cuts, fill

_NAME_WIDTH = 44


def zones_text(result: ZonesResult, limit: int | None = 40) -> str:
    """A table of candidates, the chosen ones first and marked with `*`."""
    shown = result.candidates if limit is None else result.candidates[:limit]
    names = distinct_cuts([printable(c.name) for c in shown], _NAME_WIDTH)
    in_use = ", ".join(printable(name) for name in result.chosen) or "none"
    lines = fill(f"{in_use} ({result.source.label})", "data zone: ", "  ")
    lines += [
        "",
        f"  {'name':<{_NAME_WIDTH}} {'kind':<10} {'calls':>7} {'total':>12}",
    ]
    for name, candidate in zip(names, shown, strict=True):
        mark = "*" if candidate.name in result.chosen else " "
        lines.append(
            f"{mark} {pad_end(name, _NAME_WIDTH)} {candidate.kind:<10} "
            f"{candidate.calls:>7} {duration_text(candidate.total_ns):>12}"
        )
    if len(shown) < len(result.candidates):
        lines.append(f"  … {len(result.candidates) - len(shown)} more (--all)")
    if not result.candidates:
        lines.append("  (no annotation, operator or python range on a CPU thread)")
    lines.append("")
    lines += fill("choose with --zone NAME (summary, gaps, open) or z in the app")
    return "\n".join(lines)


def zone_lines(zone: ZoneSummary) -> list[str]:
    """The data zone's line: its gap against its time, or that there is none."""
    if zone.total_gap_ns is None:
        looked_for = ", ".join(
            printable(name)
            for name in zone.names or (DEFAULT_DATA_ZONE, DATALOADER_GROUP)
        )
        return fill(
            f"no data zone in this capture (looked for {looked_for}); "
            "name yours with --zone NAME",
            "gaps      ",
        )
    untraced = zone.kind is GapKind.UNTRACED
    label = "untraced time" if untraced else "GPU idle"
    names = ", ".join(printable(name) for name in zone.names)
    return fill(
        f"{label} in the data zone: {duration_text(zone.total_gap_ns)} of "
        f"{duration_text(zone.total_zone_ns)} ({names}; {zone.source.label}"
        + ("; --zone to choose another)" if zone.source is ZoneSource.PROPOSED else ")")
        + (f" — {UNTRACED_MEANS} (no GPU events)" if untraced else ""),
        "gaps      ",
    )
