"""`--zone NAME` for a run (`steptrace ranks DIR`, `steptrace open DIR`).

A name counts when at least one rank holds it (each rank's summary lists the
zone names it holds); a name that no rank holds is refused, one line each,
with the closest names of the first rank (its trace comes from the column
cache, read only on this error path).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WHERE = "in any rank of this run"


def zone_names(names: Sequence[str]) -> list[str]:
    """Names as a zone choice uses them (every DataLoader range is one name)."""
    from tui.core.figures.zones import zone_group

    return [zone_group(name) for name in names]


def missing_in_every_rank(run: Any, names: Sequence[str]) -> list[str]:
    """The asked-for names that no loaded rank holds."""
    held = {name for row in run.ranks for name in row.summary.zones}
    return [name for name in zone_names(names) if name not in held]


def run_zone_refusal(run: Any, names: Sequence[str]) -> list[str]:
    """One line per asked-for name that no rank holds (empty when all are held)."""
    from tui.commands._zones import unknown_zone_lines
    from tui.core.base.errors import TraceLoadError
    from tui.core.base.textsafe import printable
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace

    missing = missing_in_every_rank(run, names) if run.ranks else []
    if not missing:
        return []
    try:
        trace = load_trace(run.ranks[0].path, cache="auto")
    except TraceLoadError:
        return [
            f"steptrace: no range named '{printable(name)}' {WHERE}" for name in missing
        ]
    return unknown_zone_lines(Analysis(trace, missing), missing, WHERE)
