"""Host synchronisations: every time the host waited on the device, what caused it, what it cost.

A **sync** is a host call that returns only when device work is done:

- runtime and driver calls (`BLOCKING_CALLS`): `cudaStreamSynchronize`,
  `cudaDeviceSynchronize`, `cudaEventSynchronize` and their driver and HIP
  spellings, and the synchronous copies (`cudaMemcpy`, `hipMemcpy`…;
  `hipMemcpyWithStream`, PyTorch's copy-and-sync on ROCm), each with its
  kind (`SyncKind`);
- an asynchronous copy call (`cudaMemcpyAsync`…) whose copy goes from the
  device into pageable host memory (`Memcpy DtoH (Device -> Pageable)`): CUDA
  returns from it only once the copy is done, so the host waits for the
  stream's earlier work (`.item()`, `.cpu()` spend most of their wait there,
  the `cudaStreamSynchronize` after it finds the stream drained). Copies into
  pinned memory are not counted;
- an asynchronous copy call from pageable host memory to the device
  (`Memcpy HtoD (Pageable -> Device)`) that returns only once its copy is
  done on the device (the call ends at or after the copy's end): the copy
  ran in the stream's order, so the host waited for the stream to drain up
  to and through it (CUDA stages a pageable copy through a bounce buffer; a
  call that returns before its copy ends did not wait, and is not counted;
  the pageable-copy reading weighs the copy itself);
- Kineto's `cuda_sync` device events (`Stream Sync`, `Event Sync`,
  `Context Sync`) are the device's side of those calls, joined to them by
  correlation id: they say the device and stream. A `cuda_sync` event whose
  call is a query (`cudaEventQuery`, `cudaStreamQuery`: the host polls and
  returns at once) is no wait: left out and counted in `queries`. One whose
  call is not in the trace is a sync on its own (blocked time: its own
  length, no operator). `Stream Wait Event` is a stream waiting on another
  stream: the host never waits, so it is no sync here.

For each sync:

- **blocked**: the call's duration, the host time spent waiting;
- **idle after**: on the sync's device (the `cuda_sync` event's device; the
  only device when the trace has one; else every device together), from the
  sync's end to the start of the next device work (kernel, copy or set, on
  any stream), cut at the next sync on the same thread (that one counts the
  rest: no idle counts twice) and at the end of the sync's step (the next
  step's start is its own); 0 when device work runs across the sync's end
  (the device did not wait), -1 when no device work follows. A sync drains
  the device's queue, so the device idles until the host issues work again:
  this is what the sync costs the device, beside the host's blocked time;
- **cause**: the outermost operator (`cpu_op`) enclosing the call on its
  thread: the one the program called (`aten::item` over
  `aten::_local_scalar_dense`, `aten::to` over `aten::copy_`); **reading**:
  the outermost enclosing operator that reads a device value on the host
  (`READS_DEVICE_VALUES`); **path**: every enclosing event, outermost first,
  steps and Python frames left out; **stack**: the enclosing Python frames
  (`python_function` events of a `with_stack` capture), outermost first, or
  the cause's `Call stack` arg written by older profilers;
- **step**: the step whose span holds the call's start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.vocab import CopyDirection, HostMemory, SyncKind
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import parse_copy_name
from tui.core.figures.launches import step_index
from tui.core.model.masks import kinds_in, names_in
from tui.core.model.steps import STEP_NAME
from tui.core.model.trace import Kind, Trace, TrackKind

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

SYNC_KINDS = list(SyncKind)

# Runtime and driver calls that block the host until device work is done
# (CUDA runtime, CUDA driver, HIP), with `_ptsz`/`_spt`/`_v2` suffixes.
_CALL_KINDS = (
    (
        re.compile(r"(?:cudaStream|cuStream|hipStream)Synchronize"),
        SyncKind.STREAM,
    ),
    (
        re.compile(
            r"cudaDeviceSynchronize|cudaThreadSynchronize|cuCtxSynchronize"
            r"|hipDeviceSynchronize|hipCtxSynchronize"
        ),
        SyncKind.DEVICE,
    ),
    (re.compile(r"(?:cudaEvent|cuEvent|hipEvent)Synchronize"), SyncKind.EVENT),
    (
        re.compile(
            r"cudaMemcpy(?:2D|3D|Peer|ToSymbol|FromSymbol)?"
            r"|cuMemcpy(?:DtoH|HtoD|Peer)?|hipMemcpy(?:DtoH|HtoD|Peer|WithStream)?"
        ),
        SyncKind.COPY,
    ),
)
_SUFFIX = re.compile(r"(?:_ptsz|_spt|_v\d+)+$")
# Polls that return at once: their `cuda_sync` events are no wait.
QUERY_CALLS = frozenset(
    {
        "cudaEventQuery",
        "cudaStreamQuery",
        "cuEventQuery",
        "cuStreamQuery",
        "hipEventQuery",
        "hipStreamQuery",
    }
)
# Kineto's cuda_sync kinds (the event's name, and its `cuda_sync_kind` arg)
# that are the device's side of a host wait.
DEVICE_SYNC_KINDS = {
    "Stream Sync": SyncKind.STREAM,
    "Context Sync": SyncKind.DEVICE,
    "Event Sync": SyncKind.EVENT,
}
# Operators whose result needs a device value on the host, so they wait for
# the device (PyTorch: `torch.cuda.set_sync_debug_mode` flags them; each
# copies to the host and synchronises, through `_local_scalar_dense` or a
# host copy): a scalar read (`.item()`, `bool(t)`, `if t:`), an output whose
# size depends on the values (nonzero, masked_select, unique, boolean-mask
# indexing, repeat_interleave without output_size, bincount, histc without
# bounds), a comparison returning a Python bool, a copy to the host.
READS_DEVICE_VALUES = frozenset(
    {
        "aten::item",
        "aten::_local_scalar_dense",
        "aten::is_nonzero",
        "aten::equal",
        "aten::allclose",
        "aten::nonzero",
        "aten::nonzero_numpy",
        "aten::argwhere",
        "aten::masked_select",
        "aten::unique",
        "aten::_unique",
        "aten::_unique2",
        "aten::unique_dim",
        "aten::unique_consecutive",
        "aten::unique_dim_consecutive",
        "aten::repeat_interleave",
        "aten::bincount",
        "aten::histc",
        "aten::tolist",
        "aten::cpu",
    }
)


def call_sync_kind(name: str) -> SyncKind | None:
    """The kind of wait a runtime or driver call of this name is (None: it does not wait)."""
    bare = _SUFFIX.sub("", name)
    for pattern, kind in _CALL_KINDS:
        if pattern.fullmatch(bare):
            return kind
    return None


def _kind_by_name(trace: Trace, kinds: dict[str, SyncKind] | None) -> Int64Array:
    """Per name id, the index in SYNC_KINDS of a blocking call's kind (-1: none);
    with `kinds`, of a device sync event's name."""
    codes = np.full(len(trace.names) + 1, -1, dtype=np.int64)
    for index, name in enumerate(trace.names):
        kind = call_sync_kind(name) if kinds is None else kinds.get(name)
        if kind is not None:
            codes[index] = SYNC_KINDS.index(kind)
    return codes


