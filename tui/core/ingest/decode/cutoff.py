"""Recovery of a file cut off mid-way: keep every complete event written before the cut."""

from __future__ import annotations

import re

import msgspec

from tui.core.base.errors import TraceLoadError
from tui.core.ingest.decode.doc_bytes import (
    TraceBytes,
    _broken_in_the_middle,
    _content_end,
    _error_byte,
    _first_significant_byte,
)
from tui.core.ingest.decode.records import DecodedTrace, _decode_fast
from tui.core.ingest.decode.tolerant import _decode_tolerant

_MAX_CUT_TRIES = 24


_MAX_CUT_STEPS = 2_000_000


_CUT_BYTES_BUDGET = 1 << 28


# The list of events closes within this many bytes of the end when what was
# cut is a trailing top-level key (Kineto writes a few short ones after it).
_TRAILING_KEYS_WINDOW = 1 << 16


_JSON_SPACE = b" \t\r\n"


_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def _worth_tolerant(error: BaseException, position: int, surrogates: bool) -> bool:
    """Whether a candidate msgspec refused might still parse with the slow parser.

    Not when msgspec stopped at the candidate's end (the cut is in the wrong
    place), nor when it ran out of input with no surrogate escape to blame
    (msgspec reports a lone surrogate as truncated input too).
    """
    if isinstance(error, RecursionError):
        return False
    stopped_at = _error_byte(error)
    if stopped_at is not None:
        return stopped_at < position
    if "truncated" in str(error):
        return surrogates
    return True


def _could_end_element(data: TraceBytes, position: int, end: int) -> bool:
    """Whether the bracket at `position` may close a whole event (or the event list).

    An event closes with `}` followed by `,` and the next event's `{`, or by
    nothing when the file stops there; the event list closes with `]` followed
    by the next top-level key, near the end. Brackets inside args (lists of
    input shapes, nested objects) fail these tests, so they cost no decode.
    """
    following = data[position + 1 : position + 64].lstrip(_JSON_SPACE)
    if not following:
        return True
    if not following.startswith(b","):
        return False
    after = following[1:].lstrip(_JSON_SPACE)
    if data[position] == ord("}"):
        return not after or after.startswith(b"{")
    return end - position <= _TRAILING_KEYS_WINDOW and (
        not after or after.startswith(b'"')
    )


# What the kept count counts: every element of `traceEvents`, where the
# summary's "events" are only those with a duration.
_RECORDS = "records (events of every kind, metadata included)"


def _cut_off_warning(kept: int, data: TraceBytes, damage: int | None) -> str:
    """What recovery kept, and where the damage was if any.

    The bytes after the last complete event are only the start of the event
    being written: how much the file would have held is unknown, so no share
    of it is given.
    """
    if damage is None:
        return (
            f"the file is cut off: kept the {kept:,} {_RECORDS} written before the "
            "cut; what came after it is unknown"
        )
    line = data.count(b"\n", 0, damage) + 1
    column = damage - data.rfind(b"\n", 0, damage)
    return (
        f"the file is cut off and damaged before the cut (invalid JSON at line {line}, "
        f"column {column}): kept the {kept:,} {_RECORDS} written before the damage; "
        "what came after them is unknown"
    )


def _recover_cut_off(data: TraceBytes, source_name: str) -> DecodedTrace:
    """Keep every complete event of a file that ends mid-way (its writer was killed).

    Candidate cuts are tried from the end backwards. A candidate that msgspec
    rejects at its very end is simply wrong and costs one fast pass; only when
    msgspec stops earlier (NaN, a lone surrogate...) is the slow tolerant parser
    tried, so a cut multi-gigabyte file stays quick to recover.
    """
    array_form = _first_significant_byte(data) == ord("[")
    suffixes = [b"]"] if array_form else [b"]}", b"}"]
    end = _content_end(data, b" \t\r\n\x00")
    brace = data.rfind(b"}", 0, end)
    bracket = data.rfind(b"]", 0, end)
    surrogates = _SURROGATE_ESCAPE_BYTES.search(data) is not None
    damage: int | None = None
    tries = 0
    steps = 0
    # Each wrong candidate costs one fast pass over the file: small files may
    # try many (an event cut inside a list of objects), big ones a few.
    max_tries = min(
        max(_MAX_CUT_TRIES, _CUT_BYTES_BUDGET // max(len(data), 1)), _MAX_CUT_STEPS
    )
    while tries < max_tries and steps < _MAX_CUT_STEPS:
        steps += 1
        # Walk back over closing brackets; each kind is searched for only once
        # per step so that a bracket far back is not rescanned every time.
        if brace >= bracket:
            position, brace = brace, data.rfind(b"}", 0, brace)
        else:
            position, bracket = bracket, data.rfind(b"]", 0, bracket)
        if position <= 0:
            break
        if not _could_end_element(data, position, end):
            continue
        tries += 1
        decoded = None
        damaged_at = None
        for suffix in suffixes:
            candidate = data[: position + 1] + suffix
            try:
                decoded = _decode_fast(candidate, source_name)
                break
            except (msgspec.DecodeError, RecursionError, ValueError) as error:
                if not _worth_tolerant(error, position, surrogates):
                    continue
                if _broken_in_the_middle(candidate, error, source_name) is not None:
                    # Damaged before this cut (garbage a dying writer or a
                    # corrupt gzip left): only cuts before the damage can work.
                    damaged_at = _error_byte(error)
                    break
            except TraceLoadError:
                continue
            try:
                decoded = _decode_tolerant(candidate, source_name)
                break
            except TraceLoadError:
                continue
        if damaged_at is not None:
            damage = damaged_at if damage is None else min(damage, damaged_at)
            brace = data.rfind(b"}", 0, damaged_at)
            bracket = data.rfind(b"]", 0, damaged_at)
            continue
        if decoded is None:
            continue
        decoded.truncated = True
        decoded.warnings.append(_cut_off_warning(len(decoded.events), data, damage))
        return decoded
    raise TraceLoadError(
        f"{source_name}: not a trace (the JSON is cut off before the first complete event)"
    )
