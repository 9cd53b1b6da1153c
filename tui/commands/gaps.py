"""`steptrace gaps TRACE`: device-idle time inside the data-reading zones."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `gaps` subcommand."""
    parser = subparsers.add_parser(
        "gaps", help="device idle time inside data zones (lecture_batch_cpu…)"
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    parser.add_argument(
        "--zone",
        action="append",
        default=[],
        metavar="NAME",
        help="another data zone (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the gaps."""
    from tui.commands._common import load_for_cli, print_json
    from tui.core.analysis import Analysis
    from tui.core.report import gaps_dict, gaps_text

    trace = load_for_cli(args.trace)
    data = gaps_dict(trace, Analysis(trace, extra_zones=tuple(args.zone)))
    if args.json:
        print_json(data)
    else:
        print(gaps_text(data))
    return 0
