"""Collectives per kind and message size: count, time, algorithm and bus bandwidth.

What a collective moved is read where PyTorch writes it: the
`record_param_comms` CPU op's args (`Collective name`, `dtype`, `In msg
nelems`, `Out msg nelems`, `Group size`, `Process Group Name`), which Kineto
also copies onto the NCCL kernel ("Collective function metadata populated from
CPU op to GPU kernel", libkineto's key names). A communication kernel takes
them from its own args, else from the `record_param_comms` its launch call sits
in; its kind, when no size is written, from the `nccl:*` / `gloo:*` /
`c10d::*` range around the launch. Without those keys, an all_reduce, broadcast
or reduce is sized from its range's recorded input (`Input Dims` × `Input
type`, the whole array for these kinds), with no group size. Without
communication kernels, the collectives are the `record_param_comms` ops with a
collective name (else the outermost `gloo:*` / `nccl:*` ranges, else `c10d::*`
ops), timed on the host: for NCCL that is the call that enqueues the work, not
the transfer, and the result says which side.

Bandwidths follow nccl-tests (doc/PERFORMANCE.md): the size S is the whole
array, the larger of the input and output messages (all_gather's output and
reduce_scatter's input are n times the per-rank count), `algbw = S / t`, and
`busbw = algbw × factor(n)`: all_reduce 2(n−1)/n; reduce_scatter, all_gather
and all_to_all (n−1)/n; broadcast, reduce and send/recv 1. A row's algbw is its
bytes over its time (S over the mean time, as nccl-tests averages its runs);
bytes per ns are GB/s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.base.vocab import CollectiveSide
from tui.core.figures.analysis import Analysis
from tui.core.figures.collectives import CPU_COLLECTIVE, cpu_collective_mask
from tui.core.figures.kernel_types import communication_mask

PARAM_COMMS = "record_param_comms"
COLLECTIVE_NAME = "Collective name"
IN_NELEMS = "In msg nelems"
OUT_NELEMS = "Out msg nelems"
GROUP_SIZE = "Group size"
PROCESS_GROUP = "Process Group Name"
DTYPE = "dtype"

# Bytes per element of c10::ScalarType as c10::toString spells it (the `dtype` arg).
DTYPE_BYTES = {
    "Byte": 1,
    "Char": 1,
    "Bool": 1,
    "Float8_e5m2": 1,
    "Float8_e4m3fn": 1,
    "Float8_e5m2fnuz": 1,
    "Float8_e4m3fnuz": 1,
    "QInt8": 1,
    "QUInt8": 1,
    "Short": 2,
    "Half": 2,
    "BFloat16": 2,
    "Int": 4,
    "Float": 4,
    "ComplexHalf": 4,
    "QInt32": 4,
    "Long": 8,
    "Double": 8,
    "ComplexFloat": 8,
    "ComplexDouble": 16,
}

# `Input type` (caffe2 type names, on nccl:*/gloo:* ranges with record_shapes)
# as the dtype names above.
INPUT_TYPE_DTYPE = {
    "float": "Float",
    "double": "Double",
    "c10::Half": "Half",
    "c10::BFloat16": "BFloat16",
    "long int": "Long",
    "long": "Long",
    "int": "Int",
    "short int": "Short",
    "short": "Short",
    "signed char": "Char",
    "unsigned char": "Byte",
    "bool": "Bool",
}
# Kinds whose recorded input is the whole array (nccl-tests' S): the others'
# inputs are a rank's part or its list of parts.
WHOLE_INPUT_KINDS = ("all_reduce", "broadcast", "reduce")

# Kinds as nccl-tests names its tests, recognised in a collective's name with
# the separators removed (first match wins: reduce_scatter before reduce).
_KIND_PATTERNS = (
    ("reducescatter", "reduce_scatter"),
    ("allreduce", "all_reduce"),
    ("allgather", "all_gather"),
    ("alltoall", "all_to_all"),
    ("broadcast", "broadcast"),
    ("reduce", "reduce"),
    ("send", "send_recv"),
    ("recv", "send_recv"),
    ("barrier", "barrier"),
    ("gather", "gather"),
    ("scatter", "scatter"),
)
_PREFIX = re.compile(r"^(?:nccl:|gloo:|c10d::)")
LIBRARY_RANGE = re.compile(r"^(?:nccl:|gloo:)")


def collective_kind(name: str) -> str:
    """`all_reduce`, `all_gather`… from `allreduce`, `nccl:_all_gather_base`,
    `ncclDevKernel_AllGather_RING_LL`; else the name itself (`wait`)."""
    bare = _PREFIX.sub("", name).strip("_ ").lower()
    squeezed = re.sub(r"[^a-z]", "", bare)
    for pattern, kind in _KIND_PATTERNS:
        if pattern in squeezed:
            return kind
    return bare or "other"


def bus_factor(kind: str, ranks: int) -> float | None:
    """nccl-tests' correction from algorithm to bus bandwidth; None where it
    defines none (barrier, gather, scatter, other) or the group size is unknown."""
    if ranks < 1:
        return None
    if kind == "all_reduce":
        return 2.0 * (ranks - 1) / ranks
    if kind in ("reduce_scatter", "all_gather", "all_to_all"):
        return (ranks - 1) / ranks
    if kind in ("broadcast", "reduce", "send_recv"):
        return 1.0
    return None


@dataclass(frozen=True)
class CollectiveCall:
    """One collective: its kind, what it moved (None where not written) and its time."""

    event: int
    kind: str
    name: str
    start_ns: int
    duration_ns: int
    dtype: str | None
    in_nelems: int | None
    out_nelems: int | None
    group_size: int | None
    process_group: str | None

    @property
    def size_bytes(self) -> int | None:
        """nccl-tests' S: the larger message times the element size."""
        width = DTYPE_BYTES.get(self.dtype or "")
        counts = [n for n in (self.in_nelems, self.out_nelems) if n is not None]
        if width is None or not counts:
            return None
        return max(counts) * width


