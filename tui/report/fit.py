"""Text fitted to a number of terminal cells, for the CLI and the app alike.

A wide character (CJK, most emoji) takes two cells, so a name is cut and
padded by the cells it fills, never by its characters: the CLI's tables and
the app's columns cut the same name the same way.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

ELLIPSIS = "…"


def fit_end(text: str, width: int) -> str:
    """`text` in at most `width` cells, an ellipsis at the end when cut."""
    if width <= 0:
        return ""
    if text.isascii():
        return text if len(text) <= width else text[: width - 1] + ELLIPSIS
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + ELLIPSIS


def fit_words(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut after a whole word with an ellipsis
    (a first word longer than the room is cut where it must be)."""
    if cell_len(text) <= width:
        return text
    head = fit_end(text, width)[:-1]
    space = head.rfind(" ")
    if space > 0 and text[len(head)] != " ":
        head = head[:space]
    return head.rstrip(" ,;:—–-") + ELLIPSIS


def tail_cells(text: str, width: int) -> str:
    """The last `width` cells of `text` (padded when a wide glyph does not fit)."""
    if text.isascii() and text.isprintable():  # a cell a character: no walk
        return text[-width:].ljust(width) if width > 0 else ""
    taken: list[str] = []
    used = 0
    for character in reversed(text):
        size = cell_len(character)
        if used + size > width:
            break
        taken.append(character)
        used += size
    return set_cell_size("".join(reversed(taken)), width)


def fit_middle(text: str, width: int, head: int | None = None) -> str:
    """`text` in at most `width` cells keeping both ends (names differ at either).

    `head` is the cells kept before the ellipsis: half the room unless given.
    """
    if cell_len(text) <= width:
        return text
    if width < 8:
        return fit_end(text, width)
    if head is None:
        head = (width - 1) // 2
    return set_cell_size(text, head) + ELLIPSIS + tail_cells(text, width - 1 - head)


def fit_start(text: str, width: int) -> str:
    """`text` in at most `width` cells keeping its end."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return fit_end(text, width)
    return ELLIPSIS + tail_cells(text, width - 1)


def pad_end(text: str, width: int) -> str:
    """`text` left-aligned in `width` cells (as `f"{text:<{width}}"` for narrow text)."""
    return text + " " * max(width - cell_len(text), 0)
