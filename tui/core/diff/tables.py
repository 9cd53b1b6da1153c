"""Operators and kernels of two captures, aligned row by row on one list of names.

Each side keeps its own columns (an `OpTable`, kernel totals); a name absent
on one side reads 0 calls and 0 time there, while a GPU column of a side with
no GPU events stays None — never 0 against a measured value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from tui.core.base.vocab import OpPresence, SortKey, TimeDevice
from tui.core.diff.families import kernel_family
from tui.core.figures.kernels import KernelTable
from tui.core.figures.optable import OpTable
from tui.core.figures.shapes import ShapeOpTable
from tui.core.model.nesting import sum_by_index

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
# Prefix of a match key that is a kernel family, not a name (never in a name).
FAMILY_KEY = "\x00family\x00"


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
    kept_before: OpTable | None = None
    """Each row's figures summed over the before side's kept steps (rows by name only)."""
    kept_after: OpTable | None = None
    kept_steps: tuple[int, int] = (0, 0)

    @property
    def per_step(self) -> bool:
        """Whether both sides have kept steps, so rows compare (and sort) per step."""
        return (
            self.kept_before is not None
            and self.kept_after is not None
            and min(self.kept_steps) > 0
        )

    def per_step_column(
        self, side: str, key: SortKey | str, device: TimeDevice | str
    ) -> FloatArray | None:
        """A column as a mean per kept step of one side (None: no kept step, or a
        GPU column that side did not observe)."""
        table = self.kept_before if side == "before" else self.kept_after
        steps = self.kept_steps[0 if side == "before" else 1]
        if table is None or steps <= 0:
            return None
        clock = TimeDevice(device)
        if clock is TimeDevice.GPU and table.self_gpu_ns is None:
            return None
        return table.column(key, clock).astype(np.float64) / steps

    @property
    def by_shape(self) -> bool:
        """Whether rows are matched by name and input shapes."""
        return self.input_shapes is not None

    @classmethod
    def of(
        cls,
        before: OpTable,
        after: OpTable,
        kept_before: OpTable | None = None,
        kept_after: OpTable | None = None,
        kept_steps: tuple[int, int] = (0, 0),
    ) -> OpsDiff:
        """Align two operator tables by name (by name and shapes when both have them);
        `kept_*` are tables by name summed over `kept_steps` steps of each side."""
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

        kept = [
            None
            if table is None or input_shapes is not None
            else aligned(_by_name(table), list(_by_name(table).names))
            for table in (kept_before, kept_after)
        ]
        return cls(
            names,
            _presence(keys, set(keys_before), set(keys_after)),
            aligned(before, keys_before),
            aligned(after, keys_after),
            input_shapes,
            kept[0],
            kept[1],
            kept_steps,
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

    def order_per_step(
        self, sort: SortKey | str = SortKey.SELF, device: TimeDevice | str | None = None
    ) -> Int64Array:
        """Rows by largest absolute change per kept step (the whole-trace order when a
        side has no kept step, or rows are matched by shape)."""
        key = SortKey(sort)
        if key is SortKey.NAME or not self.per_step:
            return self.order(sort, device)
        clock = self.device_for(device)
        first = self.per_step_column("before", key, clock)
        second = self.per_step_column("after", key, clock)
        if first is None or second is None:
            return self.order(sort, device)
        # Compared in hundredths of the column's unit, so 2 calls against 2.004 tie.
        delta = np.rint((second - first) * 100).astype(np.int64)
        return _order_by_change(self.names, delta)


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


def _per_step(values: Int64Array | None, steps: int) -> FloatArray | None:
    """Sums over the kept steps as a mean per kept step (None without steps)."""
    if values is None or steps <= 0:
        return None
    return values.astype(np.float64) / steps


def _kernel_keys(before: list[str], after: list[str]) -> dict[str, str]:
    """What matches a kernel across sides: its name when both sides hold it, else its
    family when a name of that family is unmatched on each side (else its name)."""
    shared = set(before) & set(after)
    families = {
        side: {kernel_family(name) for name in names if name not in shared}
        for side, names in (("before", before), ("after", after))
    }
    both = families["before"] & families["after"]
    keys = {}
    for name in (*before, *after):
        family = kernel_family(name)
        keys[name] = (
            FAMILY_KEY + family if name not in shared and family in both else name
        )
    return keys


def _grouped(
    totals: KernelTotals | None, keys: dict[str, str]
) -> tuple[KernelTotals | None, dict[str, list[str]]]:
    """A side's kernel totals summed by match key, and the names behind each key."""
    if totals is None:
        return None, {}
    order = list(dict.fromkeys(keys[name] for name in totals.names))
    rows = {key: index for index, key in enumerate(order)}
    group = np.array([rows[keys[name]] for name in totals.names], dtype=np.int64)
    names: dict[str, list[str]] = {}
    for name in totals.names:
        names.setdefault(keys[name], []).append(name)
    return (
        KernelTotals(
            order,
            sum_by_index(len(order), group, totals.count),
            sum_by_index(len(order), group, totals.total_ns),
        ),
        names,
    )


