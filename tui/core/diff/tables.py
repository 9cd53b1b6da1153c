"""Operators and kernels of two captures, aligned row by row on one list of names.

Each side keeps its own columns (an `OpTable`, kernel totals); a name absent
on one side reads 0 calls and 0 time there, while a GPU column of a side with
no GPU events stays None — never 0 against a measured value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.vocab import OpPresence, SortKey, TimeDevice
from tui.core.figures.kernels import KernelTable
from tui.core.figures.optable import OpTable
from tui.core.figures.shapes import ShapeOpTable
from tui.core.model.nesting import sum_by_index

Int64Array = npt.NDArray[np.int64]


def union_names(before: list[str], after: list[str]) -> list[str]:
    """Names of both sides: before's order, then the names only after has."""
    return list(dict.fromkeys([*before, *after]))


def _rows_of(names: list[str], side_names: list[str]) -> Int64Array:
    """For each of `names`, its row on one side (-1 where absent)."""
    rows = {name: row for row, name in enumerate(side_names)}
    return np.array([rows.get(name, -1) for name in names], dtype=np.int64)


def _aligned(values: Int64Array | None, take: Int64Array) -> Int64Array | None:
    """A column re-indexed by `take` (0 where a name is absent); None stays None."""
    if values is None:
        return None
    if values.size == 0:
        return np.zeros(take.size, dtype=np.int64)
    return np.where(take >= 0, values[np.maximum(take, 0)], 0).astype(np.int64)


def _presence(names: list[str], before: set[str], after: set[str]) -> list[OpPresence]:
    return [
        OpPresence.BOTH
        if name in before and name in after
        else OpPresence.REMOVED
        if name in before
        else OpPresence.ADDED
        for name in names
    ]


def _by_name(table: OpTable) -> OpTable:
    """A table keyed by name only (a shape table's rows of one name summed)."""
    if not isinstance(table, ShapeOpTable):
        return table
    names = list(dict.fromkeys(table.names))
    rows = {name: index for index, name in enumerate(names)}
    group = np.array([rows[name] for name in table.names], dtype=np.int64)

    def summed(values: Int64Array) -> Int64Array:
        return sum_by_index(len(names), group, values)

    return OpTable(
        names,
        summed(table.calls),
        summed(table.self_cpu_ns),
        summed(table.total_cpu_ns),
        None if table.self_gpu_ns is None else summed(table.self_gpu_ns),
        None if table.total_gpu_ns is None else summed(table.total_gpu_ns),
    )


def _order_by_change(names: list[str], delta: Int64Array) -> Int64Array:
    """Rows by largest absolute change first; ties in name order."""
    by_name = np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)
    return by_name[np.argsort(-np.abs(delta[by_name]), kind="stable")]


def _row_keys(table: OpTable) -> list[str]:
    """What matches a row across sides: its name, or its name and input shapes."""
    if isinstance(table, ShapeOpTable):
        return [
            f"{name}\x00{table.shapes_text(row)}"
            for row, name in enumerate(table.names)
        ]
    return list(table.names)


