"""The GPU breakdown of a capture: temporal, kernel types, communication overlap, idle by cause.

The figures follow HolisticTraceAnalysis 0.5.0 (`get_temporal_breakdown`,
`get_gpu_kernel_breakdown`, `get_comm_comp_overlap`,
`get_idle_time_breakdown` with `include_last_profiler_step=True`), read from
the rows `breakdown_rows` chooses under HTA's rules or steptrace's:

- temporal: span = last device-op end − first device-op start; idle = span −
  the union of all device ops; compute = the union of computation ops;
  non-compute = span − compute − idle;
- kernel types: time split by the exact set of classes running, so that
  "COMPUTATION overlapping COMMUNICATION" and the rest add up to the union;
- overlap: the share of communication time during which computation runs;
- idle by cause, per stream: each gap before an op is host wait when its
  launching call started after the gap began, else kernel wait under 30 µs,
  else other.

Every time is a set of `Intervals`, built once; per-step figures are the
same sets read inside each step's window (`Intervals.covered_in`), with the
step's window as the span.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.intervals import Intervals
from tui.core.base.units import us
from tui.core.base.vocab import BreakdownRules, IdleCause, KernelType
from tui.core.figures.breakdown.rows import NO_LAUNCH, DeviceRows
from tui.core.figures.kernel_types import TABLE_TYPES, TYPE_CODE, combined_label

Int64Array = npt.NDArray[np.int64]

# HTA's consecutive_kernel_delay: a shorter gap between two ops is kernel wait.
KERNEL_WAIT_NS = 30_000
_CAUSES = (IdleCause.HOST_WAIT, IdleCause.KERNEL_WAIT, IdleCause.OTHER)


@dataclass(frozen=True)
class KernelTypeTime:
    """Time when exactly this set of classes runs, and its share of the classed time."""

    label: str
    ns: int
    pct: float


@dataclass(frozen=True)
class StreamIdle:
    """Idle time of one stream for one cause."""

    stream: int | str
    cause: IdleCause
    ns: int


@dataclass(frozen=True)
class Breakdown:
    """A device's time split into compute, non-compute and idle, by kernel type and idle cause."""

    span_ns: int
    idle_ns: int
    compute_ns: int
    non_compute_ns: int
    comm_comp_overlap_pct: float | None
    kernel_types: tuple[KernelTypeTime, ...]
    idle_by_cause: tuple[StreamIdle, ...]

    def to_json(self) -> dict[str, Any]:
        """The documented JSON (µs floats, percentages unrounded)."""
        return {
            "span_us": us(self.span_ns),
            "idle_us": us(self.idle_ns),
            "compute_us": us(self.compute_ns),
            "non_compute_us": us(self.non_compute_ns),
            "comm_comp_overlap_pct": self.comm_comp_overlap_pct,
            "kernel_types": [
                {"type": part.label, "us": us(part.ns), "pct": part.pct}
                for part in self.kernel_types
            ],
            "idle_by_cause": [
                {"stream": part.stream, "cause": part.cause.value, "us": us(part.ns)}
                for part in self.idle_by_cause
            ],
        }

    def to_record(self) -> dict[str, Any]:
        """An exact, JSON-serialisable form (integer ns) that `from_record` reads back."""
        return {
            "span_ns": self.span_ns,
            "idle_ns": self.idle_ns,
            "compute_ns": self.compute_ns,
            "non_compute_ns": self.non_compute_ns,
            "comm_comp_overlap_pct": self.comm_comp_overlap_pct,
            "kernel_types": [
                [part.label, part.ns, part.pct] for part in self.kernel_types
            ],
            "idle_by_cause": [
                [part.stream, part.cause.value, part.ns] for part in self.idle_by_cause
            ],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Breakdown:
        """Read back `to_record`."""
        return cls(
            int(record["span_ns"]),
            int(record["idle_ns"]),
            int(record["compute_ns"]),
            int(record["non_compute_ns"]),
            record["comm_comp_overlap_pct"],
            tuple(
                KernelTypeTime(str(label), int(ns), float(pct))
                for label, ns, pct in record["kernel_types"]
            ),
            tuple(
                StreamIdle(stream, IdleCause(cause), int(ns))
                for stream, cause, ns in record["idle_by_cause"]
            ),
        )

    @property
    def busy_ns(self) -> int:
        """Time when some device op runs."""
        return self.span_ns - self.idle_ns

    def idle_cause_ns(self, cause: IdleCause) -> int:
        """One cause's idle time summed over streams (streams idle at once each count)."""
        return sum(part.ns for part in self.idle_by_cause if part.cause is cause)


@dataclass(frozen=True)
class DeviceTimeSets:
    """The interval sets every figure reads, built once per rank and rules."""

    rules: BreakdownRules
    first_ns: int
    last_ns: int
    busy: Intervals
    compute: Intervals
    communication: Intervals
    comm_and_comp: Intervals
    combos: tuple[tuple[str, Intervals], ...]
    whole_idle: tuple[StreamIdle, ...]
    gaps: tuple[tuple[int | str, IdleCause, Intervals], ...]

    @classmethod
    def of(cls, rows: DeviceRows) -> DeviceTimeSets | None:
        """The sets of some device rows; None without any row."""
        if len(rows) == 0:
            return None
        by_type = {
            kernel_type: _union(rows, rows.type_code == TYPE_CODE[kernel_type])
            for kernel_type in TABLE_TYPES
        }
        compute = by_type[KernelType.COMPUTATION]
        communication = by_type[KernelType.COMMUNICATION]
        whole_idle, gaps = idle_by_cause(rows)
        return cls(
            rows.rules,
            int(rows.start_ns.min()),
            int(rows.end_ns.max()),
            _union(rows, np.ones(len(rows), dtype=bool)),
            compute,
            communication,
            compute.intersect(communication),
            _combos(by_type),
            whole_idle,
            gaps,
        )

    def whole(self) -> Breakdown:
        """The figures over the whole capture (HTA's span: first op start to last op end)."""
        span = max(self.last_ns - self.first_ns, 0)
        busy = self.busy.total_ns
        compute = self.compute.total_ns
        parts = [(label, intervals.total_ns) for label, intervals in self.combos]
        return Breakdown(
            span,
            span - busy,
            compute,
            busy - compute,
            _share(self.comm_and_comp.total_ns, self.communication.total_ns),
            _kernel_types(parts),
            self.whole_idle,
        )

    def windows(self, starts: Sequence[int], ends: Sequence[int]) -> list[Breakdown]:
        """The same figures inside each window [starts[i], ends[i]), whose length is the span."""
        window_starts = np.asarray(starts, dtype=np.int64)
        window_ends = np.asarray(ends, dtype=np.int64)
        spans = np.maximum(window_ends - window_starts, 0)
        busy = self.busy.covered_in(window_starts, window_ends)
        compute = self.compute.covered_in(window_starts, window_ends)
        communication = self.communication.covered_in(window_starts, window_ends)
        both = self.comm_and_comp.covered_in(window_starts, window_ends)
        combos = [
            (label, intervals.covered_in(window_starts, window_ends))
            for label, intervals in self.combos
        ]
        idle = idle_in_windows(self.gaps, window_starts, window_ends)
        result = []
        for index in range(window_starts.size):
            result.append(
                Breakdown(
                    int(spans[index]),
                    int(spans[index] - busy[index]),
                    int(compute[index]),
                    int(busy[index] - compute[index]),
                    _share(int(both[index]), int(communication[index])),
                    _kernel_types([(label, int(ns[index])) for label, ns in combos]),
                    idle[index],
                )
            )
        return result


def _union(rows: DeviceRows, mask: npt.NDArray[np.bool_]) -> Intervals:
    return Intervals.union_of(rows.start_ns[mask], rows.end_ns[mask])


def _combos(by_type: dict[KernelType, Intervals]) -> tuple[tuple[str, Intervals], ...]:
    """Each non-empty set of classes and the time when exactly those classes run."""
    combos = []
    for size in (1, 2, 3):
        for members in itertools.combinations(TABLE_TYPES, size):
            inside = by_type[members[0]]
            for member in members[1:]:
                inside = inside.intersect(by_type[member])
            others = [by_type[other] for other in TABLE_TYPES if other not in members]
            exact = inside.subtract(Intervals.union_all(others))
            combos.append((combined_label(members), exact))
    return tuple(combos)


def _kernel_types(parts: list[tuple[str, int]]) -> tuple[KernelTypeTime, ...]:
    """HTA's kernel type rows: labels with time, largest first, as a share of their sum."""
    total = sum(ns for _, ns in parts)
    kept = sorted(
        ((label, ns) for label, ns in parts if ns > 0), key=lambda part: -part[1]
    )
    return tuple(KernelTypeTime(label, ns, 100.0 * ns / total) for label, ns in kept)


def _share(part_ns: int, whole_ns: int) -> float | None:
    return 100.0 * part_ns / whole_ns if whole_ns > 0 else None


def idle_by_cause(
    rows: DeviceRows,
) -> tuple[tuple[StreamIdle, ...], tuple[tuple[int | str, IdleCause, Intervals], ...]]:
    """Whole-capture idle per (stream, cause), and each cause's gaps as intervals.

    HTA's rules: gaps between consecutive rows of a stream (the previous
    row's end, so overlapping rows give negative idle, as HTA counts it);
    the first row of a stream adds nothing to `other`. steptrace's rules:
    the gaps of the stream's union, never negative.
    """
    idle = np.flatnonzero(rows.idle_rows)
    whole: list[StreamIdle] = []
    gaps: list[tuple[int | str, IdleCause, Intervals]] = []
    for stream_index in distinct(rows.stream[idle]).tolist():
        members = idle[rows.stream[idle] == stream_index]
        starts = rows.start_ns[members]
        ends = rows.end_ns[members]
        launches = rows.launch_ns[members]
        if rows.rules is BreakdownRules.STEPTRACE:
            union = Intervals.union_of(starts, ends)
            gap_starts, gap_ends = union.ends[:-1], union.starts[1:]
            after = np.searchsorted(starts, gap_ends, side="left")
            launch_after = launches[np.minimum(after, max(starts.size - 1, 0))]
        else:
            gap_starts, gap_ends = ends[:-1], starts[1:]
            launch_after = launches[1:]
        length = gap_ends - gap_starts
        cause = np.where(
            (launch_after != NO_LAUNCH) & (launch_after > gap_starts),
            0,
            np.where(length < KERNEL_WAIT_NS, 1, 2),
        )
        stream = rows.streams[stream_index]
        for code, name in enumerate(_CAUSES):
            chosen = cause == code
            present = bool(chosen.any()) or name is IdleCause.OTHER
            if present:
                whole.append(StreamIdle(stream, name, int(length[chosen].sum())))
            positive = chosen & (length > 0)
            if positive.any():
                gaps.append(
                    (
                        stream,
                        name,
                        Intervals.union_of(gap_starts[positive], gap_ends[positive]),
                    )
                )
    return tuple(whole), tuple(gaps)


def idle_in_windows(
    gaps: Sequence[tuple[int | str, IdleCause, Intervals]],
    starts: Sequence[int] | Int64Array,
    ends: Sequence[int] | Int64Array,
) -> list[tuple[StreamIdle, ...]]:
    """Each window's part of every (stream, cause) gap set, the parts that are not empty.

    A gap across a window's edge is cut there: each step holds its own part
    of it, with the cause of the whole gap.
    """
    covered = [
        (stream, cause, intervals.covered_in(starts, ends))
        for stream, cause, intervals in gaps
    ]
    return [
        tuple(
            StreamIdle(stream, cause, int(ns[index]))
            for stream, cause, ns in covered
            if ns[index] > 0
        )
        for index in range(len(starts))
    ]


def breakdowns(
    rows: DeviceRows, windows: Sequence[tuple[int, int]] = ()
) -> tuple[Breakdown | None, list[Breakdown | None]]:
    """The whole-capture breakdown and one per window; None everywhere without device rows."""
    sets = DeviceTimeSets.of(rows)
    if sets is None:
        return None, [None] * len(windows)
    per_window: list[Breakdown | None] = list(
        sets.windows([start for start, _ in windows], [end for _, end in windows])
    )
    return sets.whole(), per_window
