"""The words of a refused or forgotten data zone, for the CLI and the app alike.

Lines carry no `steptrace: ` prefix: the CLI and the app's exit lines add it,
the comparison screen shows them as they are.
"""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.figures.zones import DATALOADER_PREFIX
from tui.core.opening.zones import ZoneRefusal, ZonesChosen, ZoneScope

WHERE = {
    ZoneScope.CAPTURE: "in this capture",
    ZoneScope.RUN: "in any rank of this run",
    ZoneScope.PAIR: "in either capture",
}
LISTS_THE_RANGES = "lists the ranges that can be a data zone"


def zone_refusal_lines(refusal: ZoneRefusal) -> list[str]:
    """One line per name that occurs nowhere, with the closest names (or where to look)."""
    where = WHERE[refusal.scope]
    lines = []
    for missing in refusal.missing:
        name = printable(missing.name)
        if refusal.scope is ZoneScope.PAIR:
            hint = f"; `steptrace zones TRACE` {LISTS_THE_RANGES}"
        elif refusal.listed is None:
            hint = ""
        elif missing.name.startswith(DATALOADER_PREFIX):
            hint = "; this capture has no enumerate(DataLoader)#… range"
        elif missing.closest:
            hint = "; closest: " + ", ".join(printable(c) for c in missing.closest)
        else:
            hint = (
                f"; no range has a name close to it; "
                f"`steptrace zones {printable(refusal.listed)}` {LISTS_THE_RANGES}"
            )
        lines.append(f"no range named '{name}' {where}{hint}")
    return lines


def forgotten_zone_notice(chosen: ZonesChosen) -> str | None:
    """A line when (part of) the zone remembered for a trace is not in it."""
    if not chosen.forgotten:
        return None
    names = ", ".join(printable(name) for name in chosen.forgotten)
    notice = f"the data zone remembered for this trace ({names}) is not in it"
    return notice + "; the default one is used" if chosen.default_kept else notice
