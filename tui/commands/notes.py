"""`steptrace notes`: list, export, add and update the notes saved next to a trace.

The first word may be a verb (`add`, `set`, `rm`); otherwise it is the trace.
Bad input is one line on stderr and exit status 2, never a traceback. This
module only registers the command (`--help` reads it); the work, and what it
imports, is in `notes_run`.
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands._notes_args import USAGE, add_format_options

DESCRIPTION = """\
Notes are hypotheses about a capture (observation → hypothesis → next check),
saved in TRACE.notes.json next to the trace. Without a verb, list them, or
export them as JSON or as a Markdown report to paste in a ticket.
`set --tested-by AFTER` links a hypothesis to the capture that tested it: the
result records the verdict of `steptrace diff TRACE AFTER` (faster or slower
only when the step-time ranges do not overlap, else inconclusive)."""


def register(subparsers: Any) -> None:
    """Add the `notes` subcommand."""
    parser = subparsers.add_parser(
        "notes",
        help="list, export, add or update the notes saved next to a trace",
        usage=USAGE,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_format_options(parser)
    parser.add_argument("words", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List/export (no verb), or `add`, `set`, `rm` a note (imported when run)."""
    from tui.commands.notes_run import run_notes

    return run_notes(args)
