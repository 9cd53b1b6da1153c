"""The syncs as people read them: per kind, per cause, per step, the costliest.

Sums over `SyncColumns` (`syncs.py` finds and measures each sync); times are
the columns' own (blocked host time, device idle after), never re-measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import SyncKind
from tui.core.figures.analysis import Analysis
from tui.core.figures.syncs import (
    READS_DEVICE_VALUES,
    SYNC_KINDS,
    SyncColumns,
    ancestors_of,
)
from tui.core.model.masks import names_in
from tui.core.model.steps import Step
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class SyncTotals:
    """Syncs of one kind, one cause or one step: how many, the host time blocked,
    the device idle after them, and how many had device work after them (the
    others count no idle)."""

    count: int
    blocked_ns: int
    idle_after_ns: int
    followed: int = 0

    @property
    def cost_ns(self) -> int:
        """Blocked plus idle after."""
        return self.blocked_ns + self.idle_after_ns


def _totals(columns: SyncColumns, key: Int64Array, keys: int) -> list[SyncTotals]:
    """Totals per key in `[0, keys)` (-1: counted in none), all keys at once."""
    kept = key >= 0
    count = np.bincount(key[kept], minlength=keys)
    blocked = np.bincount(key[kept], weights=columns.blocked_ns[kept], minlength=keys)
    idle = np.bincount(
        key[kept], weights=np.maximum(columns.idle_after_ns[kept], 0), minlength=keys
    )
    followed = np.bincount(
        key[kept], weights=columns.idle_after_ns[kept] >= 0, minlength=keys
    )
    return [
        SyncTotals(int(count[i]), int(blocked[i]), int(idle[i]), int(followed[i]))
        for i in range(keys)
    ]


@dataclass(frozen=True)
class CauseTotals:
    """The syncs one operator caused (`name` None: no operator encloses them)."""

    name: str | None
    reading: str | None
    path: tuple[str, ...]
    totals: SyncTotals
    kinds: tuple[SyncKind, ...]


@dataclass(frozen=True)
class ValueReads:
    """An operator that reads device values: its calls, and how many enclosed a sync."""

    name: str
    calls: int
    waited: int


@dataclass(frozen=True)
class SyncReading:
    """A capture's syncs: columns, totals per kind, cause and step, the costliest.

    `top` holds positions in `columns`, costliest (blocked + idle after) first;
    `window` the steps findings weigh (`Analysis.window_steps`), `in_window`
    per sync whether one of them holds it.
    """

    trace: Trace
    columns: SyncColumns
    total: SyncTotals
    by_kind: dict[SyncKind, SyncTotals]
    by_cause: list[CauseTotals]
    steps: list[Step]
    step_totals: list[SyncTotals]
    window: list[Step]
    in_window: BoolArray
    top: Int64Array
    reads: list[ValueReads]

    @classmethod
    def of(cls, analysis: Analysis) -> SyncReading:
        """The syncs of an analysed trace, read once per analysis (`Analysis.memo`)."""
        return analysis.memo(sync_reading)

    def device_idle_after_by_step(self) -> list[int]:
        """Per step of `steps`, what its syncs cost the device: per device, the
        union of each sync's `[end, end + idle after)` (syncs of several
        threads idling the device at once count it once), over the devices."""
        return _idle_union(self.columns, self.columns.step, len(self.steps))

    @property
    def device_idle_after_ns_per_step(self) -> float:
        """The device idle after the window's syncs, per window step (the whole
        capture as one step without steps)."""
        if not self.window:
            whole = np.zeros(len(self.columns), dtype=np.int64)
            return float(_idle_union(self.columns, whole, 1)[0])
        by_step = self.device_idle_after_by_step()
        kept = {step.event for step in self.window}
        chosen = [
            idle
            for idle, step in zip(by_step, self.steps, strict=True)
            if step.event in kept
        ]
        return sum(chosen) / len(self.window)


def sync_reading(analysis: Analysis) -> SyncReading:
    """Read the syncs of an analysed trace."""
    trace = analysis.trace
    columns = SyncColumns.of(analysis)
    steps = analysis.steps
    window = analysis.window_steps
    by_kind = _totals(columns, columns.kind, len(SYNC_KINDS))
    kept = {step.event for step in window}
    in_window = np.isin(
        columns.step,
        np.array(
            [i for i, step in enumerate(steps) if step.event in kept] or [-2],
            dtype=np.int64,
        ),
    )
    cost = columns.cost_ns
    return SyncReading(
        trace=trace,
        columns=columns,
        total=_totals(columns, np.zeros(len(columns), dtype=np.int64), 1)[0],
        by_kind={
            kind: totals
            for kind, totals in zip(SYNC_KINDS, by_kind, strict=True)
            if totals.count
        },
        by_cause=_by_cause(trace, columns),
        steps=steps,
        step_totals=_totals(columns, columns.step, len(steps)),
        window=window,
        in_window=in_window,
        top=np.lexsort((columns.start_ns, -cost)).astype(np.int64),
        reads=_value_reads(analysis, columns),
    )


def _idle_union(columns: SyncColumns, key: Int64Array, keys: int) -> list[int]:
    """Per key in `[0, keys)`, the union over each device of its syncs' idle
    after, summed over the devices (-1 keys: counted in none)."""
    idle = columns.idle_after_ns
    counted = (key >= 0) & (idle > 0)
    totals = [0] * keys
    pairs = {
        (int(k), int(d))
        for k, d in zip(
            key[counted].tolist(), columns.device[counted].tolist(), strict=True
        )
    }
    for index, device in sorted(pairs):
        mine = counted & (key == index) & (columns.device == device)
        ends = columns.end_ns[mine]
        totals[index] += Intervals.union_of(ends, ends + idle[mine]).total_ns
    return totals


def _by_cause(trace: Trace, columns: SyncColumns) -> list[CauseTotals]:
    """Totals per causing operator's name, costliest first; each with the path
    and reading operator of its costliest sync and the kinds it waited on."""
    names = [
        None if event < 0 else trace.event_name(event)
        for event in columns.cause.tolist()
    ]
    groups: dict[str | None, int] = {}
    key = np.array(
        [groups.setdefault(name, len(groups)) for name in names], dtype=np.int64
    )
    totals = _totals(columns, key, len(groups))
    cost = columns.cost_ns
    rows = []
    for name, index in groups.items():
        members = np.flatnonzero(key == index)
        first = int(members[np.argmax(cost[members])])
        reading = int(columns.reading[first])
        path = int(columns.path[first])
        kinds = sorted(set(columns.kind[members].tolist()))
        rows.append(
            CauseTotals(
                name=name,
                reading=None if reading < 0 else trace.event_name(reading),
                path=columns.paths[path] if path >= 0 else (),
                totals=totals[index],
                kinds=tuple(SYNC_KINDS[k] for k in kinds),
            )
        )
    rows.sort(key=lambda row: (-row.totals.cost_ns, -row.totals.count, row.name or ""))
    return rows


def _value_reads(analysis: Analysis, columns: SyncColumns) -> list[ValueReads]:
    """Each value-reading operator on CPU threads: calls, and calls enclosing a sync
    (the rest ran on host tensors, or the runtime calls were not recorded)."""
    trace = analysis.trace
    ids = trace.name_ids_matching(set(READS_DEVICE_VALUES))
    if ids.size == 0:
        return []
    calls = np.flatnonzero(names_in(trace, ids) & analysis.on_cpu)
    enclosing = ancestors_of(analysis.parent, columns.events)
    waited = np.zeros(trace.event_count, dtype=bool)
    waited[enclosing[enclosing >= 0]] = True
    names = np.array(trace.names, dtype=object)[trace.name_id[calls]]
    rows = []
    for name in sorted(set(names.tolist())):
        mine = calls[names == name]
        rows.append(ValueReads(name, int(mine.size), int(waited[mine].sum())))
    rows.sort(key=lambda row: (-row.waited, -row.calls, row.name))
    return rows
