"""Figures computed from a trace, each once: steps, nesting, operator table, busy, zones, gaps.

`Analysis` is a lazy façade over the pure functions of `steps`, `nesting`,
`optable`, `zones`, `annotations` and `intervals`. Figures that do not depend
on the data zone are shared with `with_zones`, so choosing another zone
recomputes only the zone and its gaps. What every command of a big trace
would compute again (the steps, the zone names and reading, the operator
table) is kept in its cache entry (`kept`). A reading of a figure module
that several consumers read (the syncs, the copies, the critical paths) is
computed once per analysis through `memo`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.intervals import Intervals
from tui.core.base.vocab import GapKind, StepPhase, ZoneSource
from tui.core.figures.annotations import (
    STEP_ZONES_ROOTS,
    ZoneFigure,
    step_zones_bytes,
    step_zones_from,
    zones_in_windows,
)
from tui.core.figures.kept import STEPS_ROOTS, kept_figure, kept_value
from tui.core.figures.optable import (
    OpTable,
    build_op_table,
    group_name,
    op_table_bytes,
    op_table_from,
)
from tui.core.figures.zone_kept import (
    ZONE_NAMES_ROOTS,
    ZONE_READING_ROOTS,
    zone_reading_bytes,
    zone_reading_from,
    zone_reading_name,
)
from tui.core.figures.zone_proposal import proposed_zone, traced_work
from tui.core.figures.zones import (
    DATALOADER_GROUP,
    DATALOADER_PREFIX,
    DEFAULT_DATA_ZONE,
    Gap,
    ZoneCandidate,
    ZoneChoice,
    ZoneReading,
    default_zone_choice,
    read_zone,
    zone_candidates,
    zone_event_mask,
)
from tui.core.model import nesting
from tui.core.model.derived import DerivedColumns
from tui.core.model.integrity import integrity_warnings
from tui.core.model.masks import names_in
from tui.core.model.nesting import FILTERED_NAMES, SATURATED_NS, sum_by_index
from tui.core.model.python_frames import python_frame_mask
from tui.core.model.steps import STEP_NAME, Step, StepStats, find_steps, step_name_ids
from tui.core.model.trace import Kind, Trace, TrackKind

if TYPE_CHECKING:  # imported where computed: a summary needs neither
    from tui.core.figures.breakdown.idle import GpuIdle
    from tui.core.figures.launches import GraphReplays
    from tui.core.figures.queue import LaunchQueue
    from tui.core.figures.step_split import StepBreakdown

__all__ = [
    "DATALOADER_PREFIX",
    "DEFAULT_DATA_ZONE",
    "FILTERED_NAMES",
    "SATURATED_NS",
    "STEP_NAME",
    "Analysis",
    "Gap",
    "GapKind",
    "OpTable",
    "Step",
    "StepStats",
    "ZoneChoice",
    "ZoneFigure",
    "group_name",
    "sum_by_index",
]

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Figure = TypeVar("Figure")

# Figures that depend on the data zone: dropped by `with_zones`, all others shared.
_ZONE_DEPENDENT = frozenset({"zone_choice", "zone_reading"})


class Analysis:
    """Lazily computed figures over one trace and one choice of data zone."""

    def __init__(
        self,
        trace: Trace,
        zones: ZoneChoice | Sequence[str] | None = None,
    ) -> None:
        self.trace = trace
        if isinstance(zones, ZoneChoice):
            self._requested: ZoneChoice | None = zones
        elif zones is not None:
            chosen = tuple(dict.fromkeys(zones))
            self._requested = ZoneChoice(chosen, ZoneSource.CHOSEN)
        else:
            self._requested = None

    def with_zones(self, choice: ZoneChoice | Sequence[str] | None) -> Analysis:
        """The same analysis with another data zone; zone-independent figures are shared."""
        other = Analysis(self.trace, choice)
        for name, value in self.__dict__.items():
            if name not in _ZONE_DEPENDENT and name not in ("trace", "_requested"):
                other.__dict__[name] = value
        return other

    @cached_property
    def _memo(self) -> dict[Callable[[Analysis], Any], Any]:
        return {}

    def memo(self, compute: Callable[[Analysis], Figure]) -> Figure:
        """`compute(self)`, computed at its first call and kept, keyed by the function.

        The one home of a figure that findings, results, the report and the
        app all read (the syncs, the copies, the critical paths), so that no
        consumer computes it again. Only for figures that do not depend on the
        data zone: `with_zones` shares what is kept.
        """
        kept = self._memo
        if compute not in kept:
            kept[compute] = compute(self)
        figure: Figure = kept[compute]
        return figure

    # -- steps ------------------------------------------------------------------

    @cached_property
    def on_cpu(self) -> BoolArray:
        """Events on CPU threads."""
        return nesting.cpu_track_mask(self.trace)

    @cached_property
    def steps(self) -> list[Step]:
        """Profiler steps in time order; kept in the trace's cache entry (finding
        them reads two columns of every event)."""
        return kept_figure(
            self.trace,
            "steps",
            ("figures/analysis.py", *STEPS_ROOTS),
            list[Step],
            lambda: find_steps(self.trace, self.on_cpu),
        )

    @cached_property
    def integrity_warnings(self) -> list[str]:
        """Steps counted once, kept or left out, and stray timestamps, named
        (`model/integrity.py`)."""
        return integrity_warnings(self.trace, self.on_cpu)

    @property
    def active_steps(self) -> list[Step]:
        """The steps of the recorded window."""
        return [step for step in self.steps if step.phase is StepPhase.ACTIVE]

    @property
    def window_steps(self) -> list[Step]:
        """Active steps, or every step when the description marks none active."""
        return self.active_steps or self.steps

    def step_stats(self) -> StepStats | None:
        """Median, min and max of the active steps."""
        return StepStats.of([step.duration_ns for step in self.active_steps])

    @cached_property
    def _step_bounds(self) -> tuple[Int64Array, Int64Array, list[int]]:
        steps = self.steps
        return (
            np.array([step.start_ns for step in steps], dtype=np.int64),
            np.array([step.end_ns for step in steps], dtype=np.int64),
            [step.number for step in steps],
        )

    def step_of(self, time_ns: int) -> int | None:
        """The number of the step containing a time, if any."""
        starts, ends, numbers = self._step_bounds
        position = int(np.searchsorted(starts, time_ns, side="right")) - 1
        if position >= 0 and time_ns < ends[position]:
            return numbers[position]
        return None

    # -- zones as labels (record_function ranges) ------------------------------

    @cached_property
    def zone_events(self) -> Int64Array:
        """record_function ranges on CPU threads, other than the steps themselves."""
        trace = self.trace
        mask = (
            self.on_cpu
            & (trace.kind == Kind.USER_ANNOTATION)
            & ~names_in(trace, step_name_ids(trace))
        )
        return np.flatnonzero(mask).astype(np.int64)

    @cached_property
    def _zones_by_start(self) -> tuple[Int64Array, Int64Array]:
        events = self.zone_events
        order = np.argsort(self.trace.start_ns[events], kind="stable")
        events = events[order]
        return events, self.trace.start_ns[events]

    def zones_in(self, start_ns: int, end_ns: int) -> list[ZoneFigure]:
        """Zones starting inside [start, end), per name, nested occurrences counted once."""
        window = np.array([start_ns], dtype=np.int64), np.array([end_ns], np.int64)
        return zones_in_windows(self.trace, self._zones_by_start, *window)[0]

    @cached_property
    def step_zones(self) -> list[list[ZoneFigure]]:
        """`zones_in` of each step (in `steps` order), computed for all steps at
        once; kept in the trace's cache entry."""

        def compute() -> list[list[ZoneFigure]]:
            step_starts, step_ends, _numbers = self._step_bounds
            return zones_in_windows(
                self.trace, self._zones_by_start, step_starts, step_ends
            )

        return kept_value(
            self.trace,
            "step_zones",
            STEP_ZONES_ROOTS,
            compute,
            step_zones_bytes,
            step_zones_from,
        )

    def step_device_busy_ns(self) -> list[int | None]:
        """`device_busy_ns` of each step (in `steps` order), for all steps at once."""
        if not self.trace.gpu_observed:
            return [None] * len(self.steps)
        starts, ends, _numbers = self._step_bounds
        return [int(value) for value in self.busy_all_devices.covered_in(starts, ends)]

    # -- nesting and the operator table -----------------------------------------

    @cached_property
    def _derived(self) -> DerivedColumns:
        return DerivedColumns(self.trace, lambda: self.on_cpu)

    @property
    def _participants(self) -> BoolArray:
        return self._derived.participants

    @cached_property
    def python_frames(self) -> BoolArray:
        """Events that are Python frames (`with_stack`): callers, never operators."""
        return python_frame_mask(self.trace)

    @cached_property
    def operators(self) -> BoolArray:
        """Events the operator table counts: torch's, Python frames set apart."""
        return self._participants & ~self.python_frames

    def _counted(self, python: bool) -> BoolArray:
        return self._participants if python else self.operators

    @property
    def parent(self) -> Int64Array:
        """Each event's parent on its thread (torch's rule), -1 for roots and non-participants."""
        return self._derived.parent

    @property
    def depth(self) -> npt.NDArray[np.int32]:
        """Nesting depth on the thread (0 for roots)."""
        return self._derived.depth

    @property
    def self_cpu_ns(self) -> Int64Array:
        """Duration minus direct children's durations (non-participants: their duration)."""
        return self._derived.self_cpu_ns

    @property
    def gpu_owner(self) -> Int64Array:
        """For each device-work event, the CPU event that launched it (-1 when unknown)."""
        return self._derived.gpu_owner

    @property
    def launch_call(self) -> Int64Array:
        """For each device-work event, the runtime call that launched it (-1 when unknown)."""
        return self._derived.launch_call

    @cached_property
    def graph_replays(self) -> GraphReplays:
        """Device work replayed by a CUDA graph (no launch of its own), and its graph ids."""
        from tui.core.figures.launches import GraphReplays

        return GraphReplays.of(self.trace, self.launch_call)

    @property
    def graph_work(self) -> BoolArray:
        """Per event: device work replayed by a CUDA graph, left out of launch figures."""
        return self.graph_replays.work

    @cached_property
    def launch_queue(self) -> LaunchQueue:
        """Every stream's launch queue (steptrace's rules), shared by the CLI and the app."""
        from tui.core.figures.queue import launch_queue

        return launch_queue(self.trace, self.launch_call, self.graph_work)

    @property
    def unlinked_device_events(self) -> int:
        """Device work we could not tie to a CPU event (counted in no operator)."""
        return self._derived.unlinked_device_events

    @property
    def self_gpu_ns(self) -> Int64Array:
        """Device time launched directly by each CPU event."""
        return self._derived.self_gpu_ns

    @property
    def total_gpu_ns(self) -> Int64Array:
        """Device time launched by each CPU event and its descendants."""
        return self._derived.total_gpu_ns

    def op_table(
        self,
        start_ns: int | None = None,
        end_ns: int | None = None,
        *,
        python: bool = False,
    ) -> OpTable:
        """torch's key_averages() per name, for events starting in [start, end)
        (default: all, kept in the trace's cache entry); Python frames and
        module ranges only with `python`."""
        trace = self.trace
        counted = self._counted(python)
        if start_ns is None and end_ns is None:
            return kept_value(
                trace,
                "op_table.python" if python else "op_table",
                ("figures/analysis.py", "model/python_frames.py"),
                lambda: self._op_table_of(np.flatnonzero(counted)),
                op_table_bytes,
                op_table_from,
            )
        events = self._starting_in(start_ns, end_ns)
        return self._op_table_of(events[counted[events]])

    def _op_table_of(self, events: Int64Array) -> OpTable:
        """key_averages() per name over these (participating) events."""
        trace = self.trace
        gpu = trace.gpu_observed
        return build_op_table(
            trace.names,
            trace.name_id,
            events,
            self.self_cpu_ns,
            trace.duration_ns,
            self.self_gpu_ns if gpu else None,
            self.total_gpu_ns if gpu else None,
        )

    def op_table_in(self, spans: Sequence[tuple[int, int]]) -> OpTable:
        """key_averages() per name over the operators starting in any of the
        [start, end) spans (a diff's kept steps)."""
        trace = self.trace
        pieces = [np.zeros(0, dtype=np.int64)]
        pieces += [self._starting_in(start, end) for start, end in spans]
        events = distinct(np.concatenate(pieces))
        events = events[self.operators[events]]
        gpu = trace.gpu_observed
        return build_op_table(
            trace.names,
            trace.name_id,
            events,
            self.self_cpu_ns,
            trace.duration_ns,
            self.self_gpu_ns if gpu else None,
            self.total_gpu_ns if gpu else None,
        )

    def _starting_in(self, start_ns: int | None, end_ns: int | None) -> Int64Array:
        """Events of CPU threads starting in [start, end), in event order (each thread's are sorted)."""
        trace = self.trace
        pieces = [np.zeros(0, dtype=np.int64)]
        for track in trace.tracks:
            if track.kind != TrackKind.CPU:
                continue
            span = trace.track_slice(track.index)
            starts = trace.start_ns[span]
            low = 0 if start_ns is None else int(np.searchsorted(starts, start_ns))
            high = (
                starts.size if end_ns is None else int(np.searchsorted(starts, end_ns))
            )
            if high > low:
                pieces.append(np.arange(span.start + low, span.start + high))
        return np.concatenate(pieces).astype(np.int64)

    # -- device busy ---------------------------------------------------------------

    @cached_property
    def devices(self) -> list[int | None]:
        """Devices that ran work, in order."""
        trace = self.trace
        work = trace.device_work_mask
        per_track = np.bincount(trace.track[work], minlength=len(trace.tracks))
        return sorted(
            {trace.tracks[t].device for t in np.flatnonzero(per_track).tolist()},
            key=lambda device: (device is None, device or 0),
        )

    @cached_property
    def busy_by_device(self) -> dict[int | None, Intervals]:
        """When each device runs any kernel, copy or set (the union over its streams)."""
        return {device: self._derived.busy(device) for device in self.devices}

    @cached_property
    def busy_all_devices(self) -> Intervals:
        """When any device runs work."""
        return Intervals.union_all(list(self.busy_by_device.values()))

    @cached_property
    def gpu_idle(self) -> GpuIdle | None:
        """Why each stream idles (host wait, kernel wait, other), whole and per step;
        kept in the trace's cache entry (seconds on a big trace)."""
        # Imported here: ops, gaps and kernels need neither split.
        from tui.core.figures.breakdown.idle import GpuIdle, gpu_idle

        return kept_figure(
            self.trace,
            "gpu_idle",
            ("figures/breakdown/idle.py", *STEPS_ROOTS),
            GpuIdle | None,
            lambda: gpu_idle(self.trace, self.steps),
        )

    @cached_property
    def step_breakdown(self) -> StepBreakdown | None:
        """TensorBoard's step split (None without a step or a CPU operator); kept
        in the trace's cache entry as `gpu_idle`."""
        from tui.core.figures.step_split import StepBreakdown, step_breakdown

        return kept_figure(
            self.trace,
            "step_breakdown",
            ("figures/step_split.py", *STEPS_ROOTS),
            StepBreakdown | None,
            lambda: step_breakdown(self.trace, self.steps),
        )

    def device_busy_ns(
        self,
        start_ns: int | None = None,
        end_ns: int | None = None,
        device: int | None = None,
    ) -> int | None:
        """Union of device work inside [start, end) on one device (all when None); None if not observed."""
        if not self.trace.gpu_observed:
            return None
        busy = (
            self.busy_all_devices
            if device is None
            else self.busy_by_device.get(device, Intervals.empty())
        )
        lower = 0 if start_ns is None else start_ns
        upper = (busy.last_ns or 0) if end_ns is None else end_ns
        return busy.covered_ns(lower, upper)

    # -- the data zone and its gaps ----------------------------------------------

    @cached_property
    def zone_candidate_mask(self) -> BoolArray:
        """Events that could be a data zone."""
        return zone_event_mask(self.trace, self.on_cpu)

    @cached_property
    def zone_names_present(self) -> frozenset[str]:
        """Zone choice names (DataLoader ranges as one group) that occur in the
        trace; kept in the trace's cache entry (every command's zone needs them)."""
        trace = self.trace

        def compute() -> frozenset[str]:
            counts = np.bincount(
                trace.name_id[self.zone_candidate_mask], minlength=len(trace.names)
            )
            present = np.flatnonzero(counts)
            loader = np.isin(present, trace.name_ids_starting(DATALOADER_PREFIX))
            plain = frozenset(map(trace.names.__getitem__, present[~loader].tolist()))
            return plain | {DATALOADER_GROUP} if loader.any() else plain

        return kept_figure(
            trace, "zone_names_present", ZONE_NAMES_ROOTS, frozenset[str], compute
        )

    @cached_property
    def zone_choice(self) -> ZoneChoice:
        """The data zone in use: the one asked for, else the default one, else
        the user's annotation proposed as one (`zone_proposal.py`)."""
        if self._requested is not None:
            return self._requested
        choice = default_zone_choice(self.trace, self.zone_names_present)
        if choice.source is not ZoneSource.NONE:
            return choice
        work = traced_work(self.trace, self.on_cpu, self.busy_all_devices)
        proposed = proposed_zone(
            self.trace, self.zone_candidate_mask, self.window_steps, work
        )
        if proposed is None:
            return choice
        return ZoneChoice((proposed,), ZoneSource.PROPOSED)

    def zone_candidates(self) -> list[ZoneCandidate]:
        """Ranges that can be the data zone, with calls and total time."""
        return zone_candidates(self.trace, self.zone_candidate_mask, self.zone_choice)

    def missing_zone_names(self) -> list[str]:
        """Names of the chosen zone that occur nowhere in the trace."""
        present = self.zone_names_present
        return [name for name in self.zone_choice.names if name not in present]

    @cached_property
    def zone_reading(self) -> ZoneReading:
        """The zone, its gaps per device (or untraced time) and per-step figures;
        kept in the trace's cache entry, one per zone choice."""
        trace, choice = self.trace, self.zone_choice
        return kept_value(
            trace,
            zone_reading_name(choice),
            ZONE_READING_ROOTS,
            lambda: read_zone(
                trace,
                choice,
                self.zone_candidate_mask,
                self.steps,
                self.busy_by_device,
                lambda: self.parent,
            ),
            zone_reading_bytes,
            partial(zone_reading_from, trace, choice),
        )

    @property
    def gaps(self) -> list[Gap]:
        """Gaps inside the data zone, in time order."""
        return self.zone_reading.gaps

    @property
    def gap_kind(self) -> GapKind:
        """GPU idle, or untraced time when no GPU work was observed."""
        return self.zone_reading.kind

    @property
    def total_zone_ns(self) -> int:
        """Time in the data zone: the union over threads."""
        return self.zone_reading.total_zone_ns

    @property
    def total_gap_ns(self) -> int:
        """Time in the data zone when some device idles (or no traced operator runs)."""
        return self.zone_reading.total_gap_ns
