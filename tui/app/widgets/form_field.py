"""A form's one-line field that keeps Tab, Shift+Tab and Enter in a burst of keys.

Keys typed in one burst ("abc⇥def⇥ghi" pasted, or fast typing over SSH) are
all queued to the focused field before it handles the first. Textual moves
focus on Tab through a binding, after the key has bubbled up to the app, so
the keys behind it were typed into the field being left. Here Tab, Shift+Tab
and Enter move focus in the key's own turn, and the keys already on their way
to a field that has lost focus are sent on, in order, to the one that has it
(as the main screen's prompt does, `prompt_input`).
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

MOVES = {"tab": 1, "enter": 1, "shift+tab": -1}
"""The keys that move to the next (1) or previous (-1) field of the form."""


class FormField(Input):
    """An Input of a form whose moving keys act at once and lose no key behind them."""

    async def _on_key(self, event: events.Key) -> None:
        if self.screen.focused is not self:
            # Typed before focus left this field, meant for where it went
            # (`has_focus` follows a turn later, when the Blur arrives).
            event.stop()
            event.prevent_default()
            self.app.post_message(events.Key(event.key, event.character))
            return
        move = MOVES.get(event.key)
        if move is not None:
            event.stop()
            event.prevent_default()
            if move > 0:
                self.screen.focus_next()
            else:
                self.screen.focus_previous()
            return
        await super()._on_key(event)
