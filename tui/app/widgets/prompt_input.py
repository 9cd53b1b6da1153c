"""The main screen's one-line prompt (search, filter) that closes in the key's own turn.

Keys typed in one burst ("/relu⏎n" over a slow SSH link) all reach the prompt
before it handles the first of them. Textual's Input submits on Enter through
a binding, after the keys queued behind it were typed in; here Enter and Esc
close the prompt at once, focus goes back to where it leads, and the keys
that were already on their way to the prompt are sent on to the screen, in
order, instead of being typed into a closed prompt.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input


class PromptInput(Input):
    """An Input that hides itself on Enter (submitting) or Esc (cancelling)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="hidden")
        self.focus_after: Widget | None = None
        """Where focus goes when the prompt closes (set when it opens)."""

    def open(self, value: str, placeholder: str, focus_after: Widget) -> None:
        """Show the prompt with `value`, focused at once (keys typed right after
        the one that opened it are its own)."""
        self.focus_after = focus_after
        self.placeholder = placeholder
        self.value = value
        self.remove_class("hidden")
        self.screen.set_focus(self)

    @property
    def is_open(self) -> bool:
        """Whether the prompt shows."""
        return not self.has_class("hidden")

    def close(self) -> None:
        """Hide the prompt and give focus back now."""
        self.add_class("hidden")
        self.screen.set_focus(self.focus_after)

    async def _on_key(self, event: events.Key) -> None:
        if not self.is_open:
            # Typed before the prompt closed, meant for what comes after it.
            event.stop()
            event.prevent_default()
            self.app.post_message(events.Key(event.key, event.character))
            return
        if event.key in ("enter", "escape"):
            event.stop()
            event.prevent_default()
            value = self.value
            self.close()
            if event.key == "enter":
                self.post_message(self.Submitted(self, value))
            return
        await super()._on_key(event)
