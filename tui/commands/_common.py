"""Helpers shared by the headless subcommands."""

from __future__ import annotations

import sys
from typing import Any


def print_json(value: Any) -> None:
    """Write JSON to stdout; non-ASCII kept, control characters escaped by the encoder."""
    import orjson

    sys.stdout.buffer.write(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def load_for_cli(path: str) -> Any:
    """Load a trace, with a progress line on a terminal so big files never look hung."""
    from tui.core.load import LoadProgress, load_trace

    show = sys.stderr.isatty()
    last = {"phase": ""}

    def progress(step: LoadProgress) -> None:
        if not show:
            return
        if step.bytes_total and step.phase in ("reading", "decompressing"):
            percent = 100 * step.bytes_read / step.bytes_total
            sys.stderr.write(f"\rsteptrace: {step.phase} {percent:5.1f}%")
        elif step.phase != last["phase"]:
            sys.stderr.write(f"\rsteptrace: {step.phase:<20}")
        last["phase"] = step.phase
        sys.stderr.flush()

    try:
        return load_trace(path, progress=progress, cache="auto")
    finally:
        if show:
            sys.stderr.write("\r" + " " * 40 + "\r")
            sys.stderr.flush()
