"""`steptrace compare BEFORE.json AFTER.json`: two bench results side by side.

Reads JSON only, so it works without torch: the logic lives in
`collector.compare`, which never imports torch.
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands.errors import CommandError


def register(subparsers: Any) -> None:
    """Add the `compare` subcommand."""
    parser = subparsers.add_parser(
        "compare",
        help="compare two bench results (inconclusive when ranges overlap; two "
        "traces: diff)",
        description="Compare two `steptrace bench` results: raw values, medians and "
        "ranges side by side. For two traces (captures), use `steptrace diff`.",
    )
    parser.add_argument("before", help="RESULT.json before the change")
    parser.add_argument("after", help="RESULT.json after the change")
    parser.add_argument(
        "--json", action="store_true", help="print the comparison as JSON"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the comparison; refused for a file that is not a bench result."""
    import orjson

    from collector.compare import compare_files, format_comparison
    from collector.errors import ResultFormatError

    try:
        comparison = compare_files(args.before, args.after)
    except ResultFormatError as error:
        raise CommandError(str(error)) from error
    if args.json:
        print(orjson.dumps(comparison.to_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        print(format_comparison(comparison))
    return 0
