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
    from tui.core.figures.analysis import Analysis
    from tui.core.figures.zones import zone_group

    analysis = Analysis(trace, [zone_group(name) for name in zones] or None)
    problems = unknown_zone_lines(analysis, zones)
    if not problems:
        return analysis
    for line in problems:
        print(line, file=sys.stderr)
    return None


def unknown_zone_lines(
    analysis: Any, zones: list[str], where: str = "in this capture"
) -> list[str]:
    """One line per asked-for zone name that occurs nowhere, with the closest names."""
    from tui.core.base.textsafe import printable
    from tui.core.figures.zones import DATALOADER_PREFIX

    missing = analysis.missing_zone_names() if zones else []
    present = sorted(analysis.zone_names_present)
    lines = []
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
            else f"; `steptrace zones {printable(str(analysis.trace.path))}` lists the ranges"
            " that can be a data zone"
        )
        if name.startswith(DATALOADER_PREFIX):
            hint = "; this capture has no enumerate(DataLoader)#… range"
        lines.append(f"steptrace: no range named '{printable(name)}' {where}{hint}")
    return lines
