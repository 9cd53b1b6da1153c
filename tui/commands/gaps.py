"""`steptrace gaps TRACE`: device-idle time inside the data-reading zones."""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands._common import add_workers_option
from tui.commands._zones import add_zone_option


def register(subparsers: Any) -> None:
    """Add the `gaps` subcommand."""
    parser = subparsers.add_parser(
        "gaps", help="device idle time inside data zones (lecture_batch_cpu…)"
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    add_zone_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_workers_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the gaps."""
    from tui.commands._common import load_for_cli, print_json
    from tui.commands._zones import analysis_for
    from tui.core.results import GapsResult
    from tui.report.render import json_of, text_of

    trace = load_for_cli(args.trace, args.workers)
    analysis = analysis_for(trace, args.zone)
    if analysis is None:
        return 2
    result = GapsResult.of(analysis)
    if args.json:
        print_json(json_of(result))
    else:
        print(text_of(result))
    return 0
