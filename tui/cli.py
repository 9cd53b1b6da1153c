"""The `steptrace` command line: the commands of `tui.commands.registry`, in its
order, and the one place a command's refusal is printed.

Commands import their heavy dependencies (textual, torch) inside their `run`,
so headless commands stay fast and never pull in the UI. A command that
refuses raises `CommandError`; `main` prints it and returns its status.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tui import __version__
from tui.commands.errors import CommandError, notice, print_refusal
from tui.commands.registry import BY_NAME, COMMANDS, NAMES


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
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS if only is None else (BY_NAME[only],):
        command.register(subparsers)
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

    matches = difflib.get_close_matches(word.lower(), NAMES, n=1)
    return matches[0] if matches else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status.

    Every refusal ends here: a `CommandError` from anywhere in a command, or the
    core's `TraceLoadError` for a file that cannot be read, is printed as
    `steptrace: LINE` on stderr, with nothing on stdout after it.
    """
    from tui.core.base.errors import TraceLoadError

    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except (CommandError, TraceLoadError) as error:
        refusal = error if isinstance(error, CommandError) else CommandError(str(error))
        print_refusal(refusal)
        return refusal.status
    except KeyboardInterrupt:
        notice("interrupted")
        return 130
    except BrokenPipeError:
        return 0


def _dispatch(words: list[str]) -> int:
    """Parse the words and run the command they name."""
    # `steptrace TRACE` is short for `steptrace open TRACE`.
    first = words[0] if words else ""
    if first and not first.startswith("-") and first not in NAMES:
        if not looks_like_a_trace(first):
            meant = closest_command(first)
            if meant is not None:
                raise CommandError(f"unknown command '{first}' (did you mean {meant}?)")
            raise CommandError(
                f"{first}: no such file, and not a command (see steptrace --help)"
            )
        words.insert(0, "open")
    command = words[0] if words else ""
    parser = build_parser(command if command in NAMES else None)
    args = parser.parse_args(words)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    status: int = args.func(args)
    return status
