"""The help screen: every key, read from the bindings themselves so it never drifts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KeySection = tuple[str, Sequence[BindingType]]

KEY_NAMES = {
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "question_mark": "?",
    "comma": ",",
    "full_stop": ".",
    "left": "←",
    "right": "→",
    "up": "↑",
    "down": "↓",
    "slash": "/",
    "plus": "+",
    "minus": "-",
    "equals_sign": "=",
    "escape": "Esc",
    "enter": "Enter",
    "delete": "Del",
    "pageup": "PgUp",
    "pagedown": "PgDn",
}


def key_label(keys: str) -> str:
    """Readable key names: `left_square_bracket,x` → `[ / x`."""
    parts = []
    for key in keys.split(","):
        key = key.strip()
        parts.append(KEY_NAMES.get(key, key.replace("ctrl+", "Ctrl+")))
    return " / ".join(parts)


def bindings_rows(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """(keys, what it does) for each binding with a description."""
    rows = []
    for binding in bindings:
        if isinstance(binding, Binding):
            keys, description = binding.key, binding.description
        else:
            keys, description = binding[0], binding[2] if len(binding) > 2 else ""
        if description:
            rows.append((key_label(keys), description))
    return rows


def help_text(sections: Sequence[KeySection], notes: Sequence[str] = ()) -> Text:
    """All sections as one text block, then what this capture shows or lacks."""
    text = Text()
    for title, bindings in sections:
        text.append(f"{title}\n", style="bold underline")
        for keys, description in bindings_rows(bindings):
            text.append(f"  {keys:<16}", style="bold")
            text.append(f"{description}\n")
        text.append("\n")
    for note in notes:
        text.append(f"{note}\n\n")
    text.append(
        "Every action is also in the command palette (Ctrl+P). The mouse works"
        " but is never needed.",
        style="italic",
    )
    return text


class HelpScreen(ModalScreen[None]):
    """Keys of the main screen, the timeline, the operator table and the notes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close help"),
    ]

    def __init__(
        self, sections: Sequence[KeySection], notes: Sequence[str] = ()
    ) -> None:
        """`notes`: lines on what this capture shows or lacks (a memory lane…)."""
        super().__init__()
        self.sections = sections
        self.notes = notes

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Text("steptrace keys", style="bold"), markup=False)
            yield Static(help_text(self.sections, self.notes), markup=False)

    def on_screen_resume(self) -> None:
        """Shown again (a screen kept installed): from the top."""
        for box in self.query(VerticalScroll):
            box.scroll_home(animate=False, immediate=True)


def timeline_keys(
    screen_bindings: Iterable[BindingType], bindings: Iterable[BindingType]
) -> list[BindingType]:
    """The timeline's keys less those the screen takes first (its priority keys)."""
    shadowed = {
        key
        for binding in screen_bindings
        if isinstance(binding, Binding) and binding.priority
        for key in binding.key.split(",")
    }
    kept: list[BindingType] = []
    for binding in bindings:
        if not isinstance(binding, Binding):
            kept.append(binding)
            continue
        keys = [key for key in binding.key.split(",") if key not in shadowed]
        if keys:
            kept.append(Binding(",".join(keys), binding.action, binding.description))
    return kept
