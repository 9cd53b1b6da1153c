"""Dense ids for the values of a trace, the text of odd values, and id columns read from args."""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import msgspec
import numpy as np

from tui.core.base.textsafe import printable


class _KnownIds(msgspec.Struct, gc=False):
    """The id args as well-formed traces write them; anything else takes the tolerant path."""

    correlation: int = -1
    external_id: int = msgspec.field(default=-1, name="External id")
    external_id_old: int = msgspec.field(default=-1, name="external id")
    stream: int = -1


_KNOWN_IDS_LIST = msgspec.json.Decoder(list[_KnownIds])


_CORRELATION = operator.attrgetter("correlation")


_EXTERNAL_ID = operator.attrgetter("external_id")


_EXTERNAL_ID_OLD = operator.attrgetter("external_id_old")


_STREAM = operator.attrgetter("stream")


Int64Column = np.ndarray[Any, np.dtype[np.int64]]


def _known_id_columns(
    blob: bytes, pieces: Sequence[Any], counts: Counter[str]
) -> tuple[Int64Column, Int64Column, Int64Column]:
    """Correlation, External id and stream columns (-1 when absent) from a batch of args.

    The stream is HTA's: what marks a device op (syncs and Inductor's CPU ops
    included), read here, in the workers, rather than searched for later in
    the whole args blob.
    """
    try:
        typed = _KNOWN_IDS_LIST.decode(blob)
    except (msgspec.ValidationError, msgspec.DecodeError):
        known = _decode_known_args(blob, pieces, counts)
        correlation = _id_column([item.correlation for item in known])
        external_id = _id_column([item.external_id for item in known])
        old = _id_column([item.external_id_old for item in known])
        # As on the typed path: "External id" -1 or absent → "external id".
        external_id = np.where(external_id == -1, old, external_id)
        return correlation, external_id, _stream_column(list(map(_STREAM, known)))
    count = len(typed)
    correlation = np.fromiter(map(_CORRELATION, typed), dtype=np.int64, count=count)
    external_id = np.fromiter(map(_EXTERNAL_ID, typed), dtype=np.int64, count=count)
    old = np.fromiter(map(_EXTERNAL_ID_OLD, typed), dtype=np.int64, count=count)
    external_id = np.where(external_id == -1, old, external_id)
    for column in (correlation, external_id):
        column[(column >= _MAX_ID) | (column <= -_MAX_ID)] = -1
    try:
        stream = np.fromiter(map(_STREAM, typed), dtype=np.int64, count=count)
    except OverflowError:  # beyond int64 (msgspec reads up to 2**64 - 1)
        stream = _stream_column(list(map(_STREAM, typed)))
    return correlation, external_id, stream


def _stream_column(values: Sequence[Any]) -> Int64Column:
    """Stream args as int64: an integer that fits, else -1 (a float, a string, null)."""
    return np.fromiter(
        (
            value if type(value) is int and -(2**63) <= value < 2**63 else -1
            for value in values
        ),
        dtype=np.int64,
        count=len(values),
    )


class _KnownArgs(msgspec.Struct, gc=False):
    """The few args fields that become columns."""

    correlation: Any = None
    external_id: Any = msgspec.field(default=None, name="External id")
    external_id_old: Any = msgspec.field(default=None, name="external id")
    device: Any = None
    stream: Any = None


_KNOWN_ARGS_LIST = msgspec.json.Decoder(list[_KnownArgs])


_KNOWN_ARGS_ONE = msgspec.json.Decoder(_KnownArgs)


_MAX_ID = 2**62


