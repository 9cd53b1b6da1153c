"""`steptrace kernels TRACE`: kernels per name, their share of device busy time, their launches."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `kernels` subcommand."""
    parser = subparsers.add_parser(
        "kernels",
        help="kernels per name: count, min/median/max, busy share, launch figures",
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        metavar="N",
        help="only kernels starting in ProfilerStep#N",
    )
    parser.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N rows"
    )
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the kernels table."""
    import sys

    from tui.commands._common import load_for_cli, print_json
    from tui.core.figures.analysis import Analysis
    from tui.core.results.kernels import KernelsResult
    from tui.report.render import json_of, text_of

    if args.limit is not None and args.limit < 0:
        print("steptrace: --limit must be 0 or more", file=sys.stderr)
        return 2
    analysis = Analysis(load_for_cli(args.trace))
    try:
        result = KernelsResult.of(analysis, step=args.step, limit=args.limit)
    except KeyError:
        numbers = ", ".join(str(step.number) for step in analysis.steps) or "none"
        print(
            f"steptrace: no step {args.step} in this trace (steps: {numbers})",
            file=sys.stderr,
        )
        return 2
    if args.json:
        print_json(json_of(result))
    else:
        print(text_of(result))
    return 0