@dataclass(frozen=True)
class CollectiveRow:
    """Collectives of one kind, size, element type, group size and process group."""

    kind: str
    size_bytes: int | None
    dtype: str | None
    group_size: int | None
    process_group: str | None
    count: int
    time_ns: int
    calls: tuple[CollectiveCall, ...] = ()

    @property
    def mean_ns(self) -> float:
        """Mean time of one collective."""
        return self.time_ns / self.count

    @property
    def algbw_gbps(self) -> float | None:
        """S / t in GB/s (bytes per ns); None without a size or a time."""
        if self.size_bytes is None or self.time_ns <= 0:
            return None
        return self.size_bytes * self.count / self.time_ns

    @property
    def busbw_gbps(self) -> float | None:
        """algbw × nccl-tests' factor for the kind and group size."""
        algbw = self.algbw_gbps
        factor = bus_factor(self.kind, self.group_size or 0)
        return None if algbw is None or factor is None else algbw * factor


@dataclass(frozen=True)
class CollectiveBandwidth:
    """A trace's collectives, the side they were timed on, and their rows
    (the most time first)."""

    side: CollectiveSide | None
    calls: list[CollectiveCall]
    rows: list[CollectiveRow]

    @property
    def time_ns(self) -> int:
        """Time in all collectives (summed, overlaps counted per call)."""
        return sum(row.time_ns for row in self.rows)

    @property
    def sized(self) -> int:
        """How many collectives carry a message size."""
        return sum(1 for call in self.calls if call.size_bytes is not None)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _input_message(args: dict[str, Any]) -> tuple[int | None, str | None]:
    """Elements and dtype from a range's recorded inputs (`Input Dims`, `Input
    type`): every tensor's shape, all of one known type; (None, None) else."""
    dims, types = args.get("Input Dims"), args.get("Input type")
    if not isinstance(dims, list) or not isinstance(types, list) or not dims:
        return None, None
    if len(types) != len(dims) or len(set(map(str, types))) != 1:
        return None, None
    dtype = INPUT_TYPE_DTYPE.get(str(types[0]))
    total = 0
    for shape in dims:
        if not isinstance(shape, list) or not all(
            isinstance(size, int) and not isinstance(size, bool) for size in shape
        ):
            return None, None
        total += int(np.prod(shape, dtype=np.int64)) if shape else 1
    return (total, dtype) if dtype is not None else (None, None)


