"""The step as TensorBoard shows it: torch-tb-profiler's "step time breakdown".

Each step's time is split into Kernel, Memcpy, Memset, Communication,
Runtime, DataLoader, CPU Exec and Other with torch-tb-profiler's rules
(pytorch/kineto tb_plugin: event_parser.py StepParser, overall_parser.py),
so the figures equal its overview to the nanosecond
(tests/fixtures/tensorboard holds its own figures):

* What an event is comes from its category as written: `kernel` (Kernel,
  or Communication when its external id is that of a `nccl:`/`gloo:`
  operator), `memcpy`/`gpu_memcpy`, `memset`/`gpu_memset`, `runtime` and the
  `*_runtime` categories (Runtime), and on the CPU `cpu_op`/`operator`,
  `python`, `user_annotation`/`gpu_user_annotation`: Communication for
  `nccl:`/`gloo:` broadcast, reduce, all_reduce, all_gather and
  reduce_scatter, DataLoader for `enumerate(DataLoader)#….__next__` and
  `enumerate(DataPipe)#…` (not from `python`), CPU Exec for the rest.
  `python_function`, `cuda_driver` and other categories count nowhere.
* Overlaps go to the first part in that order: Kernel, Memcpy, Memset,
  Communication, Runtime, DataLoader, CPU Exec; Other is the step's time
  none of them covers. Every part is a union over all threads and devices.
* A step starts at its `ProfilerStep#N` range and ends at the later of its
  end and the end of the device work launched by the runtime calls wholly
  inside it (matched by correlation id); it starts no earlier than the
  previous step's end, and the first one no earlier than the device work
  before it that no step launched. Steps at the end that launched no
  captured device work (or under 80 % of the step before) are left out.
* Without any `ProfilerStep#N`, one step spans the CPU operators.

Where this differs from steptrace elsewhere: steps here are extended to their
device work (the `steps` figures end with the CPU range); a GPU-annotation
span counts as CPU Exec, as torch-tb-profiler counts it. Where it differs from
torch-tb-profiler: steps are the CPU `ProfilerStep#N` ranges of the
steps thread (it also counts the GPU-side copies Kineto writes, as extra
zero-length steps, and ranges of other threads); an event without a
correlation id is launched by nothing (it pairs all such); torch-tb-profiler's
release 0.4.3 does not know the category `cuda_runtime` (its main branch
does), so on current traces that release shows no Runtime and no extension.
Kept as torch-tb-profiler does it: when the parts before one cover every
step, its overall parser starts again from the whole steps, so later parts
count again and the parts add up to more than the step.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.intervals import Intervals
from tui.core.model.masks import names_in
from tui.core.model.steps import STEP_PREFIX, Step
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

COLLECTIVES = frozenset(
    f"{library}:{name}"
    for library in ("nccl", "gloo")
    for name in ("broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter")
)
DATALOADER_START = "enumerate(DataLoader)#"
DATALOADER_END = ".__next__"
DATAPIPE_START = "enumerate(DataPipe)#"
# A last step keeps its place when it launched at least this share of the step before.
TAIL_STEP_SHARE = 0.8


class _Type(enum.IntEnum):
    """torch-tb-profiler's event types, from the category."""

    NONE = 0
    KERNEL = 1
    MEMCPY = 2
    MEMSET = 3
    RUNTIME = 4
    OPERATOR = 5
    PYTHON = 6
    ANNOTATION = 7


_CATEGORY_TYPES = {
    "kernel": _Type.KERNEL,
    "memcpy": _Type.MEMCPY,
    "gpu_memcpy": _Type.MEMCPY,
    "memset": _Type.MEMSET,
    "gpu_memset": _Type.MEMSET,
    "runtime": _Type.RUNTIME,
    "cuda_runtime": _Type.RUNTIME,
    "mtia_runtime": _Type.RUNTIME,
    "glow_runtime": _Type.RUNTIME,
    "xpu_runtime": _Type.RUNTIME,
    "privateuse1_runtime": _Type.RUNTIME,
    "cpu_op": _Type.OPERATOR,
    "operator": _Type.OPERATOR,
    "python": _Type.PYTHON,
    "user_annotation": _Type.ANNOTATION,
    "gpu_user_annotation": _Type.ANNOTATION,
}


@dataclass(frozen=True)
class StepSplit:
    """One step's time by part (ns); `step` is None for the whole capture."""

    step: int | None
    start_ns: int
    end_ns: int
    kernel_ns: int
    memcpy_ns: int
    memset_ns: int
    communication_ns: int
    runtime_ns: int
    dataloader_ns: int
    cpu_exec_ns: int
    other_ns: int

    @property
    def total_ns(self) -> int:
        """The step's length, device work included."""
        return self.end_ns - self.start_ns


