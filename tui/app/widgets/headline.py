"""The headline under a first screen's header: what to look at first.

Its words come from `tui.report.headline` (the top finding with its cost,
the device's state, or a run's slow rank); the widget wraps them to its
width, never cuts them, and shows them again when they change (the
findings of a big capture arrive after the first frame). It takes at most
`MAX_LINES`: the key to the findings goes first, then what still does not
fit is cut at the end (the findings, 2, say it whole).
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from tui.report.fit import ELLIPSIS
from tui.report.headline import Headline

SEPARATOR = " · "
MAX_LINES = 2


def headline_text(headline: Headline, *, hint: bool = True) -> Text:
    """The lead in bold, its key (when `hint`), then the device's state."""
    text = Text(overflow="fold")
    text.append(headline.lead, style="bold")
    if hint:
        text.append("; ")
        text.append(headline.key_hint, style="italic")
    if headline.device:
        text.append(SEPARATOR)
        text.append(headline.device)
    return text


class HeadlineLine(Widget):
    """One or two lines saying the top finding and the device's state."""

    DEFAULT_CSS = """
    HeadlineLine {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, headline: Headline, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.headline = headline

    def show(self, headline: Headline) -> None:
        """Say another headline (its height may change with it)."""
        if headline != self.headline:
            self.headline = headline
            self.refresh(layout=True)

    @property
    def plain(self) -> str:
        """What it says, as one line of plain text."""
        return headline_text(self.headline).plain

    def render(self) -> Text:
        width = self.content_region.width or 80
        console = self.app.console
        lines = headline_text(self.headline).wrap(console, width)
        if len(lines) > MAX_LINES:  # the key is on the tabs' bar too
            lines = headline_text(self.headline, hint=False).wrap(console, width)
        shown = list(lines)[:MAX_LINES]
        if len(lines) > MAX_LINES:
            shown[-1].append(ELLIPSIS)
            shown[-1].truncate(width, overflow="ellipsis")
        return Text("\n").join(shown)
