"""`steptrace diff BEFORE AFTER`: two traces of the same window compared; or
`steptrace diff --before A1 A2 A3 --after B1 B2 B3`: several runs a side.

Not to be confused with `steptrace compare`, which compares two bench
results (timed without the profiler).
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands._common import add_workers_option
from tui.commands._zones import add_zone_option


def register(subparsers: Any) -> None:
    """Add the `diff` subcommand."""
    parser = subparsers.add_parser(
        "diff",
        help="compare two traces: steps and verdict, operators, data zone, kernels "
        "(two bench results: compare)",
        description="Compare captures (trace files) of the same window: step "
        "times and a verdict (one capture a side: at most likely_faster or "
        "likely_slower, since run-to-run variance is unknown; several runs a "
        "side with --before/--after: faster or slower when 3 runs a side "
        "separate beyond their spread; not_comparable across devices or world "
        "sizes), what moved (each finding's cost per step), operators, data "
        "zone and kernels per step and over the whole trace, and what the "
        "traces record to compare. A stalled first or last step is set aside "
        "with its reason. For two `steptrace bench` results, use `steptrace "
        "compare`.",
    )
    parser.add_argument("before", nargs="?", help="the trace before the change")
    parser.add_argument("after", nargs="?", help="the trace after the change")
    parser.add_argument(
        "--before",
        dest="before_runs",
        nargs="+",
        default=None,
        metavar="TRACE",
        help="several captures (runs) of the before side, in place of BEFORE",
    )
    parser.add_argument(
        "--after",
        dest="after_runs",
        nargs="+",
        default=None,
        metavar="TRACE",
        help="several captures (runs) of the after side, in place of AFTER",
    )
    add_zone_option(parser)
    parser.add_argument(
        "--sort",
        choices=("self", "total", "calls", "name"),
        default="self",
        help="order operators by the largest change of this column (default: self)",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        default=None,
        help="which time the change is read on (default: GPU when both captures "
        "hold GPU events, else CPU)",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="at most N operator and kernel rows (default: all in JSON, 20 in text)",
    )
    parser.add_argument(
        "--group-by",
        choices=("name", "shape"),
        default="name",
        help="match operators by name (default), or by name and input shapes when "
        "both captures recorded them",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json", action="store_true", help="print JSON (see docs/diff.md)"
    )
    output.add_argument(
        "--text",
        action="store_true",
        help="print text even on a terminal (where the comparison screen opens "
        "otherwise); pipes and scripts always get text",
    )
    add_workers_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Open the comparison screen on a terminal, else print the diff; refused
    (CommandError) for a bad flag, an unreadable trace or a zone in neither capture."""
    from tui.commands.results import limit_checked

    limit_checked(args)
    before, after = sides(args)
    if not args.json and not args.text and len(before) == len(after) == 1:
        from tui.commands.open import has_terminal

        if has_terminal():
            return _open_comparison(args)
    return _print(args, before, after)


def sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The traces of each side: BEFORE AFTER, or --before and --after, never both."""
    from tui.commands.errors import CommandError

    runs = args.before_runs is not None or args.after_runs is not None
    pair = args.before is not None or args.after is not None
    if runs and not pair and args.before_runs and args.after_runs:
        return list(args.before_runs), list(args.after_runs)
    if pair and not runs and args.before is not None and args.after is not None:
        return [args.before], [args.after]
    raise CommandError(
        "diff takes BEFORE AFTER, or --before TRACE... and --after TRACE..."
    )


def _open_comparison(args: argparse.Namespace) -> int:
    """The explorer on BEFORE, with the comparison screen over it."""
    import sys
    from pathlib import Path

    from tui.commands.open import openable

    for given in (args.before, args.after):
        openable(given)
    from tui.app.app import StepTraceApp
    from tui.app.screens.comparison_data import CompareRequest
    from tui.core.base.vocab import SortKey, TimeDevice

    request = CompareRequest(
        Path(args.after),
        SortKey(args.sort),
        TimeDevice(args.device) if args.device else None,
        by_shape=args.group_by == "shape",
        zones=tuple(args.zone),
    )
    app = StepTraceApp(Path(args.before), compare=request)
    app.run()
    for line in app.exit_lines:
        print(line, file=sys.stderr)
    return int(app.return_code or 0)


def _print(args: argparse.Namespace, before: list[str], after: list[str]) -> int:
    """The diff as text or JSON on stdout."""
    from tui.commands._common import print_json, progress_on_stderr
    from tui.commands._zones import zone_refused
    from tui.core.opening.capture import open_beside, open_pair
    from tui.core.opening.zones import ZoneRefusal
    from tui.core.results.diff import DiffResult
    from tui.report.diff import diff_text

    with progress_on_stderr() as progress:
        pair = open_pair(
            before[0],
            after[0],
            asked=args.zone,
            progress=progress,
            workers=args.workers,
        )
        if isinstance(pair, ZoneRefusal):
            raise zone_refused(pair)
        opened = {"before": [pair.before], "after": [pair.after]}
        for word, paths in (("before", before[1:]), ("after", after[1:])):
            for path in paths:
                other = open_beside(
                    pair.before,
                    path,
                    asked=args.zone,
                    progress=progress,
                    workers=args.workers,
                )
                if isinstance(other, ZoneRefusal):
                    raise zone_refused(other)
                opened[word].append(other.after)
    result = DiffResult.of_runs(
        tuple(opened["before"]),
        tuple(opened["after"]),
        sort=args.sort,
        device=args.device,
        limit=args.limit,
        by_shape=args.group_by == "shape",
    )
    if args.json:
        print_json(result.to_json())
    else:
        print(diff_text(result))
    return 0
