"""The `steptrace` command line: each subcommand is a module of tui.commands, or
a row of the result commands' table (`tui.commands.results`).

Commands import their heavy dependencies (textual, torch) inside their `run`,
so headless commands stay fast and never pull in the UI.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tui import __version__

# Order is the order shown in --help.
COMMANDS = (
    "open",
    "serve",
    "demo",
    "summary",
    "ops",
    "kernels",
    "copies",
    "syncs",
    "critical",
    "queue",
    "memory",
    "collectives",
    "gaps",
    "zones",
    "diff",
    "ranks",
    "notes",
    "report",
    "findings",
    "scrub",
    "capture",
    "bench",
    "compare",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand, or `only` that one.

    One command's parser is enough to run it, and importing only its module
    keeps start-up to what the command needs.
    """
    parser = argparse.ArgumentParser(
        prog="steptrace",
        description="Explore PyTorch profiler traces in the terminal.",
    )
    parser.add_argument(
        "--version", action="version", version=f"steptrace {__version__}"
    )
    from tui.commands import results

    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        if name in results.TABLE:
            results.register(subparsers, name)
        else:
            importlib.import_module(f"tui.commands.{name}").register(subparsers)
    return parser


TRACE_SUFFIXES = (".json", ".json.gz", ".gz")


def looks_like_a_trace(word: str) -> bool:
    """Whether a first word names a file rather than a command.

    An existing path, or a name with a folder separator or a trace's suffix
    (a missing file is still a file the user meant: "no such file").
    """
    return (
        os.path.lexists(word)
        or os.sep in word
        or (os.altsep is not None and os.altsep in word)
        or word.lower().endswith(TRACE_SUFFIXES)
    )


def closest_command(word: str) -> str | None:
    """The command a mistyped word most likely meant, if one is close."""
    import difflib  # for a mistyped command only: not at every start

    matches = difflib.get_close_matches(word.lower(), COMMANDS, n=1)
    return matches[0] if matches else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status."""
    from tui.core.base.errors import TraceLoadError
    from tui.core.base.textsafe import printable

    args_list = list(sys.argv[1:] if argv is None else argv)
    # `steptrace TRACE` is short for `steptrace open TRACE`.
    first = args_list[0] if args_list else ""
    if first and not first.startswith("-") and first not in COMMANDS:
        if not looks_like_a_trace(first):
            shown = printable(first)
            meant = closest_command(first)
            if meant is not None:
                print(
                    f"steptrace: unknown command '{shown}' (did you mean {meant}?)",
                    file=sys.stderr,
                )
            else:
                print(
                    f"steptrace: {shown}: no such file, and not a command "
                    "(see steptrace --help)",
                    file=sys.stderr,
                )
            return 2
        args_list.insert(0, "open")
    command = args_list[0] if args_list else ""
    parser = build_parser(command if command in COMMANDS else None)
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
