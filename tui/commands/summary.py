"""`steptrace summary TRACE`: steps, zones, device busy, gaps and warnings."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `summary` subcommand."""
    parser = subparsers.add_parser(
        "summary", help="steps, zones, device busy and gaps of a capture"
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
    """Print the summary."""
    from tui.commands._common import load_for_cli, print_json
    from tui.core.analysis import Analysis
    from tui.core.report import summary_dict, summary_text

    trace = load_for_cli(args.trace)
    summary = summary_dict(trace, Analysis(trace, extra_zones=tuple(args.zone)))
    if args.json:
        print_json(summary)
    else:
        print(summary_text(summary))
    return 0
