"""torch.compile in the trace: compiled regions, their graphs and kernels, and
the compilations (Dynamo, then the backend) that ran in the capture.

torch records each call of a compiled frame as `Torch-Compiled Region: F/A`
(frame F, its A-th compilation), the compiled graphs it runs as
`## Call CompiledFxGraph HASH ##` (the backward graph inside
`CompiledFunctionBackward`, tied to the forward by a `fwdbwd` flow), and a
compilation as nested ranges (`dynamo`, `entire_frame_compile`,
`_compile.compile_inner (dynamo_timed)`, the backend's
`OutputGraph.call_user_compiler (dynamo_timed)`), with short `…_data:
compile_id=F/A` ranges inside naming it. A compile id whose A is over 0 is a
recompilation of frame F; several frames run in one step are graph breaks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.figures.analysis import Analysis
from tui.core.figures.event_links import (
    cpu_events_named,
    enclosing_marked,
    forward_backward_pairs,
)
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

REGION_PREFIX = "Torch-Compiled Region: "
GRAPH_CALL_PREFIX = "## Call CompiledFxGraph "
COMPILE_NAMES = frozenset(
    {
        "dynamo",
        "entire_frame_compile",
        "_compile.compile_inner (dynamo_timed)",
        "_compile.compile_inner",
    }
)
"""The ranges of one whole compilation; the outermost of them is its time."""
BACKEND_NAMES = frozenset(
    {
        "backend_compile",
        "OutputGraph.call_user_compiler (dynamo_timed)",
        "OutputGraph.call_user_compiler",
    }
)
"""The backend's (Inductor's) part of a compilation."""
_COMPILE_ID = re.compile(r"\[?(\d+)/(\d+)")
_NAMED_ID = re.compile(r"compile_id=\[?(\d+/\d+)")


def compile_id_of(name: str) -> tuple[int, int] | None:
    """Frame and attempt of a compile id in a name (`0/1` → (0, 1))."""
    found = _COMPILE_ID.search(name)
    return None if found is None else (int(found.group(1)), int(found.group(2)))


def _order(compile_id: str) -> tuple[int, int, str]:
    frame, attempt = compile_id_of(compile_id) or (-1, 0)
    return frame, attempt, compile_id


def _frame(compile_id: str) -> int | str:
    """A compile id's frame; the id itself when it names none."""
    found = compile_id_of(compile_id)
    return compile_id if found is None else found[0]


@dataclass(frozen=True)
class NamedTime:
    """A graph or a kernel: its calls and time over the window."""

    name: str
    calls: int
    time_ns: int


@dataclass(frozen=True)
class CompiledRegion:
    """One compile id's calls over the window, and what ran inside them."""

    compile_id: str
    frame: int
    attempt: int
    calls: int
    time_ns: int
    steps: tuple[int, ...]
    graphs: tuple[NamedTime, ...]
    """Compiled graphs called inside (forward) or by its backward."""
    kernels: tuple[NamedTime, ...] | None
    """Device work launched inside, per kernel name; None without device work."""

    @property
    def recompiled(self) -> bool:
        """A second (or later) compilation of its frame."""
        return self.attempt > 0


@dataclass(frozen=True)
class Compilation:
    """One compilation: its id, when and how long, the backend's part."""

    compile_id: str | None
    start_ns: int
    duration_ns: int
    backend_ns: int
    step: int | None
    """The step it ran in (None: outside every step)."""
    in_window: bool

    @property
    def recompile(self) -> bool:
        """A second (or later) compilation of a frame."""
        found = None if self.compile_id is None else compile_id_of(self.compile_id)
        return found is not None and found[1] > 0


@dataclass(frozen=True)
class StepCompiled:
    """One window step: the compile ids it ran, its frames, its compile time.

    `between_ns`: the time between consecutive regions of different frames
    on a thread, where eager work runs between the compiled graphs (a graph
    break); 0 with one frame.
    """

    step: int
    compile_ids: tuple[str, ...]
    frames: int
    compile_ns: int
    between_ns: int = 0


@dataclass(frozen=True)
class CompiledFigures:
    """Every compiled region and compilation of the capture; per step of the window."""

    regions: tuple[CompiledRegion, ...]
    compilations: tuple[Compilation, ...]
    steps: tuple[StepCompiled, ...]
    gpu_observed: bool

    @property
    def present(self) -> bool:
        """Whether the capture shows torch.compile at all."""
        return bool(self.regions or self.compilations)

    @property
    def graph_break_steps(self) -> tuple[StepCompiled, ...]:
        """Steps running more than one compiled frame."""
        return tuple(step for step in self.steps if step.frames > 1)

    @classmethod
    def of(cls, analysis: Analysis) -> CompiledFigures:
        """The figures of one analysis, computed once (`Analysis.memo`)."""
        return analysis.memo(compiled_figures)


