"""Masks of events by kind or by name id, as table lookups (np.isin sorts; these index)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from tui.core.model.trace import Trace

BoolArray = npt.NDArray[np.bool_]


def kinds_in(trace: Trace, kinds: Iterable[int]) -> BoolArray:
    """Events whose kind is one of `kinds`."""
    return kind_mask(trace.kind, kinds)


def kind_mask(kind: npt.NDArray[np.uint8], kinds: Iterable[int]) -> BoolArray:
    """Where a kind column holds one of `kinds`."""
    table = np.zeros(256, dtype=bool)
    table[np.array([int(member) for member in kinds], dtype=np.int64)] = True
    return table[kind]


def names_in(trace: Trace, name_ids: npt.ArrayLike) -> BoolArray:
    """Events whose name id is one of `name_ids` (ids outside the name table match nothing)."""
    ids = np.asarray(name_ids, dtype=np.int64).reshape(-1)
    table = np.zeros(len(trace.names) + 1, dtype=bool)
    table[ids[(ids >= 0) & (ids < len(trace.names))]] = True
    return table[trace.name_id]
