"""`steptrace ops` in words: an operator table as wide as the terminal, names whole
when asked."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.cells import cell_len

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.shapes import ShapeOpTable
from tui.core.results.ops import SHAPES_OFF, OpsResult
from tui.report.fit import fit_end, pad_end
from tui.report.text import TEXT_WIDTH, fill

# The name column of `steptrace ops` at 80 columns; a wider terminal gives the
# name what it adds. Longer names are cut at their end with "…".
OPS_NAME_WIDTH = 28
_CELL = 10


def name_width(names: list[str], width: int | None) -> int:
    """The name column: as wide as the longest name, within a table `width`
    columns wide (None: no limit); never under OPS_NAME_WIDTH."""
    longest = max(map(cell_len, names), default=0)
    if width is not None:
        longest = min(longest, width - (TEXT_WIDTH - OPS_NAME_WIDTH))
    return max(OPS_NAME_WIDTH, longest)


def ops_text(result: OpsResult, width: int | None = TEXT_WIDTH) -> str:
    """The table at `width` columns (None: every name whole); a name longer than
    its column is cut at its end, never in its middle (`--wide`, or `--json`,
    shows it whole)."""
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
    rows = result.rows.tolist()
    whole = [printable(table.names[row]) for row in rows]
    room = name_width(whole, width)
    header = (
        f"{'name':<{room}} {'calls':>7} {'self CPU':>{_CELL}} "
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

    for name, row in zip(whole, rows, strict=True):
        lines.append(
            f"{pad_end(fit_end(name, room), room)} {int(table.calls[row]):>7} "
            f"{cell(table.self_cpu_ns, row):>{_CELL}} "
            f"{cell(table.total_cpu_ns, row):>{_CELL}} "
            f"{cell(table.self_gpu_ns, row):>{_CELL}} "
            f"{cell(table.total_gpu_ns, row):>{_CELL}}"
        )
        if isinstance(table, ShapeOpTable):
            shapes = printable(table.shapes_text(row))
            lines.append(fit_end(f"  shapes {shapes}", len(header)))
    if not result.gpu_observed:
        lines += fill(
            "GPU time: not observed (no GPU events in this capture); "
            "n/o = not observed",
            "",
            "",
        )
    return "\n".join(lines)
