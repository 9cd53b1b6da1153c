"""`steptrace zones` in words: the candidates, the chosen ones first and marked;
the data zone's line the summary and `gaps` open with."""

from __future__ import annotations

from rich.cells import cell_len

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import GapKind, ZoneSource
from tui.core.figures.zones import DATALOADER_GROUP, DEFAULT_DATA_ZONE, ZoneSummary
from tui.core.results.zones import ZonesResult
from tui.report.fit import fit_end, pad_end
from tui.report.text import TEXT_WIDTH, UNTRACED_MEANS, fill

_NAME_WIDTH = 44


def zones_text(
    result: ZonesResult, limit: int | None = 40, width: int | None = TEXT_WIDTH
) -> str:
    """A table of candidates, the chosen ones first and marked with `*`, at
    `width` columns (None: every name whole); a name longer than its column is
    cut at its end."""
    shown = result.candidates if limit is None else result.candidates[:limit]
    names = [printable(c.name) for c in shown]
    longest = max(map(cell_len, names), default=0)
    if width is not None:
        longest = min(longest, width - (TEXT_WIDTH - 2 - _NAME_WIDTH))
    room = max(_NAME_WIDTH, longest)
    in_use = ", ".join(printable(name) for name in result.chosen) or "none"
    lines = fill(f"{in_use} ({result.source.label})", "data zone: ", "  ")
    lines += [
        "",
        f"  {'name':<{room}} {'kind':<10} {'calls':>7} {'total':>12}",
    ]
    for name, candidate in zip(names, shown, strict=True):
        mark = "*" if candidate.name in result.chosen else " "
        lines.append(
            f"{mark} {pad_end(fit_end(name, room), room)} {candidate.kind:<10} "
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
