"""The status line: words fitted to its width, again when the terminal resizes."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from tui.view.status import ALWAYS, Part, StatusLine


class InfoLine(Static):
    """One line under the timeline; a `StatusLine` drops its least useful parts
    to fit, plain words are cut at a word's end."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self._line = StatusLine(())

    def show(self, words: Text | StatusLine) -> None:
        """Say `words`, fitted to the line's width now and on every resize."""
        self._line = (
            words
            if isinstance(words, StatusLine)
            else StatusLine((Part(words, ALWAYS),))
        )
        self._refit()

    def on_resize(self) -> None:
        self._refit()

    def _refit(self) -> None:
        # One line high whatever it says: a repaint, never a layout of the
        # screen (Static's default, 10-30 ms of every key that speaks here).
        self.update(self._line.fit(self.content_size.width), layout=False)
