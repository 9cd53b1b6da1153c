"""What sits on device tracks without being device work: waits and runtime calls, set aside.

CUDA's `cuda_sync` events and the waits and runtime calls other
accelerators write on their device tracks (ingest's `device_work` stage)
are sync events: never kernels, never busy time. `kernels` says how many
there were, by name, so that nothing leaves the figures unsaid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.model.trace import Kind, Trace, TrackKind


@dataclass(frozen=True)
class SetAside:
    """Events set aside on device tracks: how many, how long, and per name (most first)."""

    count: int
    total_ns: int
    names: tuple[tuple[str, int, int], ...]  # (name, count, total ns)


def set_aside_on_devices(
    trace: Trace, start_ns: int | None = None, end_ns: int | None = None
) -> SetAside:
    """Sync events on device tracks starting inside [start, end) (default: all)."""
    on_device = np.array(
        [track.kind == TrackKind.DEVICE for track in trace.tracks] or [False],
        dtype=np.bool_,
    )
    chosen = (trace.kind == Kind.SYNC) & on_device[trace.track]
    if start_ns is not None:
        chosen &= trace.start_ns >= start_ns
    if end_ns is not None:
        chosen &= trace.start_ns < end_ns
    events = np.flatnonzero(chosen)
    names, inverse, counts = np.unique(
        trace.name_id[events], return_inverse=True, return_counts=True
    )
    totals = np.bincount(
        inverse.reshape(-1), weights=trace.duration_ns[events], minlength=names.size
    )
    order = np.lexsort((names, -counts))
    return SetAside(
        int(events.size),
        int(trace.duration_ns[events].sum()),
        tuple(
            (trace.names[int(names[i])], int(counts[i]), int(totals[i]))
            for i in order.tolist()
        ),
    )
