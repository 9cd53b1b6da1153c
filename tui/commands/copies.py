"""`steptrace copies TRACE`: copies and sets by direction, per step, and who issued them."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `copies` subcommand."""
    parser = subparsers.add_parser(
        "copies",
        help="host↔device copies and sets: count, bytes, time, per step, repeated",
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the copies."""
    from tui.commands._common import load_for_cli, print_json
    from tui.core.figures.analysis import Analysis
    from tui.core.results.copies import CopiesResult
    from tui.report.render import json_of, text_of

    result = CopiesResult.of(Analysis(load_for_cli(args.trace)))
    if args.json:
        print_json(json_of(result))
    else:
        print(text_of(result))
    return 0
