"""Helpers shared by the headless subcommands."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any


def json_bytes(value: Any) -> bytes:
    """Indented JSON that is inert in a terminal.

    orjson escapes only U+0000-U+001F; DEL, C1 controls, bidi overrides,
    zero-width and other format characters from trace names are escaped here
    as \\u escapes (surrogate pairs above U+FFFF), which leave the JSON value
    unchanged.
    """
    import orjson

    from tui.core.base.textsafe import UNSAFE_BEYOND_C0, json_escape

    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
    if UNSAFE_BEYOND_C0.search(text) is not None:
        text = UNSAFE_BEYOND_C0.sub(json_escape, text)
    return text.encode("utf-8") + b"\n"


def print_json(value: Any) -> None:
    """Write terminal-safe JSON to stdout."""
    sys.stdout.buffer.write(json_bytes(value))
    sys.stdout.flush()


def add_workers_option(parser: argparse.ArgumentParser) -> None:
    """`--workers N`: how many processes decode a big trace."""
    parser.add_argument(
        "--workers",
        type=one_or_more,
        default=None,
        metavar="N",
        help="processes that decode a big trace (default: the machine's cores)",
    )


def add_max_memory_option(parser: argparse.ArgumentParser) -> None:
    """`--max-memory SIZE`: how much memory reading the trace may plan to use."""
    parser.add_argument(
        "--max-memory",
        type=_memory_size,
        default=None,
        metavar="SIZE",
        help=(
            "memory a trace's events may need, estimated while it is read, as 8G, "
            "512M or bytes (default: STEPTRACE_MAX_MEMORY, else a quarter of this "
            "machine's memory); a trace needing more is refused before it fills memory"
        ),
    )


def _memory_size(text: str) -> int:
    from tui.core.base.units import parse_size

    size = parse_size(text)
    if size is None:
        raise argparse.ArgumentTypeError(f"not a size such as 8G or 512M: {text!r}")
    return size


def _whole_number_from_one(text: str, not_number: str, too_small: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{not_number}: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(too_small)
    return value


def one_or_more(text: str) -> int:
    """An argparse type: a whole number of 1 or more ("not a number", "must be 1
    or more" otherwise)."""
    return _whole_number_from_one(text, "not a number", "must be 1 or more")


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1 ("not a whole number",
    "must be at least 1" otherwise)."""
    return _whole_number_from_one(text, "not a whole number", "must be at least 1")


@contextlib.contextmanager
def progress_on_stderr() -> Iterator[Callable[[Any], None]]:
    """A load's progress callback drawing one line on a terminal's stderr (nothing
    elsewhere), so big files never look hung; the line goes at the end."""
    from tui.report.progress import LINE_WIDTH, load_line

    show = sys.stderr.isatty()
    shown = {"line": ""}

    def progress(step: Any) -> None:
        if not show:
            return
        line = load_line(step)
        if line != shown["line"]:
            sys.stderr.write("\r" + line.ljust(len(shown["line"])))
            sys.stderr.flush()
            shown["line"] = line

    try:
        yield progress
    finally:
        if show:
            sys.stderr.write("\r" + " " * LINE_WIDTH + "\r")
            sys.stderr.flush()


def load_for_cli(path: str, workers: int | None = None) -> Any:
    """Load a trace, with a progress line on a terminal.

    `workers` processes decode a big trace (default: the machine's cores).
    """
    from tui.core.base.vocab import CacheUse
    from tui.core.ingest.load import load_trace

    with progress_on_stderr() as progress:
        return load_trace(path, progress=progress, cache=CacheUse.AUTO, workers=workers)


def add_window_option(parser: argparse.ArgumentParser) -> None:
    """`--window N`: which of a worker's windows a folder opens."""
    parser.add_argument(
        "--window",
        type=int,
        default=None,
        metavar="N",
        help="TRACE is a folder of one worker's windows (tensorboard_trace_handler): "
        "open window N, from 1 (the oldest); default: the newest",
    )


def trace_in(given: str, window: int | None, command: str) -> tuple[str, str | None]:
    """The trace `given` names: itself, or the trace its folder stands for, with
    the line saying which window was opened (None when there is nothing to say).
    A folder of several workers, or of no trace, is refused (CommandError)."""
    from pathlib import Path

    from tui.commands.errors import CommandError

    path = Path(given)
    if not path.is_dir():
        if window is not None:
            raise CommandError(
                f"--window picks a window of a folder; {given} is not a folder"
            )
        return given, None
    from tui.core.base.errors import TraceLoadError
    from tui.core.runs.folder import FolderRun, read_folder
    from tui.report.folder import run_folder_lines, window_notice

    try:
        found = read_folder(path, window)
    except TraceLoadError as error:
        raise CommandError(str(error)) from None
    if isinstance(found, FolderRun):
        raise CommandError(*run_folder_lines(given, found, command))
    return str(found.path), window_notice(given, found)
