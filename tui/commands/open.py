"""`steptrace open TRACE` (also `steptrace TRACE`): explore a capture in the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `open` subcommand."""
    parser = subparsers.add_parser(
        "open",
        help="explore a trace in the terminal (also: steptrace TRACE)",
        description="Open a PyTorch profiler trace (.json or .json.gz) in the explorer.",
    )
    parser.add_argument("trace", help="trace file (Kineto / Chrome trace JSON)")
    parser.set_defaults(func=run)


def open_in_app(path: Path) -> int:
    """Run the explorer on `path`; its exit status (2 when the file could not be read)."""
    from tui.app.app import StepTraceApp

    app = StepTraceApp(path)
    status = app.run()
    return int(status or 0)


def run(args: argparse.Namespace) -> int:
    """Check the file exists, then start the app (which loads it with progress)."""
    from tui.core.textsafe import printable

    path = Path(args.trace)
    if path.is_dir():
        print(
            f"steptrace: {printable(args.trace)}: is a folder, not a trace file",
            file=sys.stderr,
        )
        return 2
    if not path.exists():
        print(f"steptrace: {printable(args.trace)}: no such file", file=sys.stderr)
        return 2
    return open_in_app(path)
