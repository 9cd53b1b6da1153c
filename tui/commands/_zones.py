"""The `--zone NAME` option shared by the commands that read the data zone."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

ZONE_HELP = (
    "use NAME as the data zone (repeatable; default: the capture's own data zone, "
    "lecture_batch_cpu and enumerate(DataLoader)#… ranges)"
)


def add_zone_option(parser: argparse.ArgumentParser) -> None:
    """Add `--zone NAME` (repeatable)."""
    parser.add_argument(
        "--zone", action="append", default=[], metavar="NAME", help=ZONE_HELP
    )


def analysis_for(trace: Any, zones: list[str]) -> Any:
    """The analysis with the zones asked for; None (after one line on stderr) when a name occurs nowhere."""
    from tui.core.analysis import Analysis
    from tui.core.textsafe import printable
    from tui.core.zones import DATALOADER_PREFIX, zone_group

    analysis = Analysis(trace, [zone_group(name) for name in zones] or None)
    missing = analysis.missing_zone_names() if zones else []
    if not missing:
        return analysis
    present = sorted(analysis.zone_names_present)
    for name in missing:
        close = difflib.get_close_matches(name, present, n=3, cutoff=0.5)
        if not close:
            lowered = name.lower()
            close = [
                candidate for candidate in present if lowered in candidate.lower()
            ][:3]
        hint = (
            "; closest: " + ", ".join(printable(candidate) for candidate in close)
            if close
            else f"; `steptrace zones {printable(str(trace.path))}` lists the ranges"
            " that can be a data zone"
        )
        if name.startswith(DATALOADER_PREFIX):
            hint = "; this capture has no enumerate(DataLoader)#… range"
        print(
            f"steptrace: no range named '{printable(name)}' in this capture{hint}",
            file=sys.stderr,
        )
    return None
