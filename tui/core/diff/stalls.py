"""What each window step spends in time that is not the step's own work: runtime
stalls, compilation and untraced time (nothing recorded on any thread or device).

A diff sets aside a step compiling past the others, and the window's first or
last step only when its extra time sits here and the other steps do not have
it (`kept.py`); this module measures it.
Every figure is a union of intervals clipped to the step, so a stall nested in
a compilation range is counted once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.figures.analysis import Analysis
from tui.core.model.steps import STEP_PREFIX, Step
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Runtime and driver calls that stall a step once: allocation, synchronisation,
# lazy module loading (CUDA and HIP spellings).
STALL_CALLS = frozenset(
    {
        "cudaMalloc",
        "cudaMallocAsync",
        "cudaMallocHost",
        "cudaHostAlloc",
        "cudaFree",
        "cudaFreeHost",
        "cudaStreamSynchronize",
        "cudaDeviceSynchronize",
        "cudaEventSynchronize",
        "cuModuleLoad",
        "cuModuleLoadData",
        "cuModuleLoadDataEx",
        "cuModuleLoadFatBinary",
        "cuModuleGetFunction",
        "cuLibraryLoadData",
        "cuLibraryGetKernel",
        "cudaGetFuncBySymbol",
        "hipMalloc",
        "hipHostMalloc",
        "hipFree",
        "hipStreamSynchronize",
        "hipDeviceSynchronize",
        "hipEventSynchronize",
        "hipModuleLoad",
        "hipModuleLoadData",
    }
)
# Ranges torch.compile records while it compiles (not while compiled code runs).
COMPILE_MARKS = ("dynamo_timed", "compile_fx", "compile_inner", "inductor_compile")
STALL = "runtime stall"
COMPILATION = "compilation"
UNTRACED = "untraced time (nothing recorded on any thread or device)"


@dataclass(frozen=True)
class StepExtra:
    """One window step's time outside its own work, by kind (ns), and the calls seen."""

    step: int
    stall_ns: int
    compile_ns: int
    untraced_ns: int
    any_ns: int
    """The union of the three (a stall inside a compile range counts once)."""
    stall_names: tuple[str, ...]

    def by_kind(self) -> dict[str, int]:
        """Each kind's time, keyed by its words."""
        return {
            STALL: self.stall_ns,
            COMPILATION: self.compile_ns,
            UNTRACED: self.untraced_ns,
        }


def _name_mask(trace: Trace) -> tuple[BoolArray, BoolArray]:
    """Per name id: whether it is a stall call, and whether it is a compile range."""
    stall = np.zeros(len(trace.names), dtype=np.bool_)
    stall[trace.name_ids_matching(set(STALL_CALLS))] = True
    compiling = np.fromiter(
        (any(mark in name for mark in COMPILE_MARKS) for name in trace.names),
        dtype=np.bool_,
        count=len(trace.names),
    )
    return stall, compiling


def _covered(intervals: Intervals, steps: list[Step]) -> Int64Array:
    starts = np.array([step.start_ns for step in steps], dtype=np.int64)
    ends = np.array([step.end_ns for step in steps], dtype=np.int64)
    return intervals.covered_in(starts, ends)


def _untraced(analysis: Analysis, steps: list[Step]) -> list[Intervals]:
    """Per step: the parts of it where no CPU thread records anything but the
    profiler's step ranges and no device works (work on another thread or on
    the device counts as traced)."""
    trace = analysis.trace
    recorded = analysis.on_cpu.copy()
    recorded &= ~np.isin(trace.name_id, trace.name_ids_starting(STEP_PREFIX))
    busy = Intervals.union_of(
        trace.start_ns[recorded], (trace.start_ns + trace.duration_ns)[recorded]
    ).union(analysis.busy_all_devices)
    return [
        Intervals.span(step.start_ns, step.end_ns).subtract(
            busy.clip(step.start_ns, step.end_ns)
        )
        for step in steps
    ]


def step_extras(analysis: Analysis) -> tuple[StepExtra, ...]:
    """Each window step's stall, compilation and untraced time."""
    steps = analysis.active_steps
    if not steps:
        return ()
    trace = analysis.trace
    stall_names, compile_names = _name_mask(trace)
    ids = trace.name_id
    ends = trace.start_ns + trace.duration_ns
    stall_mask = stall_names[ids]
    compile_mask = compile_names[ids]
    stalls = Intervals.union_of(trace.start_ns[stall_mask], ends[stall_mask])
    compiles = Intervals.union_of(trace.start_ns[compile_mask], ends[compile_mask])
    stall_ns = _covered(stalls, steps)
    compile_ns = _covered(compiles, steps)
    untraced = _untraced(analysis, steps)
    either = stalls.union(compiles)
    stall_events = np.flatnonzero(stall_mask)
    extras = []
    for index, step in enumerate(steps):
        clipped = either.clip(step.start_ns, step.end_ns).union(untraced[index])
        starting = stall_events[
            (trace.start_ns[stall_events] >= step.start_ns)
            & (trace.start_ns[stall_events] < step.end_ns)
        ]
        names = tuple(
            sorted({trace.names[int(ids[event])] for event in starting.tolist()})
        )
        extras.append(
            StepExtra(
                step.number,
                int(stall_ns[index]),
                int(compile_ns[index]),
                untraced[index].total_ns,
                clipped.total_ns,
                names,
            )
        )
    return tuple(extras)