def _call(
    event: int, name: str, start: int, duration: int, args: dict[str, Any]
) -> CollectiveCall:
    """A collective from the args that describe it (the kernel's or its op's);
    without Kineto's keys, an all_reduce, broadcast or reduce (whose input is
    the whole array) is sized from its range's recorded inputs."""
    written = _text(args.get(COLLECTIVE_NAME))
    kind = collective_kind(written or name)
    in_nelems, out_nelems = _int(args.get(IN_NELEMS)), _int(args.get(OUT_NELEMS))
    dtype = _text(args.get(DTYPE))
    if in_nelems is None and out_nelems is None and kind in WHOLE_INPUT_KINDS:
        in_nelems, dtype = _input_message(args)
        out_nelems = in_nelems
    return CollectiveCall(
        event=event,
        kind=kind,
        name=written or name,
        start_ns=start,
        duration_ns=duration,
        dtype=dtype,
        in_nelems=in_nelems,
        out_nelems=out_nelems,
        group_size=_int(args.get(GROUP_SIZE)),
        process_group=_text(args.get(PROCESS_GROUP)),
    )


def _described_by(analysis: Analysis, event: int) -> tuple[str, dict[str, Any]]:
    """The collective around a CPU event: the nearest `record_param_comms` with a
    collective name (its args), else the nearest collective range (its name and
    args)."""
    trace, parent = analysis.trace, analysis.parent
    named, named_args = "", {}
    current = event
    while current >= 0:
        name = trace.event_name(current)
        if name == PARAM_COMMS:
            args = trace.event_args(current)
            if COLLECTIVE_NAME in args:
                return named or name, args
        elif not named and CPU_COLLECTIVE.match(name):
            named, named_args = name, trace.event_args(current)
        current = int(parent[current])
    return named, named_args


def find_collective_calls(
    analysis: Analysis,
) -> tuple[CollectiveSide | None, list[CollectiveCall]]:
    """The trace's collectives: communication kernels if any, else CPU ones."""
    trace = analysis.trace
    kernels = np.flatnonzero(communication_mask(trace)).tolist()
    if kernels:
        launch = analysis.launch_call
        calls = []
        for kernel in kernels:
            args = trace.event_args(kernel)
            name = trace.event_name(kernel)
            if COLLECTIVE_NAME not in args and int(launch[kernel]) >= 0:
                around, op_args = _described_by(analysis, int(launch[kernel]))
                name, args = around or name, op_args
            calls.append(
                _call(
                    kernel,
                    name,
                    int(trace.start_ns[kernel]),
                    int(trace.duration_ns[kernel]),
                    args,
                )
            )
        return CollectiveSide.GPU, calls
    on_cpu = analysis.on_cpu
    param_id = trace.name_ids_matching({PARAM_COMMS})
    params = [
        event
        for event in np.flatnonzero(on_cpu & np.isin(trace.name_id, param_id)).tolist()
        if COLLECTIVE_NAME in trace.event_args(event)
    ]
    if not params:
        ops = np.flatnonzero(cpu_collective_mask(trace, on_cpu)).tolist()
        # The library's own range (gloo:*, nccl:*, often on a worker thread) is
        # the work; c10d::* is the dispatcher's call that hands it over.
        library = [op for op in ops if LIBRARY_RANGE.match(trace.event_name(op))]
        params = library or ops
    chosen = set(params)
    parent = analysis.parent
    params = [op for op in params if not _inside(parent, op, chosen)]
    calls = [
        _call(
            event,
            trace.event_name(event),
            int(trace.start_ns[event]),
            int(trace.duration_ns[event]),
            trace.event_args(event),
        )
        for event in params
    ]
    return (CollectiveSide.CPU if calls else None), calls


def _inside(parent: npt.NDArray[np.int64], event: int, chosen: set[int]) -> bool:
    """Whether an ancestor of `event` is itself one of `chosen` (count it once)."""
    current = int(parent[event])
    while current >= 0:
        if current in chosen:
            return True
        current = int(parent[current])
    return False


def collective_bandwidth(analysis: Analysis) -> CollectiveBandwidth:
    """Collectives grouped by kind, size, dtype, group size and process group."""
    side, calls = find_collective_calls(analysis)
    groups: dict[tuple[Any, ...], list[CollectiveCall]] = {}
    for call in calls:
        key = (
            call.kind,
            call.size_bytes,
            call.dtype,
            call.group_size,
            call.process_group,
        )
        groups.setdefault(key, []).append(call)
    rows = [
        CollectiveRow(
            kind=key[0],
            size_bytes=key[1],
            dtype=key[2],
            group_size=key[3],
            process_group=key[4],
            count=len(members),
            time_ns=sum(call.duration_ns for call in members),
            calls=tuple(members),
        )
        for key, members in groups.items()
    ]
    rows.sort(key=lambda row: (-row.time_ns, row.kind, row.size_bytes or 0))
    return CollectiveBandwidth(side, calls, rows)
