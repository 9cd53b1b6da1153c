"""What the server says on its terminal: one line per event, never a traceback.

aiohttp logs a request it cannot parse (headers over 8190 bytes, too many of
them) with the whole traceback, and so would textual-serve's relay; on a
server anyone on the network can reach that is a screenful per request. Every
record of aiohttp, textual-serve and the server itself is written here as one
line, its exception reduced to its words on that line, clipped, and made
terminal-safe: the request's own bytes can be quoted in the message.
"""

from __future__ import annotations

import logging
import sys

from tui.core.base.textsafe import printable

PREFIX = "steptrace serve: "
# The loggers whose records reach the terminal, as one line each.
LOGGER_NAMES = ("aiohttp", "textual-serve", "steptrace.serve")
MAX_LINE = 300


class OneLine(logging.Formatter):
    """`steptrace serve: MESSAGE: ERROR`, printable, at most MAX_LINE characters."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            said = " ".join(str(error).split())
            text += f": {said or type(error).__name__}"
        text = printable(text)
        if len(text) > MAX_LINE:
            text = text[: MAX_LINE - 1] + "…"
        return PREFIX + text


def install() -> logging.Logger:
    """Route the server's, aiohttp's and textual-serve's records to stderr as
    one line each (warnings and above); the server's logger."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    for name in LOGGER_NAMES:
        routed = logging.getLogger(name)
        routed.handlers[:] = [handler]
        routed.setLevel(logging.WARNING)
        routed.propagate = False
    return logger()


def logger() -> logging.Logger:
    """The server's own logger."""
    return logging.getLogger("steptrace.serve")
