"""Helpers shared by the headless subcommands."""

from __future__ import annotations

import sys
from typing import Any


def json_bytes(value: Any) -> bytes:
    """Indented JSON that is inert in a terminal.

    orjson escapes only U+0000-U+001F; DEL, C1 controls, bidi overrides and
    zero-width characters from trace names are escaped here as \\u escapes, which
    leaves the JSON value unchanged.
    """
    import orjson

    from tui.core.textsafe import UNSAFE_BEYOND_C0

    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
    if UNSAFE_BEYOND_C0.search(text) is not None:
        text = UNSAFE_BEYOND_C0.sub(lambda match: f"\\u{ord(match.group(0)):04x}", text)
    return text.encode("utf-8") + b"\n"


def print_json(value: Any) -> None:
    """Write terminal-safe JSON to stdout."""
    sys.stdout.buffer.write(json_bytes(value))
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
        elif step.events_total:
            sys.stderr.write(
                f"\rsteptrace: {step.phase} {step.events_done:,} of {step.events_total:,}"
            )
        elif step.phase != last["phase"]:
            sys.stderr.write(f"\rsteptrace: {step.phase:<30}")
        last["phase"] = step.phase
        sys.stderr.flush()

    try:
        return load_trace(path, progress=progress, cache="auto")
    finally:
        if show:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()
