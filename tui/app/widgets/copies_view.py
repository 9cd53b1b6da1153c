"""The Copies tab: copies and sets per direction, the repeated ones with their cost
per step, per step, and per issuing operator path (`steptrace copies`); Enter
marks a line's copies on the timeline.

The figures are read once, in a worker, the first time the tab shows. When no
GPU work was observed the tab says so and why, never an empty table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.app.messages import MarkEvents, StatusText
from tui.app.widgets.rows_view import FiguresAsked, ReadOnce, RowsView
from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import CopyReading
from tui.report.fit import fit_middle
from tui.view.copy_rows import CopyLine, copy_details, copy_lines

if TYPE_CHECKING:
    from tui.core.results.copies import CopiesResult


@dataclass
class CopiesRead(Message):
    """A worker read the capture's copies (the Copies tab's figures) and built
    the tab's lines."""

    result: CopiesResult
    lines: list[CopyLine] = field(default_factory=list)


class CopiesView(ReadOnce):
    """Copies and sets of the capture, line by line; filterable by operator path."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *RowsView.BINDINGS,
        Binding("enter", "activate", "Mark on timeline"),
        Binding("v", "details", "Details (full path)"),
    ]

    ROW_ACTIONS = frozenset(("activate", "details"))
    READS = "copies"

    def __init__(self, analysis: Analysis, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis = analysis
        self.reading: CopyReading | None = None
        self.all_lines: list[CopyLine] = []
        self.lines: list[CopyLine] = []
        self._wanted: int | None = None

    # -- reading (once, off the UI) ----------------------------------------------

    def is_read(self) -> bool:
        return self.reading is not None

    def reader(self) -> Callable[[], None]:
        analysis = self.analysis

        def read() -> None:
            from tui.core.results.copies import CopiesResult

            result = CopiesResult.of(analysis)
            lines = copy_lines(result.reading) if result.reading is not None else []
            self.post_message(CopiesRead(result, lines))

        return read

    def on_copies_read(self, message: CopiesRead) -> None:
        message.stop()
        result = message.result
        reading = result.reading
        if reading is None:
            self.show_message(
                "Copies: not observed — "
                + printable(str(result.gpu_missing_reason))
                + ". No copy figure is shown as 0: the capture holds no device "
                "work to read them from."
            )
            return
        self.reading = reading
        if not reading.totals:
            self.show_message(
                "No copy or set in this capture: the device ran kernels only."
            )
            return
        self.all_lines = message.lines or copy_lines(reading)
        self.show_message(None)
        self.reorder()
        if self._wanted is not None:
            self.select_copy(self._wanted)
        else:
            self.cursor_moved()

    # -- filter ------------------------------------------------------------------

    def reorder(self) -> None:
        """Keep the rows whose direction, figures or issuing path contain the filter."""
        needle = self.filter_text.lower()
        if not needle:
            self.lines = self.all_lines
        else:
            self.lines = [
                line
                for line in self.all_lines
                if line.is_section or needle in (line.head + line.tail).lower()
            ]
        self.rows_changed()

    def select_copy(self, event: int) -> None:
        """Put the cursor on the narrowest line holding this copy (a repeated
        copy's line before its direction's), once the figures are read."""
        reading = self.reading
        if reading is None or self.message is not None:
            self._wanted = event
            return
        self._wanted = None
        found = np.flatnonzero(reading.columns.events == event)
        if found.size == 0:
            return
        if self.filter_text:
            self.set_filter("")
        position = int(found[0])
        holding = [
            (line.positions.size, index)
            for index, line in enumerate(self.lines)
            if line.positions is not None and bool(np.isin(position, line.positions))
        ]
        if holding:
            self.move_cursor(min(holding)[1], say=False)

    @property
    def current_line(self) -> CopyLine | None:
        """The line under the cursor (never a heading)."""
        if self.message is not None or not self.lines:
            return None
        line = self.lines[min(self.cursor, len(self.lines) - 1)]
        return None if line.is_section else line

    # -- lines -------------------------------------------------------------------

    def line_count(self) -> int:
        return len(self.lines)

    def is_section(self, index: int) -> bool:
        return self.lines[index].is_section

    def header_text(self, width: int) -> str:
        if self.reading is None or self.message is not None:
            return "Copies"
        count = len(self.reading.columns)
        scope = f", filter: {printable(self.filter_text)}" if self.filter_text else ""
        return f"Copies and sets ({count:,} in the capture{scope})"

    def line_text(self, index: int, width: int) -> str:
        line = self.lines[index]
        if not line.tail:
            return line.head
        room = width - cell_len(line.head)
        return line.head + fit_middle(line.tail, max(room, 8))

    def cursor_moved(self) -> None:
        line = self.current_line
        if line is None or line.positions is None:
            return
        text = Text()
        text.append(line.label.rstrip(":"), style="bold")
        count = int(line.positions.size)
        text.append(f"  {count:,} cop{'y' if count == 1 else 'ies'}")
        if line.tail:
            text.append("  issued by " + line.tail)
        text.append("  Enter: mark on the timeline  v: details", style="italic")
        self.post_message(StatusText(text))

    # -- keys ----------------------------------------------------------------------

    def action_activate(self) -> None:
        """Mark the line's copies on the timeline and visit the first."""
        line = self.current_line
        if line is None or line.positions is None or self.reading is None:
            return
        events = self.reading.columns.events[line.positions]
        self.post_message(MarkEvents(events, line.label))

    def action_details(self) -> None:
        """The line's copies: count, bytes, full issuing path, issuing operators."""
        line = self.current_line
        if line is None or self.reading is None:
            return
        self.post_message(
            FiguresAsked("Copies", copy_details(self.reading, line, self.analysis))
        )
