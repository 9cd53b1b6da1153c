"""`steptrace collectives TRACE|DIR`: collectives per kind and message size, with
nccl-tests' algorithm and bus bandwidth; for a run folder, per rank, each
collective's time split into wait and transfer."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.commands.results import JSON_HELP, ResultCommand, run

if TYPE_CHECKING:
    from tui.core.figures.analysis import Analysis
    from tui.core.results.collectives import CollectivesResult

HELP = "collectives per kind and message size: count, time, algbw and busbw"


def _compute(analysis: Analysis, args: argparse.Namespace) -> CollectivesResult:
    from tui.core.results.collectives import CollectivesResult

    return CollectivesResult.of(analysis)


def _text(result: CollectivesResult, args: argparse.Namespace) -> str:
    from tui.report.collectives import collectives_text

    return collectives_text(result) + "\n"


COMMAND = ResultCommand(HELP, _compute, _text)


def register(subparsers: Any) -> None:
    """Add the `collectives` subcommand."""
    parser = subparsers.add_parser(
        "collectives",
        help=HELP,
        description="A trace's collectives per kind and message size (from "
        "record_param_comms / NCCL kernel args): count, time, algorithm and bus "
        "bandwidth by nccl-tests' formulas. A run folder: the same per rank, and "
        "each collective's time split into wait (arrival skew) and transfer.",
    )
    parser.add_argument("trace", metavar="TRACE|DIR", help="a trace or a run folder")
    parser.add_argument("--json", action="store_true", help=JSON_HELP)
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    """A folder is a run (per rank); anything else a trace."""
    if Path(args.trace).is_dir():
        print(
            "steptrace: collectives reads one trace for now; give a rank's trace",
            file=sys.stderr,
        )
        return 2
    return run(COMMAND, args)
