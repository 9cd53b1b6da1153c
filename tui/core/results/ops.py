"""`steptrace ops`: the operator table, torch's key_averages() per name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tui.core.base.units import us
from tui.core.base.vocab import SortKey, TimeDevice
from tui.core.figures.optable import OpTable
from tui.core.figures.shapes import ShapeOpTable


def default_device(gpu_observed: bool) -> TimeDevice:
    """The app and the CLI sort by GPU time when there is some, else CPU time."""
    return TimeDevice.GPU if gpu_observed else TimeDevice.CPU


DEFAULT_SORT = SortKey.SELF
SHAPES_OFF = "record_shapes was off for this capture"


@dataclass(frozen=True)
class OpsResult:
    """The rows of an operator table in the order asked for."""

    table: OpTable
    rows: np.ndarray[Any, np.dtype[np.int64]]
    sort: SortKey
    device: TimeDevice
    gpu_observed: bool
    scope: str
    shapes_recorded: bool = True
    python: bool = False
    """Whether Python frames and module ranges are rows too (`--python`)."""

    @property
    def by_shape(self) -> bool:
        """Whether rows are (name, input shapes), as key_averages(group_by_input_shape=True)."""
        return isinstance(self.table, ShapeOpTable)

    @classmethod
    def of(
        cls,
        table: OpTable,
        *,
        sort: SortKey | str = DEFAULT_SORT,
        device: TimeDevice | str | None = None,
        limit: int | None = None,
        scope: str = "whole trace",
        shapes_recorded: bool = True,
        python: bool = False,
    ) -> OpsResult:
        """Order (and cut) a table's rows; a ShapeOpTable gives rows by input shape."""
        gpu_observed = table.self_gpu_ns is not None
        chosen_device = TimeDevice(device) if device else default_device(gpu_observed)
        order = table.order(SortKey(sort), chosen_device)
        if limit is not None:
            order = order[:limit]
        return cls(
            table,
            order,
            SortKey(sort),
            chosen_device,
            gpu_observed,
            scope,
            shapes_recorded,
            python,
        )

    def to_json(self) -> dict[str, Any]:
        """What `steptrace ops --json` prints."""
        table = self.table
        if self.by_shape and not self.shapes_recorded:
            return {
                "gpu_observed": self.gpu_observed,
                "sort": self.sort.value,
                "device": self.device.value,
                "group_by": "shape",
                "shapes_recorded": False,
                "message": SHAPES_OFF,
                "ops": None,
            }
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
            if isinstance(table, ShapeOpTable):
                rows[-1]["input_shapes"] = table.input_shapes[row]
        if isinstance(table, ShapeOpTable):
            return {
                "gpu_observed": self.gpu_observed,
                "sort": self.sort.value,
                "device": self.device.value,
                "group_by": "shape",
                "shapes_recorded": True,
                "ops": rows,
            }
        return {
            "gpu_observed": self.gpu_observed,
            "sort": self.sort.value,
            "device": self.device.value,
            "ops": rows,
        }
