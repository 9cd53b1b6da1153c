"""The `steptrace` command line: one subcommand per module in tui.commands.

Subcommand modules import their heavy dependencies (textual, torch) inside
their `run`, so headless commands stay fast and never pull in the UI.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tui import __version__

# Order is the order shown in --help.
COMMAND_MODULES = (
    "open",
    "demo",
    "summary",
    "ops",
    "gaps",
    "notes",
    "scrub",
    "capture",
    "bench",
    "compare",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="steptrace",
        description="Explore PyTorch profiler traces in the terminal.",
    )
    parser.add_argument(
        "--version", action="version", version=f"steptrace {__version__}"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(f"tui.commands.{module_name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status."""
    from tui.core.errors import TraceLoadError
    from tui.core.textsafe import printable

    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # `steptrace TRACE` is short for `steptrace open TRACE`.
    if (
        args_list
        and not args_list[0].startswith("-")
        and args_list[0] not in COMMAND_MODULES
    ):
        args_list.insert(0, "open")
    args = parser.parse_args(args_list)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        status: int = args.func(args)
    except TraceLoadError as error:
        print(f"steptrace: {printable(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("steptrace: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return status
