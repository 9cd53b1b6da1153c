"""Where the events array lies in a document, and where to cut it between events."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import msgspec

from tui.core.ingest.decode.records import (
    _TOP_DECODER,
    _decode_generic,
)

# Where one event ends and the next begins: "}", a comma, "{" (whitespace between).
_EVENT_SEPARATOR = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")


_SPACE = b" \t\r\n"


# How far past a wanted cut to look for an event boundary.
_SEARCH_WINDOW = 4 * 1024 * 1024


# The header (before "traceEvents") and the trailer (after it) are small in Kineto files.
_HEADER_LIMIT = 64 * 1024 * 1024


_TRAILER_LIMIT = 1024 * 1024


_TRAILER_TRIES = 64


@dataclass(frozen=True)
class EventsLayout:
    """Where the events array lies in a document, and the document's other keys."""

    start: int  # first byte after "["
    end: int  # the closing "]"
    top_level: dict[str, Any]
    array_form: bool


def locate_events(data: Any) -> EventsLayout | None:
    """The `traceEvents` array of a plain UTF-8 Chrome trace, or None when unsure.

    The header before the array and the trailer after it are decoded on their
    own; each decodes only if the cut is where the document says it is. Any
    doubt (a byte-order mark, padding, a second `traceEvents`) is left to the
    sequential path.
    """
    size = len(data)
    first = 0
    while first < size and data[first] in _SPACE:
        first += 1
    end = size
    while end > first and data[end - 1] in _SPACE:
        end -= 1
    if end - first < 2:
        return None
    opening = data[first]
    if opening == ord("["):
        if data[end - 1] != ord("]"):
            return None
        return EventsLayout(first + 1, end - 1, {}, array_form=True)
    if opening != ord("{") or data[end - 1] != ord("}"):
        return None
    key = data.find(b'"traceEvents"', first, min(end, first + _HEADER_LIMIT))
    if key < 0:
        return None
    header = _decode_top(bytes(data[first:key]) + b'"traceEvents":0}')
    if header is None:
        return None
    position = key + len(b'"traceEvents"')
    position = _skip_space(data, position, end)
    if position >= end or data[position] != ord(":"):
        return None
    position = _skip_space(data, position + 1, end)
    if position >= end or data[position] != ord("["):
        return None
    start = position + 1
    close, trailer = _find_trailer(data, start, end)
    if trailer is None:
        return None
    top = dict(header)
    top.update(trailer)
    top.pop("traceEvents", None)
    top_level = {name: _decode_generic(value) for name, value in top.items()}
    return EventsLayout(start, close, top_level, array_form=False)


def _skip_space(data: Any, position: int, end: int) -> int:
    while position < end and data[position] in _SPACE:
        position += 1
    return position


def _decode_top(text: bytes) -> dict[str, msgspec.Raw] | None:
    """A top-level object whose last `traceEvents` is the 0 put there, or None."""
    try:
        decoded = _TOP_DECODER.decode(text)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return None
    if bytes(decoded.get("traceEvents", b"")) != b"0":
        return None  # a second traceEvents key: the sequential path decides
    return decoded


def _find_trailer(
    data: Any, start: int, end: int
) -> tuple[int, dict[str, msgspec.Raw] | None]:
    """The array's closing bracket and the keys after it, searched from the end.

    A bracket after an event's "}" (or opening an empty array) is preferred: a
    bracket inside a trailing key's value is not the end of the events. The
    last range's decode proves the choice either way.
    """
    lowest = max(start - 1, end - _TRAILER_LIMIT)
    close = end
    fallback: tuple[int, dict[str, msgspec.Raw]] | None = None
    for _ in range(_TRAILER_TRIES):
        close = data.rfind(b"]", lowest, close)
        if close < start:
            break
        trailer = _decode_top(b'{"traceEvents":0' + bytes(data[close + 1 : end]))
        if trailer is None:
            continue
        before = close - 1
        while before >= start and data[before] in _SPACE:
            before -= 1
        if before == start - 1 or data[before] == ord("}"):
            return close, trailer
        if fallback is None:
            fallback = (close, trailer)
    if fallback is not None:
        return fallback
    return -1, None


def event_ranges(data: Any, start: int, end: int, parts: int) -> list[tuple[int, int]]:
    """Cut [start, end) into at most `parts` ranges of whole events, at separators.

    Each cut is the comma between two events; the ranges exclude it. A cut is
    only a guess until its range decodes.
    """
    if parts <= 1 or end - start < 2:
        return [(start, end)]
    ranges: list[tuple[int, int]] = []
    begin = start
    for index in range(1, parts):
        target = max(start + (end - start) * index // parts, begin)
        match = _EVENT_SEPARATOR.search(data, target, min(end, target + _SEARCH_WINDOW))
        if match is None:
            continue
        comma = match.start() + match.group().index(b",")
        ranges.append((begin, comma))
        begin = comma + 1
    ranges.append((begin, end))
    return ranges
