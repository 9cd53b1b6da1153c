"""Decode trace JSON into light per-event records, tolerating broken files.

The fast path is msgspec with a typed record that skips unknown fields and
keeps `ts` and `args` as raw JSON text: `ts` is parsed exactly later (float64
loses the nanoseconds of absolute microsecond epochs) and `args` is only
decoded when someone looks at an event. Broken files (NaN, lone surrogates,
invalid UTF-8, a file cut off mid-way) fall back to slower, tolerant paths
that keep every complete event and say what was lost. A file that is broken
in the middle (not cut) is refused with the line and column, never shown as
if it were merely cut off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import printable
from tui.core.base.units import size_text
from tui.core.ingest.decode.cutoff import _SURROGATE_ESCAPE_BYTES, _recover_cut_off
from tui.core.ingest.decode.doc_bytes import (
    TraceBytes,
    _broken_in_the_middle,
    _describe_byte,
    _error_byte,
    _first_significant_byte,
    _looks_cut_off,
    _non_finite_token_at,
)
from tui.core.ingest.decode.records import (
    EMPTY_RAW,
    DecodedTrace,
    EventSource,
    RawEvent,
    _decode_fast,
)
from tui.core.ingest.decode.tolerant import (
    _INVALID_UTF8_WARNING,
    _decode_tolerant,
    _InvalidJson,
)

__all__ = [
    "EMPTY_RAW",
    "DecodedTrace",
    "EventSource",
    "RawEvent",
    "TraceBytes",
    "decode_trace",
]


def decode_trace(data: TraceBytes, source_name: str = "trace") -> DecodedTrace:
    """Decode a whole trace document, falling back to tolerant paths when needed."""
    source_name = printable(source_name)
    try:
        data, encoding_warnings = _to_utf8(data)
        decoded = _decode_document(data, source_name)
    except MemoryError:
        raise TraceLoadError(
            f"{source_name}: not enough memory to decode {size_text(len(data))} of "
            "JSON (try a machine with more memory, or a shorter capture)"
        ) from None
    decoded.warnings[:0] = encoding_warnings
    return decoded


def _decode_document(data: TraceBytes, source_name: str) -> DecodedTrace:
    first = _first_significant_byte(data)
    if first is None:
        raise TraceLoadError(f"{source_name}: the file is empty")
    if first not in (ord("{"), ord("[")):
        raise TraceLoadError(
            f"{source_name}: not a trace (not JSON: starts with {_describe_byte(first)})"
        )
    try:
        return _decode_fast(data, source_name)
    except (
        msgspec.DecodeError,
        RecursionError,
        UnicodeDecodeError,
        ValueError,
    ) as error:
        fast_error: BaseException = error
    data, repairs, repaired, fast_error = _repair_in_place(
        data, fast_error, source_name
    )
    if repaired is None:
        repaired = _decode_broken(data, fast_error, source_name)
    if repairs.non_finite:
        _count_non_finite(repaired.warnings, repairs.non_finite)
    if repairs.utf8:
        repaired.warnings.insert(0, _INVALID_UTF8_WARNING)
    return repaired


def _decode_broken(
    data: TraceBytes, fast_error: BaseException, source_name: str
) -> DecodedTrace:
    """The slow paths, once the fast decode has failed for a reason other than NaN."""
    trailing = _trailing_garbage_at(fast_error, data)
    if trailing is not None:
        return _without_trailing_garbage(data, trailing, source_name)
    if _looks_cut_off(data) or _ran_out_of_input(fast_error, data):
        return _recover_cut_off(data, source_name)
    broken = _broken_in_the_middle(data, fast_error, source_name)
    if broken is not None:
        raise broken
    try:
        return _decode_tolerant(data, source_name)
    except _InvalidJson as error:
        if not error.at_end:
            raise TraceLoadError(str(error)) from None
        # Complete up to a closing bracket, then cut: recovery keeps what came before.
        try:
            return _recover_cut_off(data, source_name)
        except TraceLoadError:
            raise TraceLoadError(str(error)) from None


def _ran_out_of_input(error: BaseException, data: TraceBytes) -> bool:
    """msgspec reached the end of a file cut right after a closing bracket.

    Such a file ends like a complete one, and Python's json would take
    seconds (and ~10x the memory) on a big one only to say the same. msgspec
    also calls a lone surrogate escape truncated input: those go the slow way.
    """
    return (
        "truncated" in str(error)
        and _error_byte(error) is None
        and _SURROGATE_ESCAPE_BYTES.search(data) is None
    )


_MAX_REPAIRS = 16


_NON_FINITE_WARNING = re.compile(r"^(\d+) NaN/Infinity values were treated as missing$")


@dataclass
class _Repairs:
    """What was mended in place before the fast decode succeeded (or gave up)."""

    non_finite: int = 0
    utf8: bool = False


def _repair_in_place(
    data: TraceBytes, error: BaseException, source_name: str
) -> tuple[TraceBytes, _Repairs, DecodedTrace | None, BaseException]:
    """Mend what msgspec stops at, then decode fast again.

    NaN/Infinity/inf/nan tokens become null; raw control characters in
    strings become \\u escapes; invalid UTF-8 becomes U+FFFD: the same values
    the tolerant parser gives. msgspec names the byte it stopped at, which for
    a bare token is outside any string, so only real tokens are replaced. A
    few such mends (the usual case) keep a big trace on the fast path instead
    of Python's json, which needs ~10x the memory; many fall through to it.
    """
    repairs = _Repairs()
    for _ in range(_MAX_REPAIRS):
        message = str(error)
        stopped_at = _error_byte(error)
        if "Invalid UTF-8" in message and not repairs.utf8:
            data = data.decode("utf-8", errors="replace").encode("utf-8")
            repairs.utf8 = True
        elif "invalid character" in message and stopped_at is not None:
            if stopped_at < len(data) and data[stopped_at] < 0x20:
                data = _escape_controls(data, stopped_at)
            else:
                token = _non_finite_token_at(data, stopped_at)
                if token is None:
                    break
                data = data[: token.start()] + b"null" + data[token.end() :]
                repairs.non_finite += 1
        else:
            break
        try:
            return data, repairs, _decode_fast(data, source_name), error
        except (
            msgspec.DecodeError,
            RecursionError,
            UnicodeDecodeError,
            ValueError,
        ) as next_error:
            error = next_error
    return data, repairs, None, error


_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _escape_controls(data: TraceBytes, stopped_at: int) -> TraceBytes:
    """Escape a raw control character msgspec stopped at (it sits inside a string).

    Tab, newline and carriage return are JSON whitespace outside strings, so
    only the one found is escaped; the others are never valid raw, so all of
    them are escaped in one pass.
    """
    code = data[stopped_at]
    if code in b"\t\n\r":
        return data[:stopped_at] + b"\\u%04x" % code + data[stopped_at + 1 :]
    return _CONTROL_BYTES.sub(lambda match: b"\\u%04x" % match.group()[0], data)


def _count_non_finite(warnings: list[str], replaced: int) -> None:
    """One warning for every NaN/Infinity, whichever path treated it."""
    for index, warning in enumerate(warnings):
        match = _NON_FINITE_WARNING.match(warning)
        if match:
            total = int(match.group(1)) + replaced
            warnings[index] = f"{total} NaN/Infinity values were treated as missing"
            return
    warnings.insert(0, f"{replaced} NaN/Infinity values were treated as missing")


def _trailing_garbage_at(error: BaseException, data: TraceBytes) -> int | None:
    """Where a complete document ends when something else follows it."""
    if "trailing characters" not in str(error):
        return None
    position = _error_byte(error)
    if position is None or not 0 < position <= len(data):
        return None
    return position


def _without_trailing_garbage(
    data: TraceBytes, position: int, source_name: str
) -> DecodedTrace:
    """A complete document followed by junk (NUL padding, a second write): keep the document."""
    # msgspec names the byte just after the first unexpected one.
    for end in (position - 1, position):
        try:
            decoded = _decode_fast(data[:end], source_name)
        except (msgspec.DecodeError, RecursionError, ValueError):
            continue
        decoded.warnings.append(
            f"{size_text(len(data) - end)} after the end of the JSON document "
            "were ignored"
        )
        return decoded
    raise TraceLoadError(
        f"{source_name}: not a trace (invalid JSON: unexpected data at byte {position})"
    )


_UTF16_32_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _to_utf8(data: TraceBytes) -> tuple[TraceBytes, list[str]]:
    """Text saved as UTF-16/32 (Windows redirects do this) becomes UTF-8."""
    for bom, encoding in _UTF16_32_BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, errors="replace")
            return text.encode("utf-8", errors="replace"), [
                f"the file is {encoding.upper()} text, not UTF-8; it was converted"
            ]
    return data, []
