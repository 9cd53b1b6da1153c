"""Event arguments read for every event at once, straight from the args blob.

Decoding four million events' args to read one key would cost more than
the whole load; a regular expression finds the key's occurrences in the
blob, and each event takes the first one inside its own args.
"""

from __future__ import annotations

import re
from itertools import islice
from operator import methodcaller
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]

# Every `"stream":` key, with its value when that is an integer of at most 19
# digits (a float, a string or a longer number reads as none: the group is empty).
_STREAM_ARG = re.compile(rb'"stream":\s*(-?\d{1,19}(?![\d.eE])|)')
_MATCHES_AT_ONCE = 1 << 16
"""Match objects held at a time (each is about 100 bytes)."""
_NUMBER = methodcaller("group", 1)


def stream_arguments(trace: Trace) -> Int64Array:
    """Each event's integer `stream` argument, -1 when it has none (HTA's default).

    The first `"stream":` inside an event's args is its own (a nested one
    comes later); a value that is not an integer, or beyond int64, reads as -1.
    """
    positions: list[Int64Array] = []
    values: list[Int64Array] = []
    matches = _STREAM_ARG.finditer(trace.args_blob)
    while chunk := list(islice(matches, _MATCHES_AT_ONCE)):
        positions.append(
            np.fromiter(map(re.Match.start, chunk), dtype=np.int64, count=len(chunk))
        )
        values.append(
            _int64_values(
                [int(number) if number else -1 for number in map(_NUMBER, chunk)]
            )
        )
    stream = np.full(trace.event_count, -1, dtype=np.int64)
    if not positions:
        return stream
    at = np.concatenate(positions)
    value = np.concatenate(values)
    # The matches are in blob order: an event's first one is the first at or
    # after its args' start, when that is before their end.
    first = np.searchsorted(at, trace.args_begin, side="left")
    past = np.searchsorted(at, trace.args_end, side="left")
    has = np.flatnonzero(past > first)
    stream[has] = value[first[has]]
    return stream


def _int64_values(numbers: list[int]) -> Int64Array:
    """The numbers as int64; one that does not fit reads as -1."""
    try:
        return np.array(numbers, dtype=np.int64)
    except OverflowError:
        return np.array(
            [n if -(2**63) <= n < 2**63 else -1 for n in numbers], dtype=np.int64
        )
