"""`steptrace zones TRACE`: which ranges can be the data zone, and which one is used."""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands._zones import add_zone_option


def register(subparsers: Any) -> None:
    """Add the `zones` subcommand."""
    parser = subparsers.add_parser(
        "zones",
        help="ranges that can be the data zone (annotations, DataLoader, operators)",
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    add_zone_option(parser)
    parser.add_argument("--all", action="store_true", help="list every candidate")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the candidates."""
    from tui.commands._common import load_for_cli, print_json
    from tui.commands._zones import analysis_for
    from tui.core.results.zones import ZonesResult
    from tui.report.zones import zones_text

    trace = load_for_cli(args.trace)
    analysis = analysis_for(trace, args.zone)
    if analysis is None:
        return 2
    result = ZonesResult.of(analysis)
    if args.json:
        print_json(result.to_json())
    else:
        print(zones_text(result, None if args.all else 40))
    return 0
