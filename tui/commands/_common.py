"""Helpers shared by the headless subcommands."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def json_bytes(value: Any) -> bytes:
    """Indented JSON that is inert in a terminal.

    orjson escapes only U+0000-U+001F; DEL, C1 controls, bidi overrides and
    zero-width characters from trace names are escaped here as \\u escapes, which
    leaves the JSON value unchanged.
    """
    import orjson

    from tui.core.base.textsafe import UNSAFE_BEYOND_C0

    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
    if UNSAFE_BEYOND_C0.search(text) is not None:
        text = UNSAFE_BEYOND_C0.sub(lambda match: f"\\u{ord(match.group(0)):04x}", text)
    return text.encode("utf-8") + b"\n"


def print_json(value: Any) -> None:
    """Write terminal-safe JSON to stdout."""
    sys.stdout.buffer.write(json_bytes(value))
    sys.stdout.flush()


def add_workers_option(parser: argparse.ArgumentParser) -> None:
    """`--workers N`: how many processes decode a big trace."""
    parser.add_argument(
        "--workers",
        type=_worker_count,
        default=None,
        metavar="N",
        help="processes that decode a big trace (default: the machine's cores)",
    )


def _worker_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return count


def progress_line(step: Any) -> str:
    """What a load is doing, in one line of at most 79 columns."""
    if step.workers:
        percent = 100 * step.bytes_read / max(step.bytes_total, 1)
        shares = " ".join(
            f"{100 * done / max(size, 1):.0f}%" for done, size in step.workers[:12]
        )
        more = " …" if len(step.workers) > 12 else ""
        line = f"decoding {percent:5.1f}% ({len(step.workers)} workers: {shares}{more})"
    elif step.bytes_total and step.phase.counts_bytes:
        line = f"{step.text} {100 * step.bytes_read / step.bytes_total:5.1f}%"
    elif step.events_total:
        line = f"{step.text} {step.events_done:,} of {step.events_total:,}"
    else:
        line = step.text
    return f"steptrace: {line}"[:79]


def load_for_cli(path: str, workers: int | None = None) -> Any:
    """Load a trace, with a progress line on a terminal so big files never look hung.

    `workers` processes decode a big trace (default: the machine's cores).
    """
    from tui.core.ingest.load import LoadProgress, load_trace

    show = sys.stderr.isatty()
    shown = {"line": ""}

    def progress(step: LoadProgress) -> None:
        if not show:
            return
        line = progress_line(step)
        if line != shown["line"]:
            sys.stderr.write("\r" + line.ljust(len(shown["line"])))
            sys.stderr.flush()
            shown["line"] = line

    try:
        return load_trace(path, progress=progress, cache="auto", workers=workers)
    finally:
        if show:
            sys.stderr.write("\r" + " " * 79 + "\r")
            sys.stderr.flush()