@dataclass(frozen=True)
class OpsDiff:
    """The operator tables of both sides on one list of rows (torch's key_averages() rows).

    Rows are operator names, or (name, input shapes) when both tables are
    `ShapeOpTable`s; `input_shapes` is then each row's shapes, else None.
    """

    names: list[str]
    presence: list[OpPresence]
    before: OpTable
    after: OpTable
    input_shapes: list[list[list[int]]] | None = None

    @property
    def by_shape(self) -> bool:
        """Whether rows are matched by name and input shapes."""
        return self.input_shapes is not None

    @classmethod
    def of(cls, before: OpTable, after: OpTable) -> OpsDiff:
        """Align two operator tables by name (by name and shapes when both have them)."""
        by_shape = isinstance(before, ShapeOpTable) and isinstance(after, ShapeOpTable)
        if not by_shape:
            before, after = _by_name(before), _by_name(after)
        keys_before, keys_after = _row_keys(before), _row_keys(after)
        keys = union_names(keys_before, keys_after)
        name_of = dict(zip(keys_before, before.names, strict=True))
        name_of.update(zip(keys_after, after.names, strict=True))
        names = [name_of[key] for key in keys]
        input_shapes = None
        if isinstance(before, ShapeOpTable) and isinstance(after, ShapeOpTable):
            shapes_of = dict(zip(keys_before, before.input_shapes, strict=True))
            shapes_of.update(zip(keys_after, after.input_shapes, strict=True))
            input_shapes = [shapes_of[key] for key in keys]

        def aligned(table: OpTable, table_keys: list[str]) -> OpTable:
            take = _rows_of(keys, table_keys)
            calls = _aligned(table.calls, take)
            self_cpu = _aligned(table.self_cpu_ns, take)
            total_cpu = _aligned(table.total_cpu_ns, take)
            assert calls is not None and self_cpu is not None and total_cpu is not None
            return OpTable(
                list(names),
                calls,
                self_cpu,
                total_cpu,
                _aligned(table.self_gpu_ns, take),
                _aligned(table.total_gpu_ns, take),
            )

        return cls(
            names,
            _presence(keys, set(keys_before), set(keys_after)),
            aligned(before, keys_before),
            aligned(after, keys_after),
            input_shapes,
        )

    def __len__(self) -> int:
        return len(self.names)

    @property
    def gpu_on_both(self) -> bool:
        """Whether both sides observed GPU work, so GPU columns can be compared."""
        return (
            self.before.self_gpu_ns is not None and self.after.self_gpu_ns is not None
        )

    def device_for(self, device: TimeDevice | str | None) -> TimeDevice:
        """The clock a comparison reads: GPU only when both sides observed it."""
        wanted = TimeDevice(device) if device else TimeDevice.GPU
        return (
            wanted if wanted is TimeDevice.CPU or self.gpu_on_both else TimeDevice.CPU
        )

    def delta(self, sort: SortKey | str, device: TimeDevice | str | None) -> Int64Array:
        """After minus before in the column a sort key reads (calls, or self/total time)."""
        key = SortKey(sort)
        if key is SortKey.NAME:
            key = SortKey.SELF
        clock = self.device_for(device)
        return self.after.column(key, clock) - self.before.column(key, clock)

    def order(
        self, sort: SortKey | str = SortKey.SELF, device: TimeDevice | str | None = None
    ) -> Int64Array:
        """Rows by largest absolute change in the chosen column (or by name)."""
        if SortKey(sort) is SortKey.NAME:
            return np.array(
                sorted(range(len(self.names)), key=self.names.__getitem__),
                dtype=np.int64,
            )
        return _order_by_change(self.names, self.delta(sort, device))


@dataclass(frozen=True)
class KernelTotals:
    """Per kernel name: count and total time; the summary a diff needs of a kernel table."""

    names: list[str]
    count: Int64Array
    total_ns: Int64Array

    @classmethod
    def of(cls, table: KernelTable) -> KernelTotals:
        """Keep a kernel table's counts and totals (not its per-event lists)."""
        return cls(list(table.names), table.count.copy(), table.total_ns.copy())


@dataclass(frozen=True)
class KernelsDiff:
    """Kernels of both sides on one list of names; a side without GPU events reads None."""

    names: list[str]
    presence: list[OpPresence]
    count_before: Int64Array | None
    count_after: Int64Array | None
    total_before_ns: Int64Array | None
    total_after_ns: Int64Array | None

    @classmethod
    def of(cls, before: KernelTotals | None, after: KernelTotals | None) -> KernelsDiff:
        """Align two sides' kernel totals by name (None: the side observed no GPU work)."""
        names = union_names(
            before.names if before else [], after.names if after else []
        )

        def columns(
            side: KernelTotals | None,
        ) -> tuple[Int64Array | None, Int64Array | None]:
            if side is None:
                return None, None
            take = _rows_of(names, side.names)
            return _aligned(side.count, take), _aligned(side.total_ns, take)

        count_before, total_before = columns(before)
        count_after, total_after = columns(after)
        return cls(
            names,
            _presence(
                names,
                set(before.names if before else ()),
                set(after.names if after else ()),
            ),
            count_before,
            count_after,
            total_before,
            total_after,
        )

    def __len__(self) -> int:
        return len(self.names)

    def order(self) -> Int64Array:
        """Rows by largest absolute change of total time (a side not observed counts 0)."""
        zeros = np.zeros(len(self.names), dtype=np.int64)
        before = self.total_before_ns if self.total_before_ns is not None else zeros
        after = self.total_after_ns if self.total_after_ns is not None else zeros
        return _order_by_change(self.names, after - before)
