"""`steptrace summary TRACE`: steps, zones, device busy, gaps and warnings."""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands._common import add_workers_option
from tui.commands._zones import add_zone_option


def register(subparsers: Any) -> None:
    """Add the `summary` subcommand."""
    parser = subparsers.add_parser(
        "summary", help="steps, zones, device busy and gaps of a capture"
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    add_zone_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_workers_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary."""
    from tui.commands._common import load_for_cli, print_json
    from tui.commands._zones import analysis_for
    from tui.core.results import SummaryResult
    from tui.report.render import json_of, text_of

    trace = load_for_cli(args.trace, args.workers)
    analysis = analysis_for(trace, args.zone)
    if analysis is None:
        return 2
    summary = SummaryResult.of(analysis)
    if args.json:
        print_json(json_of(summary))
    else:
        print(text_of(summary))
    return 0
