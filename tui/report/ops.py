"""`steptrace ops` in words: a fixed-width operator table at 80 columns."""

from __future__ import annotations

from typing import Any

import numpy as np

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.shapes import ShapeOpTable
from tui.core.results.ops import SHAPES_OFF, OpsResult
from tui.report.fit import fit_end, pad_end
from tui.report.text import TEXT_WIDTH, distinct_cuts, fill

# The name column of `steptrace ops`; longer names are cut with "…".
OPS_NAME_WIDTH = 28
_CELL = 10


def ops_text(result: OpsResult) -> str:
    """A fixed-width table at 80 columns; names cut alike keep their distinguishing end."""
    table = result.table
    if result.by_shape and not result.shapes_recorded:
        return "\n".join(
            fill(
                f"{SHAPES_OFF}: its trace holds no input shapes to group operators "
                "by. Capture again with shapes on (steptrace capture "
                "--record-shapes, or record_shapes=True): it adds cost to every "
                "operator and can keep tensors alive longer."
            )
        )
    width = OPS_NAME_WIDTH
    header = (
        f"{'name':<{width}} {'calls':>7} {'self CPU':>{_CELL}} "
        f"{'total CPU':>{_CELL}} {'self GPU':>{_CELL}} {'total GPU':>{_CELL}}"
    )
    grouping = ", rows by input shape" if result.by_shape else ""
    lines = [
        f"operators by {result.sort.value} {result.device.value.upper()} time "
        f"({result.scope}{grouping})",
        header,
        "-" * len(header),
    ]

    def cell(column: np.ndarray[Any, np.dtype[np.int64]] | None, row: int) -> str:
        return "n/o" if column is None else duration_text(int(column[row]))

    rows = result.rows.tolist()
    names = distinct_cuts([printable(table.names[row]) for row in rows], width)
    for name, row in zip(names, rows, strict=True):
        lines.append(
            f"{pad_end(name, width)} {int(table.calls[row]):>7} "
            f"{cell(table.self_cpu_ns, row):>{_CELL}} "
            f"{cell(table.total_cpu_ns, row):>{_CELL}} "
            f"{cell(table.self_gpu_ns, row):>{_CELL}} "
            f"{cell(table.total_gpu_ns, row):>{_CELL}}"
        )
        if isinstance(table, ShapeOpTable):
            shapes = printable(table.shapes_text(row))
            lines.append(fit_end(f"  shapes {shapes}", TEXT_WIDTH))
    if not result.gpu_observed:
        lines += fill(
            "GPU time: not observed (no GPU events in this capture); "
            "n/o = not observed",
            "",
            "",
        )
    return "\n".join(lines)
