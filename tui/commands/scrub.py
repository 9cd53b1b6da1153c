"""`steptrace scrub`: look at what a trace gives away, and write a copy without it.

Exit status like a linter: `--check` returns 0 when nothing was found and 1
when something was; any bad input or refused output returns 2 with one line
on stderr.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tui.commands._common import add_max_memory_option
from tui.commands.errors import CommandError
from tui.core.base.errors import TraceLoadError


def register(subparsers: Any) -> None:
    """Add the `scrub` subcommand."""
    parser = subparsers.add_parser(
        "scrub",
        help="list or remove what in a trace identifies people or places",
        description=(
            "List host and user names, private paths, job metadata, e-mails, "
            "tokens and free-form zone names in a trace (--check), or write a "
            "copy with them replaced by stable placeholders (-o OUT). Timing "
            "and structure are left untouched."
        ),
    )
    parser.add_argument("trace", metavar="TRACE", help="trace file (.json or .json.gz)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "--check",
        action="store_true",
        help="list what was found; exit 0 if nothing, 1 if something",
    )
    action.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write a scrubbed copy to OUT (never overwrites; gzip if TRACE was)",
    )
    parser.add_argument(
        "--zones",
        action="store_true",
        help="also rename free-form zone names (steps and data zones are kept)",
    )
    parser.add_argument(
        "--shapes",
        action="store_true",
        help="also list and drop operator input shapes and concrete input values",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_max_memory_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check or scrub one trace; returns the exit status."""
    from tui.scrub import (
        ScrubError,
        ScrubOptions,
        check_file,
        format_check,
        format_scrub,
        scrub_file,
    )

    options = ScrubOptions(
        zones=args.zones, shapes=args.shapes, max_memory=args.max_memory
    )
    try:
        if args.check:
            check = check_file(args.trace, options)
            _emit(check.to_json() if args.json else format_check(check), args.json)
            return 0 if check.clean else 1
        report = scrub_file(args.trace, args.output, options)
    except (TraceLoadError, ScrubError) as error:
        raise CommandError(str(error)) from error
    _emit(report.to_json() if args.json else format_scrub(report), args.json)
    return 0


def _emit(content: str | dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(content, indent=2))
    else:
        print(content)
