"""`steptrace ops`: the operator table, torch's key_averages() per name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tui.core.optable import OpTable
from tui.core.results.text import distinct_cuts, fill
from tui.core.textsafe import printable
from tui.core.units import duration_text, us
from tui.core.vocab import SortKey, TimeDevice

# The name column of `steptrace ops`; longer names are cut with "…".
OPS_NAME_WIDTH = 28
_CELL = 10


def default_device(gpu_observed: bool) -> TimeDevice:
    """The app and the CLI sort by GPU time when there is some, else CPU time."""
    return TimeDevice.GPU if gpu_observed else TimeDevice.CPU


DEFAULT_SORT = SortKey.SELF


@dataclass(frozen=True)
class OpsResult:
    """The rows of an operator table in the order asked for."""

    table: OpTable
    rows: np.ndarray[Any, np.dtype[np.int64]]
    sort: SortKey
    device: TimeDevice
    gpu_observed: bool
    scope: str

    @classmethod
    def of(
        cls,
        table: OpTable,
        *,
        sort: SortKey | str = DEFAULT_SORT,
        device: TimeDevice | str | None = None,
        limit: int | None = None,
        scope: str = "whole trace",
    ) -> OpsResult:
        """Order (and cut) a table's rows."""
        gpu_observed = table.self_gpu_ns is not None
        chosen_device = TimeDevice(device) if device else default_device(gpu_observed)
        order = table.order(SortKey(sort), chosen_device)
        if limit is not None:
            order = order[:limit]
        return cls(table, order, SortKey(sort), chosen_device, gpu_observed, scope)

    def to_json(self) -> dict[str, Any]:
        """What `steptrace ops --json` prints."""
        table = self.table
        rows = []
        for row in self.rows.tolist():
            rows.append(
                {
                    "name": table.names[row],
                    "calls": int(table.calls[row]),
                    "self_cpu_us": us(table.self_cpu_ns[row]),
                    "total_cpu_us": us(table.total_cpu_ns[row]),
                    "self_gpu_us": us(table.self_gpu_ns[row])
                    if table.self_gpu_ns is not None
                    else None,
                    "total_gpu_us": us(table.total_gpu_ns[row])
                    if table.total_gpu_ns is not None
                    else None,
                }
            )
        return {
            "gpu_observed": self.gpu_observed,
            "sort": self.sort.value,
            "device": self.device.value,
            "ops": rows,
        }

    def to_text(self) -> str:
        """A fixed-width table at 80 columns; names cut alike keep their distinguishing end."""
        table = self.table
        width = OPS_NAME_WIDTH
        header = (
            f"{'name':<{width}} {'calls':>7} {'self CPU':>{_CELL}} "
            f"{'total CPU':>{_CELL}} {'self GPU':>{_CELL}} {'total GPU':>{_CELL}}"
        )
        lines = [
            f"operators by {self.sort.value} {self.device.value.upper()} time "
            f"({self.scope})",
            header,
            "-" * len(header),
        ]

        def cell(column: np.ndarray[Any, np.dtype[np.int64]] | None, row: int) -> str:
            return "n/o" if column is None else duration_text(int(column[row]))

        rows = self.rows.tolist()
        names = distinct_cuts([printable(table.names[row]) for row in rows], width)
        for name, row in zip(names, rows, strict=True):
            lines.append(
                f"{name:<{width}} {int(table.calls[row]):>7} "
                f"{cell(table.self_cpu_ns, row):>{_CELL}} "
                f"{cell(table.total_cpu_ns, row):>{_CELL}} "
                f"{cell(table.self_gpu_ns, row):>{_CELL}} "
                f"{cell(table.total_gpu_ns, row):>{_CELL}}"
            )
        if not self.gpu_observed:
            lines += fill(
                "GPU time: not observed (no GPU events in this capture); "
                "n/o = not observed",
                "",
                "",
            )
        return "\n".join(lines)