@dataclass(frozen=True)
class StepSplitAverage:
    """Each part's mean over the steps (ns)."""

    total_ns: float
    kernel_ns: float
    memcpy_ns: float
    memset_ns: float
    communication_ns: float
    runtime_ns: float
    dataloader_ns: float
    cpu_exec_ns: float
    other_ns: float


PARTS = (
    "kernel",
    "memcpy",
    "memset",
    "communication",
    "runtime",
    "dataloader",
    "cpu_exec",
    "other",
)


@dataclass(frozen=True)
class StepBreakdown:
    """The split of every step kept, their average, and what shaped them."""

    steps: tuple[StepSplit, ...]
    average: StepSplitAverage
    device_observed: bool  # any kernel, memcpy or memset in the capture
    whole_capture: bool  # no ProfilerStep: one step over the CPU operators
    left_out_steps: tuple[int, ...]  # last steps without captured device work


def step_breakdown(trace: Trace, steps: Sequence[Step]) -> StepBreakdown | None:
    """torch-tb-profiler's step split; None without a step or a CPU operator."""
    kind = _types(trace)
    step_named = names_in(trace, trace.name_ids_starting(STEP_PREFIX))
    operator_like = np.isin(kind, (_Type.OPERATOR, _Type.ANNOTATION))
    host = operator_like | (kind == _Type.PYTHON)
    host &= ~(step_named & operator_like)
    if steps:
        bounds = [(step.start_ns, step.end_ns) for step in steps]
        numbers: list[int | None] = [step.number for step in steps]
    else:
        ops = np.flatnonzero(np.isin(kind, (_Type.OPERATOR, _Type.PYTHON)))
        if ops.size == 0:
            return None
        start = int(trace.start_ns[ops].min())
        bounds = [(start, int(trace.end_ns[ops].max()))]
        numbers = [None]
    device = np.isin(kind, (_Type.KERNEL, _Type.MEMCPY, _Type.MEMSET))
    bounds, counts = _extend_to_device_work(trace, kind, device, bounds)
    kept = _kept_steps(counts)
    left_out = tuple(n for n in numbers[kept:] if n is not None)
    bounds, numbers = bounds[:kept], numbers[:kept]

    roles = _role_intervals(trace, kind, host)
    starts = np.array([start for start, _ in bounds], dtype=np.int64)
    ends = np.array([end for _, end in bounds], dtype=np.int64)
    covered = _by_priority(roles, Intervals.union_of(starts, ends))
    per_part = [part.covered_in(starts, ends) for part in covered]
    splits = tuple(
        StepSplit(
            number,
            int(starts[i]),
            int(ends[i]),
            *(int(values[i]) for values in per_part),
        )
        for i, number in enumerate(numbers)
    )
    count = len(splits)
    average = StepSplitAverage(
        float((ends - starts).sum()) / count,
        *(float(values.sum()) / count for values in per_part),
    )
    return StepBreakdown(splits, average, bool(device.any()), not steps, left_out)


def _types(trace: Trace) -> npt.NDArray[np.uint8]:
    """Each event's type, from its category as written (lower-cased)."""
    table = np.array(
        [
            _CATEGORY_TYPES.get(category.lower(), _Type.NONE)
            for category in trace.categories
        ]
        or [_Type.NONE],
        dtype=np.uint8,
    )
    return table[trace.category_id]


