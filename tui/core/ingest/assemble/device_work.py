"""Device tracks hold device work only: waits and runtime calls found there are set aside.

Other accelerators' profilers (MTIA's `mtia_ccp_events`) write their ops
in a category steptrace does not know, so an event of an unknown category
on a device track is device work. Some are not: a `synchronize` or an
`event_wait` is the stream waiting, and an event in a runtime's or
driver's category (`mtia_runtime`) is a host call drawn on the device's
track. Counted as work, they became kernels and device busy time. They
become sync events (`Kind.SYNC`, as CUDA's `cuda_sync` events are): drawn
on their track, never kernels, never busy time, and a load warning counts
them by name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from tui.core.base.distinct import distinct
from tui.core.ingest.collect.interning import _shown
from tui.core.model.trace import Kind

# Name words that say the stream waits rather than works (camelCase and snake_case).
WAIT_WORDS = frozenset({"sync", "synchronize", "synchronization", "wait"})
# Categories of host-side calls: a runtime's or a driver's.
HOST_CALL_SUFFIXES = ("_runtime", "_driver")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_MAX_NAMES = 8


def is_wait_name(name: str) -> bool:
    """Whether a device event's name says it waits (`synchronize`, `event_wait`,
    `StreamSync`), not whether it merely contains the letters (`async_copy`)."""
    return any(word.lower() in WAIT_WORDS for word in _WORD.findall(name))


def set_aside_non_work(
    kind: np.ndarray[Any, Any],
    unknown_on_device: np.ndarray[Any, Any],
    category_id: np.ndarray[Any, Any],
    category_strings: Sequence[str],
    name_id: np.ndarray[Any, Any],
    name_strings: Sequence[str],
    warnings: list[str],
) -> np.ndarray[Any, Any]:
    """Make the waits and host calls among `unknown_on_device` sync events, say so,
    and return the events left as device work."""
    if not unknown_on_device.any():
        return unknown_on_device
    host_call = np.array(
        [category.lower().endswith(HOST_CALL_SUFFIXES) for category in category_strings]
        or [False],
        dtype=np.bool_,
    )
    names_there = distinct(name_id[unknown_on_device])
    waits = names_there[
        np.array([is_wait_name(name_strings[int(i)]) for i in names_there.tolist()])
    ]
    aside = unknown_on_device & (host_call[category_id] | np.isin(name_id, waits))
    if not aside.any():
        return unknown_on_device
    kind[aside] = Kind.SYNC
    by_name = Counter(name_id[aside].tolist())
    listed = ", ".join(
        f"{_shown(name_strings[int(name)])} ×{count:,}"
        for name, count in by_name.most_common(_MAX_NAMES)
    )
    more = len(by_name) - _MAX_NAMES
    warnings.append(
        f"{int(aside.sum()):,} events on device tracks are waits or runtime calls, "
        f"not device work: set aside from kernels and busy time ({listed}"
        + (f" and {more:,} more names" if more > 0 else "")
        + ")"
    )
    left: np.ndarray[Any, Any] = unknown_on_device & ~aside
    return left
