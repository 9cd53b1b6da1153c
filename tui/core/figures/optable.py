"""The operator table: torch's `key_averages()` per name, as columns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.vocab import SortKey, TimeDevice
from tui.core.model.nesting import sum_by_index

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def group_name(name: str) -> str:
    """The operator-table row an event belongs to; steps group as torch does (`ProfilerStep*`)."""
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


@dataclass
class OpTable:
    """Per-name aggregates in the order of `names`; GPU columns are None when not observed."""

    names: list[str]
    calls: Int64Array
    self_cpu_ns: Int64Array
    total_cpu_ns: Int64Array
    self_gpu_ns: Int64Array | None
    total_gpu_ns: Int64Array | None

    def __len__(self) -> int:
        return len(self.names)

    def column(self, sort: SortKey | str, device: TimeDevice | str) -> Int64Array:
        """The time (or calls) column a sort key reads; CPU when GPU is not observed."""
        sort = SortKey(sort)
        if sort is SortKey.CALLS:
            return self.calls
        if (
            TimeDevice(device) is TimeDevice.GPU
            and self.self_gpu_ns is not None
            and self.total_gpu_ns is not None
        ):
            return self.self_gpu_ns if sort is SortKey.SELF else self.total_gpu_ns
        return self.self_cpu_ns if sort is SortKey.SELF else self.total_cpu_ns

    def order(
        self,
        sort: SortKey | str = SortKey.TOTAL,
        device: TimeDevice | str = TimeDevice.CPU,
    ) -> Int64Array:
        """Row order for a sort key on cpu or gpu, largest first; ties in name order."""
        by_name = np.array(
            sorted(range(len(self.names)), key=self.names.__getitem__), dtype=np.int64
        )
        if SortKey(sort) is SortKey.NAME:
            return by_name
        column = self.column(sort, device)
        return by_name[np.argsort(-column[by_name], kind="stable")]

    def row_of(self, name: str) -> int | None:
        """The row of a name, if present."""
        try:
            return self.names.index(name)
        except ValueError:
            return None


def build_op_table(
    names: list[str],
    name_id: npt.NDArray[np.int32],
    events: Int64Array,
    self_cpu: Int64Array,
    total_cpu: Int64Array,
    self_gpu: Int64Array | None,
    total_gpu: Int64Array | None,
) -> OpTable:
    """Aggregate per-event columns of `events` by their group name."""
    group_of_name: dict[str, int] = {}
    name_to_group = np.array(
        [
            group_of_name.setdefault(group_name(name), len(group_of_name))
            for name in names
        ]
        or [0],
        dtype=np.int64,
    )
    groups = name_to_group[name_id[events]] if events.size else np.zeros(0, np.int64)
    size = len(group_of_name)
    counts = np.bincount(groups, minlength=size)
    present = counts > 0

    def per_group(values: Int64Array) -> Int64Array:
        return sum_by_index(size, groups, values[events])[present]

    names_in_order = [""] * size
    for name, group in group_of_name.items():
        names_in_order[group] = name
    return OpTable(
        names=[
            name
            for name, keep in zip(names_in_order, present.tolist(), strict=False)
            if keep
        ],
        calls=counts[present].astype(np.int64),
        self_cpu_ns=per_group(self_cpu),
        total_cpu_ns=per_group(total_cpu),
        self_gpu_ns=per_group(self_gpu) if self_gpu is not None else None,
        total_gpu_ns=per_group(total_gpu) if total_gpu is not None else None,
    )


def op_table_bytes(table: OpTable) -> bytes:
    """The table as MessagePack (a figure kept in the column cache)."""
    import msgspec

    def plain(column: Int64Array | None) -> list[int] | None:
        return None if column is None else column.tolist()

    return msgspec.msgpack.encode(
        [
            table.names,
            table.calls.tolist(),
            table.self_cpu_ns.tolist(),
            table.total_cpu_ns.tolist(),
            plain(table.self_gpu_ns),
            plain(table.total_gpu_ns),
        ]
    )


def op_table_from(data: bytes) -> OpTable:
    """The table `op_table_bytes` wrote; ValueError when it does not read as one."""
    import msgspec

    ints = list[int]
    names, calls, self_cpu, total_cpu, self_gpu, total_gpu = msgspec.msgpack.decode(
        data,
        type=tuple[list[str], ints, ints, ints, ints | None, ints | None],
    )
    columns = [calls, self_cpu, total_cpu, self_gpu, total_gpu]
    if any(column is not None and len(column) != len(names) for column in columns):
        raise ValueError("columns of different lengths")

    def array(column: list[int] | None) -> Int64Array | None:
        return None if column is None else np.array(column, dtype=np.int64)

    return OpTable(
        names,
        np.array(calls, dtype=np.int64),
        np.array(self_cpu, dtype=np.int64),
        np.array(total_cpu, dtype=np.int64),
        array(self_gpu),
        array(total_gpu),
    )
