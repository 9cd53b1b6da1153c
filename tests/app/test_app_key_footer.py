"""The one-line footer draws what Textual's own Footer draws, cell for cell and
style for style, for the same keys: plain, grouped, disabled, cropped, after a
focus move; and a click on a key presses it."""

from __future__ import annotations

import asyncio
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Footer, Static

from tui.app.widgets.key_footer import KeyFooter, KeyLine

ZOOM = Binding.Group("Zoom")
PACKED = Binding.Group("Packed", compact=True)


class Pane(Widget, can_focus=True):
    """A focusable widget with keys of its own."""

    DEFAULT_CSS = "Pane { height: 3; }"

    def __init__(self, bindings: list[BindingType], *, id: str) -> None:
        super().__init__(id=id)
        self._bindings_given = bindings

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "dimmed":
            return None  # shown, disabled
        return action != "hidden"


class First(Pane):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w,plus", "zoom_in", "Zoom in", key_display="w", group=ZOOM),
        Binding("s", "zoom_out", "Zoom out", group=ZOOM),
        Binding("enter", "open", "Open the selected thing"),
        Binding("x", "dimmed", "Not now"),
        Binding("y", "hidden", "Never shown"),
        Binding("k", "press_k", "Keep"),
    ]

    pressed = 0

    def action_press_k(self) -> None:
        self.pressed += 1


class Second(Pane):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "sort", "Sort by next column"),
        Binding("r", "reverse", "Reverse", show=False),
        Binding("a", "one", "One", group=PACKED),
        Binding("b", "two", "Two", group=PACKED),
    ]


class Third(Pane):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "solo", "Alone in its group", group=ZOOM),
    ]


class FooterApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, footer: type[Footer]) -> None:
        super().__init__()
        self.footer_type = footer

    def compose(self) -> ComposeResult:
        yield Static("footer test")
        yield First([], id="first")
        yield Second([], id="second")
        yield Third([], id="third")
        yield self.footer_type()


async def _pictures(footer: type[Footer], width: int) -> list[str]:
    app = FooterApp(footer)
    shots = []
    async with app.run_test(size=(width, 12)) as pilot:
        for focus in ("first", "second", "third", "first"):
            app.set_focus(app.query_one(f"#{focus}"))
            await pilot.pause()
            await pilot.pause()
            shots.append(app.export_screenshot(simplify=True))
    return shots


@pytest.mark.parametrize("width", [30, 80, 140])
def test_the_same_picture_as_textuals_footer(width: int) -> None:
    ours = asyncio.run(_pictures(KeyFooter, width))
    textual = asyncio.run(_pictures(Footer, width))
    assert ours == textual
    assert len(set(ours)) > 1  # the keys changed with the focus


def test_one_widget_draws_the_keys_and_a_click_presses_one() -> None:
    async def scenario() -> None:
        app = FooterApp(KeyFooter)
        async with app.run_test(size=(140, 12)) as pilot:
            first = app.query_one(First)
            app.set_focus(first)
            await pilot.pause()
            await pilot.pause()
            footer = app.query_one(KeyFooter)
            assert [type(child).__name__ for child in footer.children] == [
                "KeyLine",
                "FooterKey",  # the command palette's, docked right
            ]
            line = app.query_one(KeyLine)
            x = next(start for start, _, key in line._places if key.key == "k")
            await pilot.click(KeyLine, offset=(x + 1, 0))
            await pilot.pause()
            assert first.pressed == 1

    asyncio.run(scenario())
