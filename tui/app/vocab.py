"""The explorer's own vocabularies (the core's are in `tui.core.base.vocab`):
what the operator table covers and what the prompt asks for."""

from __future__ import annotations

from tui.core.base.vocab import Word


class OpScope(Word):
    """What the main screen's operator table covers (S switches)."""

    WINDOW = "window"
    STEP = "step"


class PromptPurpose(Word):
    """What the main screen's prompt was opened for (nothing: closed)."""

    NONE = ""
    SEARCH = "search"
    FILTER = "filter"
