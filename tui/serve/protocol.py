"""What a page may send on its WebSocket, checked before it reaches an app.

textual.js sends `["stdin", TEXT]`, `["resize", {"width": W, "height": H}]`,
`["ping", TEXT]`, `["focus"]` and `["blur"]`. textual-serve relays them as
they come: a `["resize", {"width": 30000, ...}]` grew the app without limit,
and `["stdin", 123]` or `[]` raised deep in the relay. Here each message is
parsed into one typed value, a size capped as the URL's is; anything else is
`Malformed`, which the server drops with one log line, and the session goes on.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

# The most columns or rows a page may ask for, in its URL or a resize.
MAX_CELLS = 1000


class Malformed(ValueError):
    """A message that is not one textual.js sends; its text says why."""


@dataclass(frozen=True)
class Stdin:
    """Keys and mouse events, as the terminal would send them."""

    text: str


@dataclass(frozen=True)
class Resize:
    """The page's terminal size, in cells, capped to 1..MAX_CELLS."""

    width: int
    height: int


@dataclass(frozen=True)
class Ping:
    """A keep-alive, answered with `["pong", data]`."""

    data: str


@dataclass(frozen=True)
class Focus:
    """The page gained (True) or lost (False) the focus."""

    focused: bool


Message = Stdin | Resize | Ping | Focus


def cells(value: Any, default: int) -> int:
    """A number of columns or rows, capped to 1..MAX_CELLS (`default` if not a number)."""
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    if isinstance(value, float) and not math.isfinite(value):
        return default
    return min(max(int(value), 1), MAX_CELLS)


def _size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Malformed("a resize without a numeric width and height")
    if isinstance(value, float) and not math.isfinite(value):
        raise Malformed("a resize to a size that is not finite")
    return min(max(int(value), 1), MAX_CELLS)


def _text(envelope: list[Any], kind: str) -> str:
    if len(envelope) != 2 or not isinstance(envelope[1], str):
        raise Malformed(f"a {kind} message without its text")
    return envelope[1]


def parse_message(text: str) -> Message:
    """The message `text` holds; `Malformed` when it is not one textual.js sends."""
    try:
        envelope = json.loads(text)
    except ValueError:
        raise Malformed("not JSON") from None
    if not isinstance(envelope, list) or not envelope:
        raise Malformed("not a [type, data] list")
    kind = envelope[0]
    if kind == "stdin":
        return Stdin(_text(envelope, kind))
    if kind == "ping":
        return Ping(_text(envelope, kind))
    if kind == "resize":
        size = envelope[1] if len(envelope) == 2 else None
        if not isinstance(size, dict):
            raise Malformed("a resize without a size")
        return Resize(_size(size.get("width")), _size(size.get("height")))
    if kind in ("focus", "blur") and len(envelope) == 1:
        return Focus(kind == "focus")
    raise Malformed("an unknown message type")
