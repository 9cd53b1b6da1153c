"""The findings panel: the method's readings, costliest first, each with its cost,
observation, hypothesis and next check.

Drawn line by line like the tables: each finding is wrapped once per width
(the bottom pane's, known even while the tab is hidden), so showing the tab
neither wraps them again nor changes the panel's height; Textual's option
list did both, and a layout more, on every show (the tab cost 55-65 ms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from tui.app.messages import StatusText
from tui.app.widgets.rows_view import FiguresAsked
from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import Finding
from tui.core.findings.weights import compiling_steps
from tui.report.findings import no_gpu_line, one_by_one, set_aside_text, words


def finding_text(finding: Finding) -> Text:
    """Several lines for one finding; every string from the trace stays text."""
    said = words(finding)
    text = Text()
    mark = ("● " if finding.observed else "○ ") + said.status_label
    text.append(f"{mark}  ", style="bold" if finding.observed else "dim")
    text.append(said.title, style="bold underline" if finding.observed else "bold")
    if said.cost:
        text.append("\n  cost: ", style="italic")
        text.append(said.cost)
    text.append("\n  observation: ", style="italic")
    text.append(printable(said.observation))
    text.append("\n  hypothesis: ", style="italic")
    text.append(printable(said.hypothesis))
    text.append("\n  next check: ", style="italic")
    text.append(printable(said.next_check))
    return text


def _header(analysis: Analysis) -> Text | None:
    """The steps the median step leaves out, and why (None: it keeps them all)."""
    aside = compiling_steps(analysis)
    return Text(set_aside_text(aside)) if aside else None


class FindingsPanel(ScrollView, can_focus=True):
    """Possible readings of the capture; `m` on one writes a note prefilled from it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Show on timeline", show=False),
        Binding("v", "details", "Finding in full"),
        Binding("up", "move(-1)", "Previous finding", show=False),
        Binding("down", "move(1)", "Next finding", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First finding", show=False),
        Binding("end", "edge(1)", "Last finding", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "findings-panel--highlighted",
        "findings-panel--note",
    }

    DEFAULT_CSS = """
    FindingsPanel {
        overflow-x: hidden;
        padding: 0 1;
        background: $surface;
        &:focus { background-tint: $foreground 5%; }
        & > .findings-panel--highlighted {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .findings-panel--highlighted {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
        & > .findings-panel--note { color: $text-disabled; text-style: italic; }
    }
    """

    @dataclass
    class Chosen(Message):
        """Enter (or a click) on a finding: show what it rests on."""

        finding: Finding

    def __init__(
        self,
        findings: list[Finding] | None,
        *,
        analysis: Analysis | None = None,
        id: str | None = None,
    ) -> None:
        """`findings`: None while they are being computed (a big capture);
        `analysis`: the capture they read, whose steps set aside from the
        median step the header names."""
        super().__init__(id=id)
        self.findings: list[Finding] = []
        self._no_gpu: tuple[Finding, ...] = ()
        self._keep(findings or [])
        self._header = _header(analysis) if findings is not None and analysis else None
        self._note: str | None = (
            None if findings is not None else "computing the findings…"
        )
        self._highlighted: int | None = 0 if self.findings else None
        self._texts: list[Text] = []
        # Each line: the finding it belongs to (-1: the note) and its words.
        self._lines: list[tuple[int, Text]] = []
        self._first_line: list[int] = []
        self._wrapped_at = -1
        self._strips: dict[tuple[int, bool, bool], Strip] = {}
        self._build_texts()

    def on_mount(self) -> None:
        self._wrap()  # the padding and the scrollbar's width are known now

    # -- what it shows --------------------------------------------------------------

    def follow_analysis(self, analysis: Analysis, findings: list[Finding]) -> None:
        """The readings of another data zone (or the first ones, computed later)."""
        keep = self._highlighted
        self._keep(findings)
        self._header = _header(analysis)
        self._note = None
        self._build_texts()
        shown = len(self.findings)
        self.highlighted = min(keep or 0, shown - 1) if shown else None

    def _keep(self, findings: list[Finding]) -> None:
        """The findings shown one by one; those not observed for want of GPU
        events are one line after them, without advice."""
        self.findings, self._no_gpu = one_by_one(findings)

    def show_problem(self, problem: str) -> None:
        """Say why there are no findings to show."""
        self.findings, self._no_gpu = [], ()
        self._header = None
        self._note = printable(problem)
        self._highlighted = None
        self._build_texts()

    def shown_texts(self) -> list[str]:
        """What each entry says, as plain text (the findings, or the note)."""
        return [text.plain for text in self._texts]

    @property
    def current(self) -> Finding | None:
        """The highlighted finding."""
        if self._highlighted is None or self._highlighted >= len(self.findings):
            return None
        return self.findings[self._highlighted]

    @property
    def highlighted(self) -> int | None:
        """The index of the finding under the cursor (None: no finding)."""
        return self._highlighted

    @highlighted.setter
    def highlighted(self, index: int | None) -> None:
        if index is not None:
            if not self.findings:
                index = None
            else:
                index = max(0, min(index, len(self.findings) - 1))
        changed = index != self._highlighted
        self._highlighted = index
        self._scroll_to_highlighted()
        self.refresh()
        if changed:
            self._say()

    # -- lines --------------------------------------------------------------------------

    def _build_texts(self) -> None:
        self._texts = (
            [finding_text(finding) for finding in self.findings]
            if self._note is None
            else [Text(self._note)]
        )
        if self._note is None and self._no_gpu:
            self._texts.append(Text("○ " + no_gpu_line(self._no_gpu)))
        self._wrapped_at = -1
        if self.is_mounted:
            self._wrap()

    def _width(self) -> int:
        """The panel's width, or while its tab is hidden (its own is 0) the one
        it will have: the lines wrapped now are those the first show draws."""
        if self.size.width:
            return self.outer_size.width
        hidden_gutters = 0
        node = self.parent
        while isinstance(node, Widget):
            if node.size.width:  # its content area
                return node.size.width - hidden_gutters
            hidden_gutters += node.styles.gutter.width
            node = node.parent
        return self.app.size.width

    def _wrap_width(self) -> int:
        scrollbar = self.styles.scrollbar_size_vertical
        return max(self._width() - self.styles.gutter.width - scrollbar, 10)

    def _wrap(self) -> None:
        width = self._wrap_width()
        if width == self._wrapped_at:
            return
        self._wrapped_at = width
        self._strips.clear()
        console = self.app.console
        lines: list[tuple[int, Text]] = []
        if self._header is not None and self._note is None:
            lines.extend((-1, line) for line in self._header.wrap(console, width))
        first: list[int] = []
        for index, text in enumerate(self._texts):
            first.append(len(lines))
            # The note, and the line of findings not observed, are no finding.
            owner = (
                -1 if self._note is not None or index >= len(self.findings) else index
            )
            lines.extend((owner, line) for line in text.wrap(console, width))
        self._lines = lines
        self._first_line = first
        self.virtual_size = Size(width, len(lines))

    def on_resize(self, event: events.Resize) -> None:
        self._wrap()
        self._scroll_to_highlighted()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_y) + y
        base = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, base)
        owner, _ = self._lines[index]
        lit = owner >= 0 and owner == self._highlighted
        key = (index, lit, self.has_focus)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._draw(index, lit, base, width)
            self._strips[key] = strip
        return strip

    def _draw(self, index: int, lit: bool, base: Style, width: int) -> Strip:
        owner, text = self._lines[index]
        style = base
        if lit:
            style = base + self.get_component_rich_style("findings-panel--highlighted")
        elif owner < 0:
            style = base + self.get_component_rich_style("findings-panel--note")
        segments = [
            Segment(segment.text, style + segment.style if segment.style else style)
            for segment in text.render(self.app.console)
            if segment.text != "\n"
        ]
        return Strip(segments).adjust_cell_length(width, style).simplify()

    # -- keys ----------------------------------------------------------------------------

    def _scroll_to_highlighted(self) -> None:
        """Bring the highlighted finding's lines on screen, its first line first."""
        index = self._highlighted
        if index is None or index >= len(self._first_line):
            return
        top = self._first_line[index] if index else 0  # the first: the header too
        end = (
            self._first_line[index + 1]
            if index + 1 < len(self._first_line)
            else len(self._lines)
        )
        height = max(self.scrollable_content_region.height, 1)
        scroll = int(self.scroll_y)
        if top < scroll:
            target = top
        elif end > scroll + height:
            target = min(top, end - height)
        else:
            return
        # Forced: lines just wrapped have no scrollbar until the next layout.
        self.scroll_to(y=target, animate=False, immediate=True, force=True)

    def _scroll_lines(self, lines: int) -> None:
        """Scroll by `lines` (forced: lines just wrapped have no scrollbar yet)."""
        self.scroll_to(
            y=max(int(self.scroll_y) + lines, 0),
            animate=False,
            immediate=True,
            force=True,
        )

    def action_move(self, step: int) -> None:
        if self.findings:
            start = self._highlighted if self._highlighted is not None else -step
            self.highlighted = start + step

    def action_page(self, direction: int) -> None:
        """Down (up) by a screen of lines, so a finding taller than the pane
        shows its next check; the finding on the view's top line is
        highlighted (at an end: the first or the last)."""
        if not self.findings or self._highlighted is None:
            return
        height = max(self.scrollable_content_region.height, 1)
        before = int(self.scroll_y)
        self._scroll_lines(direction * height)
        after = int(self.scroll_y)
        if after == before:  # at an end: to the first or last finding
            self.highlighted = 0 if direction < 0 else len(self.findings) - 1
            return
        line = min(after, len(self._lines) - 1)
        owner = self._lines[line][0]
        if owner < 0:  # no finding's line: the header (the first) or after (the last)
            owner = 0 if line < self._first_line[0] else len(self.findings) - 1
        changed = owner != self._highlighted
        self._highlighted = owner  # the view stays where the page put it
        self.refresh()
        if changed:
            self._say()

    def action_details(self) -> None:
        """The highlighted finding in full, in a scrollable dialog."""
        finding = self.current
        if finding is not None:
            self.post_message(FiguresAsked(words(finding).title, finding_text(finding)))

    def action_edge(self, end: int) -> None:
        if self.findings:
            self.highlighted = len(self.findings) - 1 if end else 0

    def action_select(self) -> None:
        finding = self.current
        if finding is not None:
            self.post_message(self.Chosen(finding))

    def on_click(self, event: events.Click) -> None:
        index = int(self.scroll_y) + event.y
        if 0 <= index < len(self._lines) and self._lines[index][0] >= 0:
            self.highlighted = self._lines[index][0]
            self.action_select()

    def on_focus(self) -> None:
        self._say()

    def _say(self) -> None:
        """Say on the status line which finding is under the cursor, and what
        its keys do (only while the panel has the focus)."""
        finding = self.current
        if finding is None or not self.has_focus:
            return
        said = words(finding)
        text = Text()
        text.append(said.title, style="bold")
        text.append("  " + said.status_label)
        text.append("  m: note from this finding", style="italic")
        if finding.anchor is not None:
            text.append("  Enter: show it", style="italic")
        self.post_message(StatusText(text))