def _in_window(analysis: Analysis, times: Int64Array) -> BoolArray:
    steps = analysis.window_steps
    inside = np.zeros(times.size, dtype=bool)
    for step in steps:
        inside |= (times >= step.start_ns) & (times < step.end_ns)
    return inside


def _backward_regions(analysis: Analysis, region_mark: BoolArray) -> dict[int, int]:
    """Backward functions tied by a `fwdbwd` flow to a forward call inside a
    region: backward event → region event."""
    sources, targets = forward_backward_pairs(analysis)
    regions = enclosing_marked(analysis, sources, region_mark)
    return {
        int(target): int(region)
        for target, region in zip(targets.tolist(), regions.tolist(), strict=True)
        if region >= 0
    }


class _RegionOwners:
    """Which region an event ran in: inside its range, or inside the backward
    function its forward call is tied to."""

    def __init__(
        self, analysis: Analysis, region_mark: BoolArray, region_id: dict[int, str]
    ) -> None:
        self.analysis = analysis
        self.region_mark = region_mark
        self.region_id = region_id
        self.backward_region = _backward_regions(analysis, region_mark)
        via_backward = np.zeros(analysis.trace.event_count, dtype=bool)
        via_backward[list(self.backward_region)] = True
        self.either = region_mark | via_backward

    def summed(
        self, events: Int64Array, placed: Int64Array, names: list[str]
    ) -> dict[str, tuple[NamedTime, ...]]:
        """`events` (placed where `placed` ran) per compile id, summed per name."""
        owners = enclosing_marked(self.analysis, placed, self.either)
        durations = self.analysis.trace.duration_ns[events].tolist()
        found: dict[str, tuple[list[str], list[int]]] = {}
        for name, duration, owner in zip(
            names, durations, owners.tolist(), strict=True
        ):
            if owner < 0:
                continue
            region = owner if self.region_mark[owner] else self.backward_region[owner]
            kept_names, kept_times = found.setdefault(self.region_id[region], ([], []))
            kept_names.append(name)
            kept_times.append(int(duration))
        return {key: _summed(*value) for key, value in found.items()}


def _summed(names: list[str], durations: list[int]) -> tuple[NamedTime, ...]:
    calls: dict[str, list[int]] = {}
    for name, duration in zip(names, durations, strict=True):
        entry = calls.setdefault(name, [0, 0])
        entry[0] += 1
        entry[1] += duration
    rows = [NamedTime(name, count, time) for name, (count, time) in calls.items()]
    return tuple(sorted(rows, key=lambda row: (-row.time_ns, row.name)))


def _graph_name(name: str) -> str:
    """`## Call CompiledFxGraph HASH ##` → `CompiledFxGraph HASH`."""
    return name.removeprefix("## Call ").removesuffix(" ##").strip()


def compiled_figures(analysis: Analysis) -> CompiledFigures:
    """The compiled regions over the window, every compilation, and each window step."""
    trace = analysis.trace
    regions = cpu_events_named(analysis, REGION_PREFIX)
    region_mark = np.zeros(trace.event_count, dtype=bool)
    region_mark[regions] = True
    region_id = {
        int(event): trace.event_name(int(event))[len(REGION_PREFIX) :].strip()
        for event in regions.tolist()
    }
    counted = regions[_in_window(analysis, trace.start_ns[regions])]

    # What ran inside each region: its graphs (and its backward's), its kernels.
    owners = _RegionOwners(analysis, region_mark, region_id)
    graphs = cpu_events_named(analysis, GRAPH_CALL_PREFIX)
    graphs = graphs[_in_window(analysis, trace.start_ns[graphs])]
    graph_names = [_graph_name(trace.event_name(graph)) for graph in graphs.tolist()]
    graph_of = owners.summed(graphs, graphs, graph_names)
    gpu = trace.gpu_observed
    kernel_of: dict[str, tuple[NamedTime, ...]] = {}
    if gpu:
        work = np.flatnonzero(trace.device_work_mask & (analysis.gpu_owner >= 0))
        launched = analysis.gpu_owner[work]
        work = work[_in_window(analysis, trace.start_ns[launched])]
        kernel_names = [trace.event_name(kernel) for kernel in work.tolist()]
        kernel_of = owners.summed(work, analysis.gpu_owner[work], kernel_names)

    per_id: dict[str, list[int]] = {}
    steps_of: dict[str, set[int]] = {}
    for event in counted.tolist():
        compile_id = region_id[event]
        entry = per_id.setdefault(compile_id, [0, 0])
        entry[0] += 1
        entry[1] += int(trace.duration_ns[event])
        step = analysis.step_of(int(trace.start_ns[event]))
        if step is not None:
            steps_of.setdefault(compile_id, set()).add(step)

    def region_row(compile_id: str) -> CompiledRegion:
        frame, attempt = compile_id_of(compile_id) or (-1, 0)
        calls, time_ns = per_id.get(compile_id, [0, 0])
        return CompiledRegion(
            compile_id,
            frame,
            attempt,
            calls,
            time_ns,
            tuple(sorted(steps_of.get(compile_id, ()))),
            graph_of.get(compile_id, ()),
            kernel_of.get(compile_id, ()) if gpu else None,
        )

    every_id = sorted(set(region_id.values()), key=_order)
    compilations = _compilations(analysis)
    return CompiledFigures(
        tuple(region_row(compile_id) for compile_id in every_id),
        compilations,
        _steps(analysis, counted, region_id, compilations),
        gpu,
    )


