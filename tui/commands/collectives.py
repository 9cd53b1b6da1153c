"""`steptrace collectives TRACE|DIR`: collectives per kind and message size, with
nccl-tests' algorithm and bus bandwidth; for a run folder, per rank, each
collective's time split into wait and transfer."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tui.commands.results import JSON_HELP, ResultCommand

HELP = "collectives per kind and message size: count, time, algbw and busbw"

COMMAND = ResultCommand(
    "collectives",
    HELP,
    "tui.core.results.collectives:CollectivesResult",
    "tui.report.collectives:collectives_text",
)
"""A trace's collectives, computed and printed as every result command's."""


def register(subparsers: Any) -> None:
    """Add the `collectives` subcommand."""
    parser = subparsers.add_parser(
        COMMAND.name,
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
        return _run_folder(args)
    return COMMAND.run(args)


def _run_folder(args: argparse.Namespace) -> int:
    """Every rank of the folder, its collectives split into wait and transfer."""
    from tui.commands._common import print_json
    from tui.core.results.collectives import RunCollectivesResult
    from tui.core.runs.collectives_across import read_run_collectives
    from tui.report.collectives import run_collectives_text

    result = RunCollectivesResult(read_run_collectives(args.trace))
    if args.json:
        print_json(result.to_json())
    else:
        sys.stdout.write(run_collectives_text(result) + "\n")
    return 0
