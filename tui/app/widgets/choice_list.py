"""A list to choose from, drawn with the Line API like the other tables: only the
lines in view are drawn, so opening a dialog with it costs the same whatever
it lists (an `OptionList` renders and wraps every option it holds first).

Each line is a few pieces of text with their own style (a bold name, dim
figures); a line without an id is a note the cursor skips ("… 12 more").
The cursor is moved by its owner (a dialog whose text field keeps the focus).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.app.widgets.rows_view import RowsView


@dataclass(frozen=True)
class Choice:
    """One line: its id (None: a note, not a choice) and its (text, style) pieces,
    trace strings already made printable."""

    id: str | None
    pieces: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        """The line's words, without styles."""
        return "".join(text for text, _ in self.pieces)


class ChoiceList(RowsView, can_focus=False):
    """Lines of styled pieces and a cursor over the choices among them."""

    HEADER_LINES: ClassVar[int] = 0

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, message=None)
        self.choices: list[Choice] = []
        self._piece_styles: dict[str, Style] = {}

    def set_choices(self, choices: Sequence[Choice]) -> None:
        """List `choices` from the top, the cursor on the first that is one."""
        self.choices = list(choices)
        self.cursor = 0
        self.rows_changed()
        self.scroll_to(y=0, animate=False, immediate=True)

    def replace_choice(self, index: int, choice: Choice) -> None:
        """Draw line `index` anew (a mark set or cleared)."""
        self.choices[index] = choice
        self.refresh_line(index - int(self.scroll_y))

    @property
    def highlighted_id(self) -> str | None:
        """The id of the choice under the cursor (None: nothing to choose)."""
        if not self.choices or self.is_section(self.cursor):
            return None
        return self.choices[self.cursor].id

    def line_count(self) -> int:
        return len(self.choices)

    def is_section(self, index: int) -> bool:
        return self.choices[index].id is None

    def line_text(self, index: int, width: int) -> str:
        return self.choices[index].text

    def _piece_style(self, name: str) -> Style:
        style = self._piece_styles.get(name)
        if style is None:
            style = self._piece_styles[name] = Style.parse(name) if name else Style()
        return style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_y) + y
        base = self._style("base")
        if index >= len(self.choices):
            return Strip([Segment(" " * width, base)], width)
        choice = self.choices[index]
        on_cursor = index == self.cursor and choice.id is not None
        line = self._style("cursor") if on_cursor else base
        segments, used = [], 0
        for text, style in choice.pieces:
            if used >= width:
                break
            shown = (
                text
                if used + cell_len(text) <= width
                else set_cell_size(text, width - used)
            )
            segments.append(Segment(shown, line + self._piece_style(style)))
            used += cell_len(shown)
        if used < width:
            segments.append(Segment(" " * (width - used), line))
        return Strip(segments, width)