def _by_correlation(keys: Int64Array, wanted: Int64Array) -> Int64Array:
    """For each wanted correlation, the position in `keys` holding it (-1: none)."""
    if keys.size == 0:
        return np.full(wanted.size, -1, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    position = np.minimum(np.searchsorted(sorted_keys, wanted), keys.size - 1)
    found = (wanted >= 0) & (sorted_keys[position] == wanted)
    return np.where(found, order[position], -1).astype(np.int64)


@dataclass(frozen=True)
class SyncColumns:
    """One entry per sync, in time order (see the module's definitions).

    `event` is the host call (or, without one, the `cuda_sync` event);
    `device_event` the joined `cuda_sync` event (-1: none); `device` -1 when
    unknown (idle read on every device); `cause`, `reading` events (-1: none);
    `path`/`stack` index `paths`/`stacks` (-1: none); `step` indexes
    `Analysis.steps` (-1: outside every step); `idle_after_ns` -1 when no
    device work follows.
    """

    events: Int64Array
    kind: Int64Array
    start_ns: Int64Array
    end_ns: Int64Array
    blocked_ns: Int64Array
    device_event: Int64Array
    device: Int64Array
    idle_after_ns: Int64Array
    step: Int64Array
    cause: Int64Array
    reading: Int64Array
    path: Int64Array
    paths: list[tuple[str, ...]]
    stack: Int64Array
    stacks: list[tuple[str, ...]]
    queries: int

    def __len__(self) -> int:
        return int(self.events.size)

    @property
    def cost_ns(self) -> Int64Array:
        """Blocked time plus the device idle after it (none after: 0)."""
        result: Int64Array = self.blocked_ns + np.maximum(self.idle_after_ns, 0)
        return result

    @classmethod
    def of(cls, analysis: Analysis) -> SyncColumns:
        """Every sync of an analysed trace, found once per analysis (`Analysis.memo`)."""
        return analysis.memo(sync_columns)


def sync_columns(analysis: Analysis) -> SyncColumns:
    """Every sync of an analysed trace: the blocking host calls and the device's
    side joined to them, in time order, measured and traced to their causes."""
    trace = analysis.trace
    host_calls, call_kind = _host_calls(analysis)
    device_syncs, device_kind = _device_syncs(trace)
    # Each device sync's host call, by correlation.
    call_of = _by_correlation(
        trace.correlation[host_calls], trace.correlation[device_syncs]
    )
    events, kind, device_event = _in_time_order(
        trace, host_calls, call_kind, device_syncs, device_kind, call_of
    )
    start = trace.start_ns[events]
    blocked = trace.duration_ns[events]
    end = start + blocked
    device = _devices(analysis, device_event)
    step = _step_of(analysis, start)
    cut = np.minimum(
        _next_on_track(trace.track[events], start), _step_ends(analysis, step)
    )
    ancestors = ancestors_of(analysis.parent, events)
    cause, reading = _causes(trace, ancestors)
    path, paths = _chains(trace, ancestors, _path_member(trace))
    stack, stacks = _chains(trace, ancestors, trace.kind == Kind.PYTHON)
    stack, stacks = _call_stacks(trace, cause, stack, stacks)
    return SyncColumns(
        events=events.astype(np.int64),
        kind=kind.astype(np.int64),
        start_ns=start.astype(np.int64),
        end_ns=end.astype(np.int64),
        blocked_ns=blocked.astype(np.int64),
        device_event=device_event.astype(np.int64),
        device=device,
        idle_after_ns=_idle_after(analysis, end, device, cut),
        step=step,
        cause=cause,
        reading=reading,
        path=path,
        paths=paths,
        stack=stack,
        stacks=stacks,
        queries=_query_count(trace, host_calls, call_of),
    )


def _host_calls(analysis: Analysis) -> tuple[Int64Array, Int64Array]:
    """The runtime and driver calls on CPU threads, and per call the index in
    SYNC_KINDS of the wait it is (-1: none): a blocking call's kind, a copy
    for an asynchronous copy call into pageable host memory."""
    trace = analysis.trace
    host_calls = np.flatnonzero(
        analysis.on_cpu & kinds_in(trace, (Kind.RUNTIME, Kind.DRIVER))
    ).astype(np.int64)
    call_kind = _kind_by_name(trace, None)[trace.name_id[host_calls]]
    waits = _waiting_copy_calls(analysis)
    at = np.searchsorted(host_calls, waits)
    at = at[
        (at < host_calls.size)
        & (host_calls[np.minimum(at, host_calls.size - 1)] == waits)
    ]
    call_kind[at] = np.where(
        call_kind[at] >= 0, call_kind[at], SYNC_KINDS.index(SyncKind.COPY)
    )
    return host_calls, call_kind


def _device_syncs(trace: Trace) -> tuple[Int64Array, Int64Array]:
    """Kineto's `cuda_sync` events on device tracks that are a host wait's
    device side, and the index in SYNC_KINDS of each one's kind."""
    on_device = np.array(
        [track.kind == TrackKind.DEVICE for track in trace.tracks] or [False]
    )
    device_syncs = np.flatnonzero(
        (trace.kind == Kind.SYNC) & on_device[trace.track]
    ).astype(np.int64)
    device_kind = _kind_by_name(trace, DEVICE_SYNC_KINDS)[trace.name_id[device_syncs]]
    return device_syncs[device_kind >= 0], device_kind[device_kind >= 0]


def _in_time_order(
    trace: Trace,
    host_calls: Int64Array,
    call_kind: Int64Array,
    device_syncs: Int64Array,
    device_kind: Int64Array,
    call_of: Int64Array,
) -> tuple[Int64Array, Int64Array, Int64Array]:
    """The syncs' events, kinds and joined device events, in time order: every
    blocking call (its joined `cuda_sync` event, or -1), then every `cuda_sync`
    event whose call is not in the trace (itself)."""
    joined = call_of >= 0
    blocking = call_kind >= 0
    lone = ~joined
    events = np.concatenate([host_calls[blocking], device_syncs[lone]])
    kind = np.concatenate([call_kind[blocking], device_kind[lone]])
    device_event_of_call = np.full(host_calls.size, -1, dtype=np.int64)
    device_event_of_call[call_of[joined]] = device_syncs[joined]
    device_event = np.concatenate([device_event_of_call[blocking], device_syncs[lone]])
    order = np.argsort(trace.start_ns[events], kind="stable")
    return events[order], kind[order], device_event[order]


def _query_count(trace: Trace, host_calls: Int64Array, call_of: Int64Array) -> int:
    """How many device syncs were a poll's (`cudaEventQuery`…): no wait."""
    joined = call_of >= 0
    if not joined.any():
        return 0
    query_ids = trace.name_ids_matching(set(QUERY_CALLS))
    called = host_calls[np.maximum(call_of, 0)]
    return int((joined & names_in(trace, query_ids)[called]).sum())


def _step_of(analysis: Analysis, start: Int64Array) -> Int64Array:
    """Per sync, the index in `Analysis.steps` of the step holding its start (-1: none)."""
    steps = analysis.steps
    return step_index(
        start,
        np.array([item.start_ns for item in steps], dtype=np.int64),
        np.array([item.end_ns for item in steps], dtype=np.int64),
    )


def _step_ends(analysis: Analysis, step: Int64Array) -> Int64Array:
    """Per sync, the end of its step (int64 max outside every step)."""
    ends = np.array(
        [item.end_ns for item in analysis.steps] + [np.iinfo(np.int64).max],
        dtype=np.int64,
    )
    return ends[np.where(step >= 0, step, ends.size - 1)]


def _devices(analysis: Analysis, device_event: Int64Array) -> Int64Array:
    """Each sync's device: its `cuda_sync` event's track's, else the only one, else -1."""
    trace = analysis.trace
    track_device = np.array(
        [-1 if track.device is None else track.device for track in trace.tracks]
        or [-1],
        dtype=np.int64,
    )
    known = [device for device in analysis.devices if device is not None]
    only = known[0] if len(known) == 1 and len(analysis.devices) == 1 else -1
    of_event = track_device[trace.track[np.maximum(device_event, 0)]]
    return np.where((device_event >= 0) & (of_event >= 0), of_event, only).astype(
        np.int64
    )


def _waiting_copy_calls(analysis: Analysis) -> Int64Array:
    """The launch calls of asynchronous copies the host waited for: copies from
    the device into pageable host memory (CUDA's API sync behaviour: the call
    returns only once such a copy is done, so the host waits for the stream's
    work), and copies from pageable memory to the device whose call ended at
    or after the copy's end (it drained the stream)."""
    trace = analysis.trace
    copies = np.flatnonzero(trace.kind == Kind.MEMCPY)
    names = distinct(trace.name_id[copies])
    kinds = {name: parse_copy_name(trace.names[name]) for name in names.tolist()}
    into_pageable = [
        name
        for name, kind in kinds.items()
        if kind == (CopyDirection.DEVICE_TO_HOST, HostMemory.PAGEABLE)
    ]
    from_pageable = [
        name
        for name, kind in kinds.items()
        if kind == (CopyDirection.HOST_TO_DEVICE, HostMemory.PAGEABLE)
    ]
    calls = analysis.launch_call[copies[names_in(trace, into_pageable)[copies]]]
    uploads = copies[names_in(trace, from_pageable)[copies]]
    upload_calls = analysis.launch_call[uploads]
    drained = (upload_calls >= 0) & (
        trace.end_ns[np.maximum(upload_calls, 0)] >= trace.end_ns[uploads]
    )
    waited = np.concatenate([calls[calls >= 0], upload_calls[drained]])
    return distinct(waited).astype(np.int64)


def _next_on_track(track: npt.NDArray[np.int32], start: Int64Array) -> Int64Array:
    """Per sync, the start of the next sync on its thread (or track); int64 max when none."""
    following = np.full(start.size, np.iinfo(np.int64).max, dtype=np.int64)
    if start.size < 2:
        return following
    order = np.lexsort((start, track))
    same = track[order][1:] == track[order][:-1]
    following[order[:-1]] = np.where(same, start[order][1:], np.iinfo(np.int64).max)
    return following


def _idle_after(
    analysis: Analysis, end: Int64Array, device: Int64Array, cut: Int64Array
) -> Int64Array:
    """Per sync, its device's idle from `end` to the next device work's start, cut
    at `cut` (the next sync on its thread, which counts the rest); see above."""
    idle = np.full(end.size, -1, dtype=np.int64)
    trace = analysis.trace
    if end.size == 0 or not trace.gpu_observed:
        return idle
    work = np.flatnonzero(trace.device_work_mask)
    work_device = np.array(
        [-1 if track.device is None else track.device for track in trace.tracks]
        or [-1],
        dtype=np.int64,
    )[trace.track[work]]
    for value in distinct(device).tolist():
        mine = device == value
        if value >= 0 and value in analysis.busy_by_device:
            busy = analysis.busy_by_device[value]
            starts = np.sort(trace.start_ns[work[work_device == value]])
        else:
            busy = analysis.busy_all_devices
            starts = np.sort(trace.start_ns[work])
        at = end[mine]
        # Busy across the end: some interval starts before it and ends after.
        block = np.searchsorted(busy.starts, at, side="left") - 1
        covered = (block >= 0) & (busy.ends[np.maximum(block, 0)] > at)
        following = np.searchsorted(starts, at, side="left")
        has_next = following < starts.size
        gap = starts[np.minimum(following, max(starts.size - 1, 0))] - at
        until = np.minimum(gap, np.maximum(cut[mine] - at, 0))
        idle[mine] = np.where(covered, 0, np.where(has_next, until, -1))
    return idle


def ancestors_of(parent: Int64Array, events: Int64Array) -> Int64Array:
    """The enclosing events of each event, one row per level (innermost first), -1 padded."""
    rows = []
    current = parent[events] if events.size else np.zeros(0, dtype=np.int64)
    while current.size and bool((current >= 0).any()):
        rows.append(current)
        current = np.where(current >= 0, parent[np.maximum(current, 0)], -1)
    if not rows:
        return np.zeros((0, events.size), dtype=np.int64)
    return np.vstack(rows).astype(np.int64)


def _causes(trace: Trace, ancestors: Int64Array) -> tuple[Int64Array, Int64Array]:
    """The outermost enclosing operator of each sync, and the outermost that reads a value."""
    count = ancestors.shape[1]
    cause = np.full(count, -1, dtype=np.int64)
    reading = np.full(count, -1, dtype=np.int64)
    reads = names_in(trace, trace.name_ids_matching(set(READS_DEVICE_VALUES)))
    for level in ancestors:  # innermost first: the last hit is the outermost
        safe = np.maximum(level, 0)
        present = level >= 0
        operator = present & (trace.kind[safe] == Kind.CPU_OP)
        cause = np.where(operator, level, cause)
        reading = np.where(operator & reads[safe], level, reading)
    return cause, reading


def _path_member(trace: Trace) -> BoolArray:
    """Events that name a sync's path: not steps, not Python frames."""
    step_ids = [i for i, name in enumerate(trace.names) if STEP_NAME.match(name)]
    member: BoolArray = (trace.kind != Kind.PYTHON) & ~names_in(trace, step_ids)
    return member


def _chains(
    trace: Trace, ancestors: Int64Array, member: BoolArray
) -> tuple[Int64Array, list[tuple[str, ...]]]:
    """Each sync's enclosing `member` events' names, outermost first, interned (-1: none)."""
    count = ancestors.shape[1]
    chosen = np.where(
        (ancestors >= 0) & member[np.maximum(ancestors, 0)], ancestors, -1
    )[::-1]
    index_of: dict[tuple[str, ...], int] = {}
    chain = np.full(count, -1, dtype=np.int64)
    for position, column in enumerate(chosen.T.tolist()):
        names = tuple(trace.event_name(event) for event in column if event >= 0)
        if names:
            chain[position] = index_of.setdefault(names, len(index_of))
    return chain, list(index_of)


def _call_stacks(
    trace: Trace,
    cause: Int64Array,
    stack: Int64Array,
    stacks: list[tuple[str, ...]],
) -> tuple[Int64Array, list[tuple[str, ...]]]:
    """Where no Python frame encloses a sync, the cause's `Call stack` arg (older
    profilers write it innermost first, `;`-separated), outermost first."""
    stacks = list(stacks)
    index_of = {frames: index for index, frames in enumerate(stacks)}
    stack = stack.copy()
    for position in np.flatnonzero((stack < 0) & (cause >= 0)).tolist():
        text = trace.event_args(int(cause[position])).get("Call stack")
        if not isinstance(text, str) or not text.strip():
            continue
        frames = tuple(
            frame.strip() for frame in reversed(text.split(";")) if frame.strip()
        )
        if frames not in index_of:
            index_of[frames] = len(stacks)
            stacks.append(frames)
        stack[position] = index_of[frames]
    return stack, stacks
