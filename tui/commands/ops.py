"""`steptrace ops TRACE`: the operator table, torch's key_averages() per name."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `ops` subcommand."""
    parser = subparsers.add_parser(
        "ops", help="operator table: calls, self/total CPU and GPU time"
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    parser.add_argument(
        "--sort", choices=("self", "total", "calls", "name"), default="total"
    )
    parser.add_argument(
        "--device", choices=("cpu", "gpu"), default="cpu", help="which time to sort by"
    )
    parser.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N rows"
    )
    parser.add_argument(
        "--step", type=int, default=None, metavar="N", help="only ProfilerStep#N"
    )
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the operator table."""
    import sys

    from tui.commands._common import load_for_cli, print_json
    from tui.core.analysis import Analysis
    from tui.core.report import ops_dict, ops_text

    if args.limit is not None and args.limit < 0:
        print("steptrace: --limit must be 0 or more", file=sys.stderr)
        return 2
    trace = load_for_cli(args.trace)
    analysis = Analysis(trace)
    start = end = None
    if args.step is not None:
        matching = [step for step in analysis.steps if step.number == args.step]
        if not matching:
            numbers = ", ".join(str(step.number) for step in analysis.steps) or "none"
            print(
                f"steptrace: no step {args.step} in this trace (steps: {numbers})",
                file=sys.stderr,
            )
            return 2
        start, end = matching[0].start_ns, matching[0].end_ns
    data = ops_dict(
        trace, analysis.op_table(start, end), args.sort, args.device, args.limit
    )
    if args.json:
        print_json(data)
    else:
        print(ops_text(data, args.sort, args.device))
    return 0
