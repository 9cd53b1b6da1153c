"""The zone picker: which ranges are the data zone, filtered by typing, several at once.

Its list is a `ChoiceList` (Line API): only the lines in view are drawn, so
z opens at the same cost whatever the capture lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.app.widgets.choice_list import Choice, ChoiceList
from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.zones import ZoneCandidate, ZoneChoice
from tui.report.fit import fit_middle

SHOWN_AT_MOST = 60
"""Candidates listed at once (the biggest first); typing narrows the rest."""
AUTOMATIC = "\x00automatic"
"""The option id of "back to the automatic choice" (no candidate has this name)."""
NOTE = "dim italic"
"""The style of a line that is not a choice ("… 12 more")."""
AUTOMATIC_TEXT = (
    "automatic: the capture's own data zone, lecture_batch_cpu, enumerate(DataLoader)#…"
)


class ZonePicker(ModalScreen[tuple[str, ...] | None]):
    """Dismisses with the names chosen (empty: the automatic choice), None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Keep the current zone"),
        Binding(
            "enter", "choose", "Use the highlighted (and marked) ranges", priority=True
        ),
        Binding(
            "tab", "mark", "Mark / unmark a range (several at once)", priority=True
        ),
        Binding("down", "move(1)", "Next range", show=False, priority=True),
        Binding("up", "move(-1)", "Previous range", show=False, priority=True),
        Binding("pagedown", "move(10)", "Page down", show=False, priority=True),
        Binding("pageup", "move(-10)", "Page up", show=False, priority=True),
    ]

    def __init__(
        self, candidates: Sequence[ZoneCandidate], current: ZoneChoice
    ) -> None:
        super().__init__()
        self.candidates = list(candidates)
        self.current = current
        self.marked: list[str] = []
        self.shown: list[ZoneCandidate] = []
        self._filled_for: str | None = None
        self._filled_width = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="zone-box", classes="dialog"):
            yield Static(self._now(), id="zone-now", markup=False)
            yield Input(placeholder="type to filter ranges by name", id="zone-filter")
            yield ChoiceList(id="zone-list")
            yield Static(
                Text(
                    "↑↓ move  Tab marks several  Enter uses them (or the highlighted)"
                    "  Esc keeps the current  ● in use",
                    style="italic",
                ),
                id="zone-hint",
                markup=False,
            )

    def _now(self) -> Text:
        """The dialog's title: the zone in use."""
        return Text.assemble(
            ("Data zone", "bold"),
            "  where gaps (device idle, or untraced time) are looked for; now: ",
            *(
                [
                    (printable(self.current.label()), "bold"),
                    f" ({self.current.source.label})",
                ]
                if self.current.names
                else [("none found", "bold")]
            ),
        )

    def show_zone(
        self, candidates: Sequence[ZoneCandidate], current: ZoneChoice
    ) -> None:
        """Show the picker again for `current` (a picker kept and shown again):
        nothing typed, nothing marked."""
        self.candidates = list(candidates)
        self.current = current
        self.marked = []
        if not self.is_mounted:
            return  # compose and the first resize read them
        self.query_one("#zone-now", Static).update(self._now())
        field = self.query_one(Input)
        with field.prevent(Input.Changed):
            field.value = ""
        self.set_focus(field)
        self._fill("")

    def on_mount(self) -> None:
        # The list is filled once its width is known (on_resize), not twice.
        self.call_after_refresh(self._fill_if_empty)
        for field in self.query(Input):  # none: removed while built ahead
            self.set_focus(field)

    def _fill_if_empty(self) -> None:
        if self._filled_for is None and self.query(Input):
            self._fill(self.query_one(Input).value)

    @on(Input.Submitted, "#zone-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose()

    @property
    def options(self) -> ChoiceList:
        """The list of candidates."""
        return self.query_one("#zone-list", ChoiceList)

    def _list_width(self) -> int:
        """Cells a line of the list has (the dialog is 90% of the screen, 90 at most)."""
        width = self.options.size.width or min(int(self.app.size.width * 0.9), 90) - 4
        return max(width - 2, 40)

    def on_resize(self) -> None:
        if self._list_width() != self._filled_width:
            self._fill(self.query_one(Input).value)

    def _line(self, candidate: ZoneCandidate, width: int) -> Choice:
        mark = "[x]" if candidate.name in self.marked else "[ ]"
        in_use = "●" if candidate.name in self.current.names else " "
        figures = (
            f"{candidate.kind:<10} {candidate.calls:>7,} calls "
            f"{duration_text(candidate.total_ns):>11}"
        )
        name_width = max(width - len(figures) - 7, 12)
        name = fit_middle(printable(candidate.name), name_width)
        return Choice(
            candidate.name,
            (
                (f"{mark} {in_use} ", ""),
                (name.ljust(name_width), "bold" if in_use != " " else ""),
                (" " + figures, "dim"),
            ),
        )

    def _fill(self, needle: str) -> None:
        """List the candidates whose name contains `needle`, marked ones kept."""
        self._filled_for = needle
        lowered = needle.lower()
        matching = [c for c in self.candidates if lowered in c.name.lower()]
        self.shown = matching[:SHOWN_AT_MOST]
        width = self._filled_width = self._list_width()
        lines = [Choice(AUTOMATIC, ((AUTOMATIC_TEXT, "italic"),))] if not needle else []
        lines.extend(self._line(candidate, width) for candidate in self.shown)
        if len(matching) > len(self.shown):
            more = len(matching) - len(self.shown)
            lines.append(Choice(None, ((f"… {more:,} more: type to narrow", NOTE),)))
        if not matching and needle:
            said = f"no range name contains {printable(needle)}"
            lines.append(Choice(None, ((said, NOTE),)))
        self.options.set_choices(lines)

    @on(Input.Changed, "#zone-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def _highlighted_id(self) -> str | None:
        return self.options.highlighted_id

    def action_move(self, delta: int) -> None:
        """Move the highlight through the list while typing stays in the filter."""
        options = self.options
        options.move_cursor(options.cursor + delta, delta, say=False)

    def action_mark(self) -> None:
        """Mark or unmark the highlighted range (Enter then uses every marked one)."""
        name = self._highlighted_id()
        if name is None or name == AUTOMATIC:
            return
        if name in self.marked:
            self.marked.remove(name)
        else:
            self.marked.append(name)
        candidate = next(c for c in self.shown if c.name == name)
        self.options.replace_choice(
            self.options.cursor, self._line(candidate, self._list_width())
        )

    def action_choose(self) -> None:
        """Use the marked ranges, or the highlighted one; the automatic line resets."""
        typed = self.query_one(Input).value
        if typed != self._filled_for:
            self._fill(typed)
        name = self._highlighted_id()
        if name == AUTOMATIC and not self.marked:
            self.dismiss(())
            return
        chosen = list(self.marked)
        if not chosen and name is not None:
            chosen = [name]
        if chosen:
            self.dismiss(tuple(chosen))

    def action_cancel(self) -> None:
        """Close without changing the zone."""
        self.dismiss(None)