def _extend_to_device_work(
    trace: Trace,
    kind: npt.NDArray[np.uint8],
    device: BoolArray,
    bounds: list[tuple[int, int]],
) -> tuple[list[tuple[int, int]], list[int]]:
    """Steps extended to the device work their runtime calls launched, and how
    many device events each launched (event_parser.py, _find_device_steps)."""
    count = len(bounds)
    runtimes = np.flatnonzero(kind == _Type.RUNTIME)
    runtimes = runtimes[np.argsort(trace.start_ns[runtimes], kind="stable")]
    devices = np.flatnonzero(device)
    # One slot past the calls stands for "no call": it lies in no step.
    step_of_call = np.append(_step_of_runtime(trace, runtimes, bounds), -1)
    step = step_of_call[_launching_runtime(trace, runtimes, devices)]
    matched = step >= 0
    counts = np.bincount(step[matched], minlength=count)[:count].tolist()
    if not matched.any():
        return bounds, counts
    first_device = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
    last_device = np.full(count, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(first_device, step[matched], trace.start_ns[devices[matched]])
    np.maximum.at(last_device, step[matched], trace.end_ns[devices[matched]])
    previous_end = bounds[0][0]
    if counts[0]:
        unmatched_ends = trace.end_ns[devices[~matched]]
        before = unmatched_ends[unmatched_ends < first_device[0]]
        if before.size:
            previous_end = max(previous_end, int(before.max()))
    extended = []
    for index, (host_start, host_end) in enumerate(bounds):
        start = max(previous_end, host_start)
        end = max(host_end, int(last_device[index])) if counts[index] else host_end
        end = max(end, start)
        extended.append((start, end))
        previous_end = end
    return extended, counts


def _step_of_runtime(
    trace: Trace, runtimes: Int64Array, bounds: list[tuple[int, int]]
) -> Int64Array:
    """The step each runtime call (in start order) lies wholly inside, -1 for none.

    torch-tb-profiler walks calls and steps together: a step is passed once a
    call starts at or after its end, unless that call is empty and ends there.
    """
    starts = np.array([start for start, _ in bounds], dtype=np.int64)
    ends = np.array([end for _, end in bounds], dtype=np.int64)
    call_start = trace.start_ns[runtimes]
    call_end = trace.end_ns[runtimes]
    empty = call_end == call_start
    target = np.where(
        empty,
        np.searchsorted(ends, call_start, side="left"),
        np.searchsorted(ends, call_start, side="right"),
    )
    if target.size:
        target = np.maximum.accumulate(target)
    safe = np.minimum(target, len(bounds) - 1)
    inside = (
        (target < len(bounds)) & (call_start >= starts[safe]) & (call_end <= ends[safe])
    )
    return np.where(inside, target, -1)


def _launching_runtime(
    trace: Trace, runtimes: Int64Array, devices: Int64Array
) -> Int64Array:
    """For each device event, the position in `runtimes` of the call with its
    correlation id (the first such call), -1 for none."""
    values, first = np.unique(trace.correlation[runtimes], return_index=True)
    wanted = trace.correlation[devices]
    if values.size == 0:
        return np.full(wanted.size, -1, dtype=np.int64)
    position = np.minimum(np.searchsorted(values, wanted), values.size - 1)
    found = (wanted >= 0) & (values[position] == wanted)
    return np.where(found, first[position], -1)


def _kept_steps(counts: list[int]) -> int:
    """How many steps torch-tb-profiler keeps: up to the last that launched
    device work, less that one if it launched under 80 % of the step before."""
    if len(counts) <= 1:
        return len(counts)
    last = max((i for i, count in enumerate(counts) if count > 0), default=-1)
    if last < 0:
        return len(counts)
    if last > 0 and counts[last - 1] * TAIL_STEP_SHARE > counts[last]:
        return last
    return last + 1


def _role_intervals(
    trace: Trace,
    kind: npt.NDArray[np.uint8],
    host: BoolArray,
) -> list[Intervals]:
    """The union of each part's events, in priority order (before Other)."""
    collective = names_in(trace, trace.name_ids_matching(set(COLLECTIVES))) & host
    names = trace.names
    loader = names_in(
        trace,
        [
            *(
                index
                for index in trace.name_ids_starting(DATALOADER_START).tolist()
                if names[index].endswith(DATALOADER_END)
            ),
            *trace.name_ids_starting(DATAPIPE_START).tolist(),
        ],
    )
    loader &= host & np.isin(kind, (_Type.OPERATOR, _Type.ANNOTATION))
    kernels = kind == _Type.KERNEL
    collective_ids = distinct(trace.external_id[collective])
    communication_kernel = kernels & np.isin(trace.external_id, collective_ids)
    masks = (
        kernels & ~communication_kernel,
        kind == _Type.MEMCPY,
        kind == _Type.MEMSET,
        communication_kernel | collective,
        kind == _Type.RUNTIME,
        loader,
        host & ~collective & ~loader,
    )
    return [
        Intervals.union_of(trace.start_ns[mask], trace.end_ns[mask]) for mask in masks
    ]


def _by_priority(roles: list[Intervals], steps: Intervals) -> list[Intervals]:
    """Each part's time where no earlier part is, then Other (overall_parser.py).

    As there, an exhausted remainder restarts from the whole steps.
    """
    parts = []
    remainder = Intervals.empty()
    for role in roles:
        if remainder:
            part = remainder.intersect(role)
        else:
            part = role
            remainder = steps
        parts.append(part)
        remainder = remainder.subtract(part)
    parts.append(remainder)
    return parts
