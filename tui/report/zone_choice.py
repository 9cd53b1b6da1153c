"""The line saying the data zone is the user's annotation steptrace proposed:
light (no rich), as every result command may print it before its output."""

from __future__ import annotations

from collections.abc import Sequence

from tui.core.base.textsafe import printable
from tui.core.base.vocab import ZoneSource


def proposed_zone_line(names: Sequence[str], source: ZoneSource) -> str | None:
    """`data zone: load_batch (your annotation, once per step); --zone to choose
    another` when the zone is the user's annotation steptrace proposed, else None."""
    if source is not ZoneSource.PROPOSED:
        return None
    shown = ", ".join(printable(name) for name in names)
    return f"data zone: {shown} ({source.label}); --zone to choose another"