def _compilations(analysis: Analysis) -> tuple[Compilation, ...]:
    """The outermost compile ranges, each with the id named inside it."""
    trace = analysis.trace
    ranges = cpu_events_named(analysis, COMPILE_NAMES)
    if ranges.size == 0:
        return ()
    mark = np.zeros(trace.event_count, dtype=bool)
    mark[ranges] = True
    above = analysis.parent[ranges]
    outer = enclosing_marked(analysis, above, mark) < 0
    backend = cpu_events_named(analysis, BACKEND_NAMES)
    backend_mark = np.zeros(trace.event_count, dtype=bool)
    backend_mark[backend] = True
    named = np.flatnonzero(
        np.fromiter(
            ("compile_id=" in name for name in trace.names),
            dtype=bool,
            count=len(trace.names),
        )[trace.name_id]
    )
    found: list[Compilation] = []
    inside_window = _in_window(analysis, trace.start_ns[ranges])
    for event, keep, counted in zip(
        ranges.tolist(), outer.tolist(), inside_window.tolist(), strict=True
    ):
        if not keep:
            continue
        start = int(trace.start_ns[event])
        end = start + int(trace.duration_ns[event])
        track = int(trace.track[event])
        compile_id = _id_between(trace, named, track, start, end)
        backend_ns = _outermost_between(
            analysis, backend, backend_mark, track, start, end
        )
        found.append(
            Compilation(
                compile_id,
                start,
                end - start,
                backend_ns,
                analysis.step_of(start),
                bool(counted),
            )
        )
    return tuple(found)


def _id_between(
    trace: Trace, named: Int64Array, track: int, start: int, end: int
) -> str | None:
    """The compile id the first `…compile_id=F/A` range inside [start, end) names."""
    chosen = named[
        (trace.track[named] == track)
        & (trace.start_ns[named] >= start)
        & (trace.start_ns[named] < end)
    ]
    for event in chosen.tolist():
        match = _NAMED_ID.search(trace.event_name(event))
        if match is not None:
            return match.group(1)
    return None


def _outermost_between(
    analysis: Analysis,
    events: Int64Array,
    mark: BoolArray,
    track: int,
    start: int,
    end: int,
) -> int:
    """The time of the outermost `events` inside [start, end) on a track."""
    trace = analysis.trace
    chosen = events[
        (trace.track[events] == track)
        & (trace.start_ns[events] >= start)
        & (trace.start_ns[events] < end)
    ]
    if chosen.size == 0:
        return 0
    outer = enclosing_marked(analysis, analysis.parent[chosen], mark) < 0
    return int(trace.duration_ns[chosen[outer]].sum())


def _steps(
    analysis: Analysis,
    regions: Int64Array,
    region_id: dict[int, str],
    compilations: tuple[Compilation, ...],
) -> tuple[StepCompiled, ...]:
    trace = analysis.trace
    rows = []
    for step in analysis.window_steps:
        starts = trace.start_ns[regions]
        inside = regions[(starts >= step.start_ns) & (starts < step.end_ns)]
        ids = sorted({region_id[int(event)] for event in inside.tolist()}, key=_order)
        frames = {_frame(cid) for cid in ids}
        compile_ns = sum(
            item.duration_ns for item in compilations if item.step == step.number
        )
        rows.append(
            StepCompiled(
                step.number,
                tuple(ids),
                len(frames),
                compile_ns,
                _between(trace, inside, region_id),
            )
        )
    return tuple(rows)


def _between(trace: Trace, regions: Int64Array, region_id: dict[int, str]) -> int:
    """The time from each region to the next one of another frame on its thread."""
    total = 0
    previous: dict[int, int] = {}
    for event in regions.tolist():
        track = int(trace.track[event])
        before = previous.get(track)
        if before is not None and _frame(region_id[before]) != _frame(region_id[event]):
            end = int(trace.start_ns[before] + trace.duration_ns[before])
            total += max(int(trace.start_ns[event]) - end, 0)
        previous[track] = event
    return total
