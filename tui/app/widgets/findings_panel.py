"""The findings panel: the method's readings, costliest first, each with its cost,
observation, hypothesis and next check."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.app.messages import StatusText
from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import Finding
from tui.report.findings import words


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


def _note(words: str) -> Option:
    """A line that is not a finding (they are being computed, or could not be)."""
    return Option(Text(words, style="italic"), disabled=True)


class FindingsPanel(OptionList):
    """Possible readings of the capture; `m` on one writes a note prefilled from it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Show on timeline", show=False),
    ]

    def __init__(
        self, findings: list[Finding] | None, *, id: str | None = None
    ) -> None:
        """`findings`: None while they are being computed (a big capture)."""
        self.findings = findings or []
        super().__init__(
            *(
                [Option(finding_text(f), id=f.id.value) for f in findings]
                if findings is not None
                else [_note("computing the findings…")]
            ),
            id=id,
            markup=False,
        )

    def follow_analysis(self, analysis: Analysis, findings: list[Finding]) -> None:
        """The readings of another data zone (or the first ones, computed later)."""
        keep = self.highlighted
        self.findings = findings
        self.clear_options()
        self.add_options([Option(finding_text(f), id=f.id.value) for f in findings])
        if findings:
            self.highlighted = min(keep or 0, len(findings) - 1)

    def show_problem(self, problem: str) -> None:
        """Say why there are no findings to show."""
        self.findings = []
        self.clear_options()
        self.add_option(_note(printable(problem)))

    @property
    def current(self) -> Finding | None:
        """The highlighted finding."""
        if self.highlighted is None or self.highlighted >= len(self.findings):
            return None
        return self.findings[self.highlighted]

    def on_option_list_option_highlighted(
        self, event: OptionList.OptionHighlighted
    ) -> None:
        """Say on the status line which finding is under the cursor, and what
        its keys do (only while the panel has the focus)."""
        finding = next(
            (f for f in self.findings if f.id.value == event.option.id), None
        )
        if finding is None or self.screen.focused is not self:
            return
        said = words(finding)
        text = Text()
        text.append(said.title, style="bold")
        text.append("  " + said.status_label)
        text.append("  m: note from this finding", style="italic")
        if finding.anchor is not None:
            text.append("  Enter: show it", style="italic")
        self.post_message(StatusText(text))
