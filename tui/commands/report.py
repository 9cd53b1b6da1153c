"""`steptrace report TRACE`: one document in the method's order (text, Markdown or JSON)."""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands._common import add_workers_option
from tui.commands._zones import add_zone_option


def register(subparsers: Any) -> None:
    """Add the `report` subcommand."""
    parser = subparsers.add_parser(
        "report",
        help="one document in the method's order: question, window, CPU/GPU/waiting, "
        "findings, notes, instrumentation, resources",
        description="The capture's report, in the method's order: question, "
        "scenario, unit, window and start-up, CPU time / GPU work / waiting kept "
        "apart, findings (possible observation → hypothesis → next check), the "
        "notes with their verdicts, instrumentation and its cost, and what the "
        "capture can and cannot say about resources.",
    )
    parser.add_argument("trace", help="a .json or .json.gz Kineto/Chrome trace")
    add_zone_option(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--md", action="store_true", help="print Markdown (to paste in a ticket)"
    )
    output.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_workers_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the report; notes that cannot be read are warned about, never fatal."""
    import sys
    from pathlib import Path

    from tui.commands._common import load_for_cli, print_json
    from tui.commands._zones import analysis_for
    from tui.core.base.textsafe import printable
    from tui.notes.store import NotesStore
    from tui.report.render import text_of
    from tui.report.report import ReportResult
    from tui.report.report_markdown import report_markdown

    trace = load_for_cli(args.trace, args.workers)
    analysis = analysis_for(trace, args.zone)
    if analysis is None:
        return 2
    store = NotesStore.open(Path(args.trace))
    for problem in store.problems:
        print(f"steptrace: warning: {printable(problem)}", file=sys.stderr)
    result = ReportResult.of(analysis, store.notes)
    if args.json:
        print_json(result.to_json())
    elif args.md:
        sys.stdout.write(report_markdown(result, Path(args.trace).name))
    else:
        print(text_of(result))
    return 0