@dataclass(frozen=True)
class KernelsDiff:
    """Kernels of both sides on one list of rows; a side without GPU events reads None.

    A row matches by name, or by family (`matched_by`) when names differ only
    by what the architecture chose (`volta_sgemm_128x32_nt` against
    `ampere_sgemm_128x64_nn`); `names_before`/`names_after` say which names a
    row holds. The per-step columns are means over each side's kept steps.
    """

    names: list[str]
    presence: list[OpPresence]
    count_before: Int64Array | None
    count_after: Int64Array | None
    total_before_ns: Int64Array | None
    total_after_ns: Int64Array | None
    matched_by: list[str] = field(default_factory=list)
    names_before: list[list[str]] = field(default_factory=list)
    names_after: list[list[str]] = field(default_factory=list)
    per_step_count_before: FloatArray | None = None
    per_step_count_after: FloatArray | None = None
    per_step_total_before_ns: FloatArray | None = None
    per_step_total_after_ns: FloatArray | None = None

    @classmethod
    def of(
        cls,
        before: KernelTotals | None,
        after: KernelTotals | None,
        before_kept: KernelTotals | None = None,
        after_kept: KernelTotals | None = None,
        kept_steps: tuple[int, int] = (0, 0),
    ) -> KernelsDiff:
        """Align two sides' kernel totals by name, then by family (None: no GPU work);
        `*_kept` are the sums over `kept_steps` steps of each side."""
        keys = _kernel_keys(
            before.names if before else [], after.names if after else []
        )
        before, names_before = _grouped(before, keys)
        after, names_after = _grouped(after, keys)
        before_kept, _ = _grouped(before_kept, keys)
        after_kept, _ = _grouped(after_kept, keys)
        rows = union_names(before.names if before else [], after.names if after else [])

        def columns(
            side: KernelTotals | None,
        ) -> tuple[Int64Array | None, Int64Array | None]:
            if side is None:
                return None, None
            take = _rows_of(rows, side.names)
            return _aligned(side.count, take), _aligned(side.total_ns, take)

        count_before, total_before = columns(before)
        count_after, total_after = columns(after)
        kept_count_before, kept_total_before = columns(before_kept)
        kept_count_after, kept_total_after = columns(after_kept)
        return cls(
            [row.removeprefix(FAMILY_KEY) for row in rows],
            _presence(
                rows,
                set(before.names if before else ()),
                set(after.names if after else ()),
            ),
            count_before,
            count_after,
            total_before,
            total_after,
            ["family" if row.startswith(FAMILY_KEY) else "name" for row in rows],
            [names_before.get(row, []) for row in rows],
            [names_after.get(row, []) for row in rows],
            _per_step(kept_count_before, kept_steps[0]),
            _per_step(kept_count_after, kept_steps[1]),
            _per_step(kept_total_before, kept_steps[0]),
            _per_step(kept_total_after, kept_steps[1]),
        )

    def __len__(self) -> int:
        return len(self.names)

    @property
    def per_step(self) -> bool:
        """Whether both sides hold per-step kernel figures, so rows sort per step."""
        return (
            self.per_step_total_before_ns is not None
            and self.per_step_total_after_ns is not None
        )

    def order(self) -> Int64Array:
        """Rows by largest absolute change of time per kept step (of total time when a
        side has no kept step); a side not observed counts 0."""
        if (
            self.per_step_total_before_ns is not None
            and self.per_step_total_after_ns is not None
        ):
            delta = np.rint(
                self.per_step_total_after_ns - self.per_step_total_before_ns
            ).astype(np.int64)
            return _order_by_change(self.names, delta)
        zeros = np.zeros(len(self.names), dtype=np.int64)
        before = self.total_before_ns if self.total_before_ns is not None else zeros
        after = self.total_after_ns if self.total_after_ns is not None else zeros
        return _order_by_change(self.names, after - before)
