"""`steptrace sql TRACE QUERY`: a read-only SQL query over the trace's tables
(`events`, `kernels`, `steps`, `flows`, `tracks`; docs/commands.md), printed as
a text table, JSON or CSV."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui.commands._common import (
    add_max_memory_option,
    add_workers_option,
    one_or_more,
)
from tui.commands.errors import CommandError
from tui.commands.results import TRACE_HELP

HELP = "SQL over the trace's events, kernels, steps and flows (read-only)"


def register(subparsers: Any) -> None:
    """Add the `sql` subcommand."""
    parser = subparsers.add_parser(
        "sql",
        help=HELP,
        description="Run one SELECT (or WITH) query over the trace's tables: "
        "events, kernels, steps, flows and tracks (columns in docs/commands.md). "
        "The query reads only the trace: no file, network or setting is reachable "
        "from it. A big trace is read once and queried from its column cache.",
    )
    parser.add_argument("trace", help=TRACE_HELP)
    parser.add_argument("query", metavar="QUERY", help="one SELECT or WITH query")
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json",
        action="store_true",
        help='print {"columns": [...], "rows": [[...], ...]}',
    )
    output.add_argument("--csv", action="store_true", help="print CSV with a header")
    parser.add_argument(
        "--max-rows",
        type=one_or_more,
        default=None,
        metavar="N",
        help="refuse a query giving more rows (default: 1,000,000)",
    )
    add_workers_option(parser)
    add_max_memory_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Open the trace (through its cache), run the query, print its rows."""
    from tui.commands._common import print_json, progress_on_stderr
    from tui.core.base.vocab import CacheUse
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace
    from tui.core.ingest.source import default_max_memory
    from tui.core.results.sql import MAX_ROWS, QueryRefused, SqlResult
    from tui.report.sql import sql_csv, sql_text

    if not args.query.strip():
        raise CommandError("no SQL query given")
    with progress_on_stderr() as progress:
        trace = load_trace(
            args.trace,
            progress=progress,
            cache=CacheUse.AUTO,
            workers=args.workers,
            max_memory=args.max_memory,
        )
    try:
        result = SqlResult.of_query(
            Analysis(trace),
            args.query,
            max_rows=MAX_ROWS if args.max_rows is None else args.max_rows,
            memory_bytes=args.max_memory or default_max_memory(),
        )
    except QueryRefused as refused:
        raise CommandError(f"query refused: {refused}") from None
    if args.json:
        print_json(result.to_json())
    elif args.csv:
        sys.stdout.write(sql_csv(result, safe=sys.stdout.isatty()))
    else:
        sys.stdout.write(sql_text(result) + "\n")
    return 0
