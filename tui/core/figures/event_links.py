"""Walks over the event tree shared by the figures that place events in named
ranges: the CPU events of some names, the marked range enclosing an event, and
the forward→backward ties autograd records (`fwdbwd` flows)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tui.core.figures.analysis import Analysis

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def cpu_events_named(analysis: Analysis, test: frozenset[str] | str) -> Int64Array:
    """CPU events whose name is in a set, or starts with a prefix, in event order."""
    trace = analysis.trace
    if isinstance(test, str):
        ids = trace.name_ids_starting(test)
    else:
        ids = trace.name_ids_matching(set(test))
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64)
    table = np.zeros(len(trace.names), dtype=bool)
    table[ids] = True
    return np.flatnonzero(table[trace.name_id] & analysis.on_cpu).astype(np.int64)


def enclosing_marked(
    analysis: Analysis, events: Int64Array, marked: BoolArray
) -> Int64Array:
    """For each event, itself or its nearest ancestor `marked` (-1: none or a
    negative event)."""
    parent = analysis.parent
    found = np.full(events.size, -1, dtype=np.int64)
    pending = np.arange(events.size)
    current = events.copy()
    while pending.size:
        alive = current >= 0
        pending, current = pending[alive], current[alive]
        hit = marked[current]
        found[pending[hit]] = current[hit]
        pending, current = pending[~hit], parent[current[~hit]]
    return found


def forward_backward_pairs(analysis: Analysis) -> tuple[Int64Array, Int64Array]:
    """The forward and backward events of each `fwdbwd` flow that ties two
    events, in flow order."""
    trace = analysis.trace
    flows = trace.flows
    categories = [i for i, name in enumerate(trace.categories) if name == "fwdbwd"]
    linked = (
        np.isin(flows.category_id, categories)
        & (flows.source_event >= 0)
        & (flows.target_event >= 0)
    )
    forward = flows.source_event[linked].astype(np.int64)
    backward = flows.target_event[linked].astype(np.int64)
    return forward, backward
