"""The `--zone NAME` option shared by the commands that read the data zone."""

from __future__ import annotations

import argparse
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
    """The analysis with the zones asked for; None (after one line each on stderr)
    when a name occurs nowhere."""
    from tui.core.opening.zones import ZoneRefusal, resolve_zones

    resolved = resolve_zones(trace, zones)
    if not isinstance(resolved, ZoneRefusal):
        return resolved.analysis
    print_refusal(resolved)
    return None


def print_refusal(refusal: Any) -> None:
    """A refused zone on stderr, one line per name."""
    from tui.report.refusals import zone_refusal_lines

    for line in zone_refusal_lines(refusal):
        print(f"steptrace: {line}", file=sys.stderr)
