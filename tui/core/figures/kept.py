"""Figures kept in a trace's column cache entry: computed by one process, read back by the next.

A figure of a whole capture that costs seconds on a big trace (the GPU idle
split, TensorBoard's step split), or tens of milliseconds that every command
would pay again (the steps, the zone reading, the kernel stats), is a pure
function of the columns, so a reopened trace can read it back instead of
computing it again. It is kept as
a typed MessagePack document (msgspec, decoded into the same frozen
dataclasses, so every figure is the one computed), under a version hashed
from the source of the code that computes it: a changed figure is a miss.
Only a trace tied to a cache entry keeps figures, and a process that never
imported the column cache does not pay for importing it to learn that.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from tui.core.model.trace import Trace

Figure = TypeVar("Figure")

KeptArray = tuple[str, bytes]
"""A numeric column in a kept figure: its dtype and raw bytes (`array_kept`),
read back with one copy-free `frombuffer`: tens of thousands of values
as a MessagePack list would cost more to read than to compute."""

STEPS_ROOTS = ("model/steps.py", "model/nesting.py")
"""The code that finds the steps every kept figure of steps is computed on."""


def kept_figure(
    trace: Trace,
    name: str,
    roots: tuple[str, ...],
    figure_type: Any,
    compute: Callable[[], Figure],
) -> Figure:
    """The figure `name` of `trace`: read back from its cache entry when the
    code of `roots` (tui.core paths) kept it there, else computed (and kept).

    `figure_type` is what `compute` returns, for decoding; a figure that
    cannot be encoded (a value of another type than its annotation says) is
    simply not kept.
    """
    import msgspec

    def decode(data: bytes) -> Figure:
        figure: Figure = msgspec.msgpack.decode(data, type=figure_type)
        return figure

    figure: Figure = kept_value(trace, name, roots, compute, msgpack_bytes, decode)
    return figure


def msgpack_bytes(value: Any) -> bytes:
    """A kept figure's MessagePack; ValueError for what it cannot hold (an int
    beyond 64 bits), which `kept_value` then simply does not keep."""
    import msgspec

    try:
        return msgspec.msgpack.encode(value)
    except msgspec.EncodeError as error:
        raise ValueError(str(error)) from error


def kept_value(
    trace: Trace,
    name: str,
    roots: tuple[str, ...],
    compute: Callable[[], Figure],
    encode: Callable[[Figure], bytes],
    decode: Callable[[bytes], Figure],
) -> Figure:
    """As `kept_figure`, for a value with its own `encode` and `decode` (arrays).

    A kept value that does not decode (a ValueError, TypeError or IndexError,
    msgspec's DecodeError among them) is computed again.
    """
    cache = sys.modules.get("tui.core.ingest.cache")
    if cache is None:
        return compute()
    data = cache.load_kept(trace, name, roots)
    if data is not None:
        try:
            return decode(data)
        except (ValueError, TypeError, IndexError):
            pass
    value = compute()
    try:
        encoded = encode(value)
    except (TypeError, ValueError, OverflowError):
        return value
    cache.save_kept(trace, name, roots, encoded)
    return value


def array_kept(column: np.ndarray[Any, Any]) -> KeptArray:
    """A numeric column as a kept figure holds it."""
    if column.dtype.kind not in "biuf":
        raise TypeError(f"a {column.dtype} column is not kept")
    return column.dtype.str, np.ascontiguousarray(column).tobytes()


def array_from(kept: KeptArray) -> np.ndarray[Any, Any]:
    """The (read-only) column `array_kept` wrote; ValueError when it does not
    read as one."""
    dtype = np.dtype(kept[0])
    if dtype.kind not in "biuf":
        raise ValueError(f"a kept column of {dtype}")
    return np.frombuffer(kept[1], dtype=dtype)
