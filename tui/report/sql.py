"""`steptrace sql` in words: a query's rows as an aligned text table, or CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from rich.cells import cell_len

from tui.core.base.textsafe import printable
from tui.core.base.units import plural
from tui.core.results.sql import SqlResult
from tui.report.fit import fit_middle, pad_end

CELL_WIDTH = 60
"""The most cells a column takes in the text table: longer values keep both ends."""

NULL = "NULL"


def cell_text(value: Any) -> str:
    """A value as the text table prints it (NULL for none), safe to print."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "true" if value else "false"
    return printable(str(value))


def sql_text(result: SqlResult) -> str:
    """The rows under their column names, numbers right-aligned, and the row count."""
    columns = [printable(name) for name in result.columns]
    cells = [
        [fit_middle(cell_text(value), CELL_WIDTH) for value in row]
        for row in result.rows
    ]
    numeric = [
        all(
            isinstance(row[index], int | float) or row[index] is None
            for row in result.rows
        )
        for index in range(len(columns))
    ]
    widths = [
        max(
            [cell_len(fit_middle(name, CELL_WIDTH))]
            + [cell_len(row[index]) for row in cells]
        )
        for index, name in enumerate(columns)
    ]
    lines = [
        _line([fit_middle(name, CELL_WIDTH) for name in columns], widths, numeric),
        "  ".join("-" * width for width in widths),
    ]
    lines += [_line(row, widths, numeric) for row in cells]
    lines.append(plural(len(result.rows), "row"))
    return "\n".join(lines)


def _line(cells: list[str], widths: list[int], numeric: list[bool]) -> str:
    """One row, each cell padded to its column (numbers on the right)."""
    parts = [
        " " * (width - cell_len(cell)) + cell if right else pad_end(cell, width)
        for cell, width, right in zip(cells, widths, numeric, strict=True)
    ]
    return "  ".join(parts).rstrip()


def sql_csv(result: SqlResult, *, safe: bool) -> str:
    """The rows as CSV with a header (empty for NULL); `safe` escapes what a
    terminal would act on (for a terminal, not for a file or a pipe)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([_csv_cell(name, safe) for name in result.columns])
    for row in result.rows:
        writer.writerow([_csv_cell(value, safe) for value in row])
    return buffer.getvalue()


def _csv_cell(value: Any, safe: bool) -> str:
    """A CSV field: the value's text, empty for NULL."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return printable(text) if safe else text
