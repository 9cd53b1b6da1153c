"""The words of a refused or forgotten data zone, for the CLI and the app alike,
and of a note's anchor that points at nothing in its capture.

Lines carry no `steptrace: ` prefix: the CLI and the app's exit lines add it,
the comparison screen shows them as they are.
"""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.vocab import FindingId
from tui.core.figures.zones import DATALOADER_PREFIX
from tui.core.opening.zones import ZoneRefusal, ZonesChosen, ZoneScope
from tui.notes.anchor_check import AnchorMiss
from tui.notes.model import Anchor, AnchorKind, us_text

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


def anchor_argument(anchor: Anchor) -> str:
    """An anchor as `--anchor` takes it: `step:3`, `op:aten::mm`, `range:0-250.5`."""
    if anchor.kind is AnchorKind.STEP:
        return f"step:{anchor.step}"
    if anchor.kind is AnchorKind.OP:
        return f"op:{anchor.name}"
    if anchor.kind is AnchorKind.RANGE:
        return f"range:{us_text(anchor.start_ns or 0)}-{us_text(anchor.end_ns or 0)}"
    if anchor.kind is AnchorKind.FINDING:
        return f"finding:{anchor.finding_id}"
    return anchor.describe()


def anchor_miss_line(miss: AnchorMiss) -> str:
    """What the anchor points at that is not in the capture, and the closest anchors."""
    anchor = miss.anchor
    if anchor.kind is AnchorKind.STEP:
        if miss.steps is None:
            held = "no step"
        elif miss.steps[0] == miss.steps[1]:
            held = f"only step {miss.steps[0]}"
        else:
            held = f"steps {miss.steps[0]}–{miss.steps[1]}"
        line = f"no step {anchor.step} in this capture ({held})"
    elif anchor.kind is AnchorKind.OP:
        line = f"no operator named '{anchor.name}' in this capture"
        if not miss.closest:
            line += "; no operator has a name close to it (steptrace ops lists them)"
    elif anchor.kind is AnchorKind.RANGE:
        line = (
            f"{anchor.describe()} lies outside this capture "
            f"(0–{us_text(miss.span_ns)} µs)"
        )
    else:
        line = f"no finding '{anchor.finding_id}'"
        if not miss.closest:
            line += " (findings: " + ", ".join(FindingId) + ")"
    if miss.closest:
        line += "; closest: " + ", ".join(anchor_argument(a) for a in miss.closest)
    return printable(line)
