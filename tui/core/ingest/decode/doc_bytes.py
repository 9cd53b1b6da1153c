"""Looks at a document's bytes without copying them: spacing, the byte an error names, damage."""

from __future__ import annotations

import re

from tui.core.base.errors import TraceLoadError

# The file's bytes: a bytearray when read in place, bytes when repaired.
TraceBytes = bytes | bytearray


def _broken_in_the_middle(
    data: TraceBytes, error: BaseException, source_name: str
) -> TraceLoadError | None:
    """A syntax error no tolerant reading can get past, told without re-parsing.

    msgspec names the byte: a stray quote, a missing comma, an unknown word.
    Python's json would spend seconds (and ~10x the memory) on a big file to
    report the same place, so the line and column are counted here. NaN-like
    tokens and raw control characters left over after the in-place mends are
    not syntax errors for the tolerant parser, and go on to it.
    """
    position = _error_byte(error)
    message = str(error)
    if position is None or "trailing characters" in message:
        return None
    if "surrogate" in message or "hex escape" in message:
        return None  # a lone surrogate: the tolerant parser replaces it
    if position >= _content_end(data, b" \t\r\n\x00"):
        return None
    if "invalid character" in message and (
        data[position] < 0x20 or _non_finite_token_at(data, position) is not None
    ):
        return None
    line = data.count(b"\n", 0, position) + 1
    column = position - data.rfind(b"\n", 0, position)
    reason = _BYTE_POSITION.sub("", message.split(": ", 1)[-1]).strip()
    return TraceLoadError(
        f"{source_name}: not a trace (invalid JSON at line {line}, column {column}: "
        f"{reason})"
    )


_NON_FINITE_TOKEN = re.compile(
    rb"-?(?:NaN|Infinity|inf(?:inity)?|nan)(?![A-Za-z0-9_.])", re.IGNORECASE
)


def _non_finite_token_at(data: TraceBytes, stopped_at: int) -> re.Match[bytes] | None:
    """The NaN/Infinity-like token msgspec stopped on, if that is what it is."""
    # msgspec may stop on the sign or inside the token: take the earliest start.
    for start in (stopped_at - 2, stopped_at - 1, stopped_at):
        if start < 0:
            continue
        match = _NON_FINITE_TOKEN.match(data, start)
        if match is not None and match.end() > stopped_at:
            return match
    return None


_BYTE_POSITION = re.compile(r"\(byte (\d+)\)")


def _error_byte(error: BaseException) -> int | None:
    """The byte offset msgspec names in a malformed-JSON error, if any."""
    match = _BYTE_POSITION.search(str(error))
    return int(match.group(1)) if match else None


_WINDOW = 1 << 16


def _leading_space(data: TraceBytes, space: bytes) -> int:
    """How many bytes of `space` open `data`, without copying it (bytes.lstrip would)."""
    start = 0
    while start < len(data):
        window = data[start : start + _WINDOW]
        rest = window.lstrip(space)
        if rest:
            return start + len(window) - len(rest)
        start += _WINDOW
    return len(data)


def _content_end(data: TraceBytes, space: bytes) -> int:
    """Where `data` ends once trailing `space` bytes are dropped, without copying it."""
    end = len(data)
    while end > 0:
        window = data[max(0, end - _WINDOW) : end]
        rest = window.rstrip(space)
        if rest:
            return end - len(window) + len(rest)
        end -= len(window)
    return 0


def _first_significant_byte(data: TraceBytes) -> int | None:
    offset = _leading_space(data, b" \t\r\n\xef\xbb\xbf")
    return data[offset] if offset < len(data) else None


def _describe_byte(value: int) -> str:
    if 32 <= value < 127:
        return repr(chr(value))
    return f"byte 0x{value:02x}"


def _looks_cut_off(data: TraceBytes) -> bool:
    """A complete document ends with a closing bracket; a killed writer leaves anything else."""
    end = _content_end(data, b" \t\r\n\x00")
    return end == 0 or data[end - 1] not in b"}]"
