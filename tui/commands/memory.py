"""`steptrace memory TRACE`: peak allocated per device and step, bytes per operator."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `memory` subcommand."""
    parser = subparsers.add_parser(
        "memory",
        help="profile_memory captures: peak allocated per step, bytes per operator",
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the memory reading."""
    from tui.commands._common import load_for_cli, print_json
    from tui.core.figures.analysis import Analysis
    from tui.core.results.memory import MemoryResult
    from tui.report.render import json_of, text_of

    result = MemoryResult.of(Analysis(load_for_cli(args.trace)))
    if args.json:
        print_json(json_of(result))
    else:
        print(text_of(result))
    return 0
