"""The Copies tab in lines: totals per direction, the repeated copies with their
cost per step, copies per step, and the groups by issuing operator path.

Textual-free; the figures are `CopiesResult`'s (`steptrace copies`). Each row
line knows the copies it stands for, which Enter marks on the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rich.text import Text

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, size_text
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import DIRECTIONS, CopyGroup, CopyReading
from tui.core.results.copies import PATH_SEPARATOR
from tui.view.kernel_rows import launchers

Int64Array = npt.NDArray[np.int64]

DIRECTION_WIDTH = 14


@dataclass(frozen=True)
class CopyLine:
    """One line of the tab: a heading (no copies) or a row standing for some copies.

    `head` is the fixed-width figures, `tail` what may be cut (an operator path,
    escaped); `positions` index `CopyReading.columns`.
    """

    head: str
    tail: str = ""
    positions: Int64Array | None = None
    label: str = ""
    """What the marks are called on the status line."""

    @property
    def is_section(self) -> bool:
        """A heading: nothing to mark."""
        return self.positions is None


def _size(value: int | None) -> str:
    return "size ?" if value is None else size_text(value)


def _memory(group: CopyGroup) -> str:
    return "–" if group.host_memory is None else group.host_memory.value


def path_text(group: CopyGroup) -> str:
    """The issuing path, outermost first, escaped."""
    return printable(PATH_SEPARATOR.join(group.path) or "(no operator)")


def copy_lines(reading: CopyReading) -> list[CopyLine]:
    """Every line of the tab, headings included, in reading order."""
    columns = reading.columns
    lines: list[CopyLine] = [
        CopyLine("Directions  (time: union of intervals; bytes from the trace)"),
        CopyLine(
            f"  {'direction':<{DIRECTION_WIDTH}} {'count':>8} {'bytes':>10} "
            f"{'time':>11} {'pageable':>9} {'pinned':>7}"
        ),
    ]
    for row in reading.totals:
        code = DIRECTIONS.index(row.direction)
        unknown = f"  (+{row.unknown_size} of unknown size)" if row.unknown_size else ""
        lines.append(
            CopyLine(
                f"  {row.direction.label:<{DIRECTION_WIDTH}} {row.count:>8,} "
                f"{size_text(row.bytes):>10} {duration_text(row.time_ns):>11} "
                f"{row.pageable:>9,} {row.pinned:>7,}{unknown}",
                positions=np.flatnonzero(columns.direction == code).astype(np.int64),
                label=f"{row.direction.label}:",
            )
        )
    lines += _repeated_lines(reading)
    if reading.steps:
        lines.append(CopyLine("Per step  (copies the host issued in the step)"))
        for index, (step, totals) in enumerate(
            zip(reading.steps, reading.step_totals, strict=True)
        ):
            label = f"  step {step.number:<8} {step.phase.value:<8}"
            if not totals:
                lines.append(CopyLine(f"{label} none"))
            for row in totals:
                code = DIRECTIONS.index(row.direction)
                mine = (columns.step == index) & (columns.direction == code)
                lines.append(
                    CopyLine(
                        f"{label} {row.direction.label:<{DIRECTION_WIDTH}} "
                        f"{row.count:>6,}× {size_text(row.bytes):>10} "
                        f"{duration_text(row.time_ns):>11}",
                        positions=np.flatnonzero(mine).astype(np.int64),
                        label=f"step {step.number} {row.direction.label}:",
                    )
                )
    lines.append(CopyLine("By issuing operator path  (largest time first)"))
    lines.append(
        CopyLine(
            f"  {'direction':<{DIRECTION_WIDTH}} {'memory':<8} {'size':>10} "
            f"{'count':>7} {'time':>11}  issued by"
        )
    )
    for group in reading.groups:
        lines.append(
            CopyLine(
                f"  {group.direction.label:<{DIRECTION_WIDTH}} {_memory(group):<8} "
                f"{_size(group.bytes):>10} {group.count:>6,}× "
                f"{duration_text(group.time_ns):>11}  ",
                path_text(group),
                group.positions,
                f"{group.direction.label} {_size(group.bytes)}:",
            )
        )
    return lines


def _repeated_lines(reading: CopyReading) -> list[CopyLine]:
    steps = len(reading.window)
    if steps < 2:
        return [
            CopyLine(
                f"Repeated copies: need two steps or more in the window (it has {steps})"
            )
        ]
    repeated = reading.repeated
    if not repeated:
        return [
            CopyLine(
                f"Repeated copies: none (no copy of the same direction, size and "
                f"operator path in all {steps} window steps)"
            )
        ]
    lines = [
        CopyLine(
            f"Repeated in all {steps} window steps  (same direction, size and path)"
        ),
        CopyLine(
            f"  {'direction':<{DIRECTION_WIDTH}} {'memory':<8} {'size':>10} "
            f"{'per step':>9} {'time/step':>11}  issued by"
        ),
    ]
    for group in repeated:
        lines.append(
            CopyLine(
                f"  {group.direction.label:<{DIRECTION_WIDTH}} {_memory(group):<8} "
                f"{_size(group.bytes):>10} {group.median_count_per_step:>8g}× "
                f"{duration_text(group.median_ns_per_step):>11}  ",
                path_text(group),
                group.positions,
                f"repeated {group.direction.label} {_size(group.bytes)}:",
            )
        )
    return lines


def copy_details(reading: CopyReading, line: CopyLine, analysis: Analysis) -> Text:
    """The copies of one line: how many, their issuing path in full, the
    operators that issued them (trace strings escaped)."""
    text = Text()
    text.append(line.label.rstrip(":") + "\n", style="bold")
    positions = line.positions
    if positions is None:
        return text
    columns = reading.columns
    events = columns.events[positions]
    sizes = columns.bytes[positions]
    known = sizes[sizes >= 0]
    text.append(f"{'copies':<14}", style="bold")
    text.append(f"{events.size:,}\n")
    text.append(f"{'bytes':<14}", style="bold")
    text.append(
        size_text(int(known.sum()))
        + (
            f" (+{sizes.size - known.size} of unknown size)"
            if known.size < sizes.size
            else ""
        )
        + "\n"
    )
    if line.tail:
        text.append(f"{'issued by':<14}", style="bold")
        text.append(line.tail + "\n")
    text.append("\noperators that issued them\n", style="bold underline")
    for operator, times in launchers(analysis, events)[:8]:
        text.append(f"{times:>8,}  ", style="bold")
        text.append(printable(operator) + "\n")
    return text