class _Interner:
    """Strings to dense ids; non-string names are shown as their JSON text."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}

    def codes(self, values: Sequence[Any]) -> np.ndarray[Any, np.dtype[np.int32]]:
        """The code of each value; values not seen before get the next codes in order."""
        ids = self.ids
        try:
            # Mostly values seen before: looked up at C speed (None or an
            # unhashable value stops it).
            return np.fromiter(map(ids.get, values), dtype=np.int32, count=len(values))
        except TypeError:
            pass
        # One C-level pass records each distinct value's first position; only
        # the distinct values are then looked up (or added) one by one.
        first: dict[Any, int] = {}
        try:
            positions = np.fromiter(
                map(first.setdefault, values, itertools.count()),
                dtype=np.int64,
                count=len(values),
            )
        except TypeError:  # unhashable (a list or dict where a name should be)
            codes = [ids.setdefault(_hashable(value), len(ids)) for value in values]
            return np.array(codes, dtype=np.int32)
        distinct = list(first)
        found: list[int | None] = list(map(ids.get, distinct))
        if None in found:
            new = [
                value
                for value, code in zip(distinct, found, strict=True)
                if code is None
            ]
            ids.update(zip(new, range(len(ids), len(ids) + len(new)), strict=True))
            found = list(map(ids.__getitem__, distinct))
        firsts = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        local = np.searchsorted(firsts, positions)
        return np.array(found, dtype=np.int32)[local]

    def codes_of(
        self, items: Sequence[Any], value_of: Callable[[Any], Any]
    ) -> np.ndarray[Any, np.dtype[np.int32]]:
        """`codes` of each item's value, without a list of the values when all are known."""
        try:
            return np.fromiter(
                map(self.ids.get, map(value_of, items)),
                dtype=np.int32,
                count=len(items),
            )
        except TypeError:
            return self.codes(list(map(value_of, items)))

    def strings(self) -> list[str]:
        table = [""] * len(self.ids)
        for value, code in self.ids.items():
            table[code] = value if isinstance(value, str) else _as_text(value)
        return table


_PLAIN_TYPES = frozenset({int, str, float, bool, type(None)})


def _hashable(value: Any) -> Hashable:
    if type(value) in _PLAIN_TYPES:
        return value  # type: ignore[no-any-return]
    try:
        hash(value)
    except TypeError:
        return _as_text(value)
    return value  # type: ignore[no-any-return]


def _as_text(value: Any) -> str:
    if value is None:
        return "(none)"
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(value)


def _id_column(values: Sequence[Any]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Ids (correlation, External id) as int64, -1 where missing or not an id."""
    if set(map(type, values)) <= {int}:
        try:
            ids = np.array(values, dtype=np.int64)
        except OverflowError:
            pass
        else:
            ids[(ids >= _MAX_ID) | (ids <= -_MAX_ID)] = -1
            return ids
    return np.fromiter(
        (
            value
            if type(value) is int and -_MAX_ID < value < _MAX_ID
            else (-1 if value is None else _int_or_missing(value))
            for value in values
        ),
        dtype=np.int64,
        count=len(values),
    )


def _int_or_missing(value: Any) -> int:
    if type(value) is int and -_MAX_ID < value < _MAX_ID:
        return value
    if isinstance(value, str) and value.isdigit() and len(value) < 18:
        return int(value)
    return -1


_ARGS_NOT_OBJECT = "events had args that are not an object (ignored)"


def _shown(text: str, limit: int = 40) -> str:
    """Untrusted text inside a warning: escaped, and short enough for one line."""
    safe = printable(text)
    return safe if len(safe) <= limit else safe[: limit - 1] + "…"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else _as_text(value)


def _decode_known_args(
    blob: bytes, pieces: Sequence[Any], counts: Counter[str]
) -> list[_KnownArgs]:
    try:
        return _KNOWN_ARGS_LIST.decode(blob)
    except (msgspec.ValidationError, msgspec.DecodeError):
        pass
    known: list[_KnownArgs] = []
    for piece in pieces:
        try:
            known.append(_KNOWN_ARGS_ONE.decode(piece))
        except (msgspec.ValidationError, msgspec.DecodeError):
            counts[_ARGS_NOT_OBJECT] += 1
            known.append(_KnownArgs())
    return known
