"""Dialogs built before their first use and shown again: the help, the zone
picker and the note form of one main screen.

Opening a dialog the first time composes its widgets, styles and mounts them,
then lays them out at the screen's size before drawing them: the first ?, z
and m took 52-77 ms of the UI thread on the 2-core machine, over the 50 ms a
key may take; shown again, only the drawing is left. So the screen
keeps one of each, builds them in the quiet after its first frame and lays
them out once mounted (`build_ahead`), and each key that opens one resets it
with what it shows now and shows it again. A dialog asked for before it was
built is built then.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Any, TypeVar

from textual.app import ScreenStackError
from textual.screen import Screen

DialogT = TypeVar("DialogT", bound=Screen[Any])

BUILD_AHEAD_AFTER_S = 0.5
"""How long after its first frame a main screen builds its dialogs: past its
first workers (findings, the zone picker's lines), not in the way of a key."""
LAY_OUT_AFTER_S = 0.2
"""How long after building them the dialogs are laid out (once mounted)."""


class KeptDialogs:
    """One screen's dialogs, each built once (installed under a name of its own)."""

    def __init__(self, host: Screen[Any]) -> None:
        self.host = host
        self.names: dict[type[Screen[Any]], str] = {}

    def get(self, kind: type[DialogT], make: Callable[[], DialogT]) -> DialogT:
        """The kept dialog of class `kind` (`make` builds it the first time)."""
        app = self.host.app
        name = self.names.setdefault(kind, f"{kind.__name__}-{id(self.host)}")
        if not app.is_screen_installed(name):
            app.install_screen(make(), name)
        dialog = app.get_screen(name)
        assert isinstance(dialog, kind)
        return dialog

    def build_ahead(self, *makers: tuple[type[Screen[Any]], Callable[[], Any]]) -> None:
        """Build the dialogs now (compose, style, mount) without showing them;
        later if another screen is over the host (it may be closing it)."""
        app = self.host.app
        if not self.host.is_attached or not app.is_running:
            return
        if not self.host.is_current:
            self.host.set_timer(BUILD_AHEAD_AFTER_S, partial(self.build_ahead, *makers))
            return
        for kind, make in makers:
            dialog = self.get(kind, make)
            if not dialog.is_running:
                # What push_screen does first for a screen that is not running
                # (textual 8.2.8); showing it later skips it.
                app._register(app, dialog)
        self.host.set_timer(LAY_OUT_AFTER_S, self._lay_out)

    def _lay_out(self, tries: int = 10) -> None:
        """Arrange the built dialogs at the app's size, as showing them would
        first (nothing is drawn: they are not shown); halves their first show."""
        app = self.host.app
        waiting = False
        for name in self.names.values():
            if not app.is_screen_installed(name):
                continue
            dialog = app.get_screen(name)
            if not dialog.is_mounted:
                waiting = True
            elif not dialog.is_current and not dialog._compositor.size:
                dialog._refresh_layout(app.size)
        if waiting and tries > 1:
            self.host.set_timer(LAY_OUT_AFTER_S, partial(self._lay_out, tries - 1))

    def release(self) -> None:
        """The screen closes: its dialogs go with it."""
        app = self.host.app
        for name in self.names.values():
            if not app.is_screen_installed(name):
                continue
            dialog = app.get_screen(name)
            with suppress(ScreenStackError):  # the app is closing with it open
                app.uninstall_screen(name)
                if dialog.is_running and not any(
                    dialog in stack for stack in app._screen_stacks.values()
                ):
                    dialog.remove()
        self.names.clear()
