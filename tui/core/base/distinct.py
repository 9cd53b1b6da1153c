"""The distinct values of an id column, found by sorting.

`np.unique(values)` alone (no index, inverse or counts asked) goes through a
hash table since numpy 2.3, which is 50-100 times slower than sorting when
most values differ: a million correlation ids took 0.9-1.3 s instead of
12 ms. Id columns (correlations, event indices, name ids of a million
distinct names) are exactly that case, so the figures ask here.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

Scalar = TypeVar("Scalar", bound=np.generic)


def distinct(values: npt.NDArray[Scalar]) -> npt.NDArray[Scalar]:
    """`np.unique(values)`: the sorted distinct values, flattened.

    Integers and booleans are sorted here; other kinds (floats and their
    NaNs, strings, objects) keep numpy's own rules."""
    if values.dtype.kind not in "biu":
        return np.unique(values)
    ordered = np.sort(values, axis=None)
    if ordered.size < 2:
        return ordered
    first = np.empty(ordered.size, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]
