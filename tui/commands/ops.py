"""`steptrace ops TRACE`: the operator table, torch's key_averages() per name."""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands._common import add_workers_option


def register(subparsers: Any) -> None:
    """Add the `ops` subcommand."""
    parser = subparsers.add_parser(
        "ops", help="operator table: calls, self/total CPU and GPU time"
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    parser.add_argument(
        "--sort",
        choices=("self", "total", "calls", "name"),
        default="self",
        help="sort key (default: self time, as the app)",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        default=None,
        help="which time to sort by (default: GPU when observed, else CPU)",
    )
    parser.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N rows"
    )
    parser.add_argument(
        "--step", type=int, default=None, metavar="N", help="only ProfilerStep#N"
    )
    parser.add_argument(
        "--group-by",
        choices=("name", "shape"),
        default="name",
        help="rows per operator name (default), or per name and input shapes "
        "as key_averages(group_by_input_shape=True)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_workers_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the operator table."""
    import sys

    from tui.commands._common import load_for_cli, print_json
    from tui.core.figures.analysis import Analysis
    from tui.core.results import OpsResult
    from tui.report.render import json_of, text_of

    if args.limit is not None and args.limit < 0:
        print("steptrace: --limit must be 0 or more", file=sys.stderr)
        return 2
    trace = load_for_cli(args.trace, args.workers)
    analysis = Analysis(trace)
    start = end = None
    scope = "whole trace"
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
        scope = f"step {args.step}"
    if args.group_by == "shape":
        from tui.core.figures.shapes import shape_op_table, shapes_in_trace

        recorded = shapes_in_trace(trace)
        result = OpsResult.of(
            shape_op_table(analysis, start, end),
            sort=args.sort,
            device=args.device,
            limit=args.limit,
            scope=scope,
            shapes_recorded=recorded,
        )
    else:
        result = OpsResult.of(
            analysis.op_table(start, end),
            sort=args.sort,
            device=args.device,
            limit=args.limit,
            scope=scope,
        )
    if args.json:
        print_json(json_of(result))
    else:
        print(text_of(result))
    return 0
