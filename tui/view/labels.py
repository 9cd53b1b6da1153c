"""Names fitted to a number of terminal cells: cut at the end, or in the middle,
and track labels that stay distinct however narrow the column is."""

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


def tail_cells(text: str, width: int) -> str:
    """The last `width` cells of `text` (padded when a wide glyph does not fit)."""
    taken: list[str] = []
    used = 0
    for character in reversed(text):
        size = cell_len(character)
        if used + size > width:
            break
        taken.append(character)
        used += size
    return set_cell_size("".join(reversed(taken)), width)


def fit_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells keeping both ends (names differ at either)."""
    if cell_len(text) <= width:
        return text
    if width < 8:
        return fit_end(text, width)
    head = (width - 1) // 2
    return set_cell_size(text, head) + ELLIPSIS + tail_cells(text, width - 1 - head)


def fit_start(text: str, width: int) -> str:
    """`text` in at most `width` cells keeping its end."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return fit_end(text, width)
    return ELLIPSIS + tail_cells(text, width - 1)


def _around(text: str, at: int, width: int) -> str:
    """A cut showing the characters from `at` on, with a little of the start."""
    if cell_len(text) <= width:
        return text
    head = min(at, max((width - 1) // 4, 1))
    kept = fit_end(text[at:], width - 1 - head)
    return text[:head] + ELLIPSIS + kept


def _common_prefix(names: list[str]) -> int:
    """How many leading characters all names share."""
    shortest = min(names, key=len)
    for position, character in enumerate(shortest):
        if any(name[position] != character for name in names):
            return position
    return len(shortest)


def distinct_labels(names: list[str], width: int) -> list[str]:
    """Each name in at most `width` cells; different names never read the same.

    Names are cut in the middle; a group that reads alike is cut again where
    its members differ (their end, their start, or around their first
    difference); a group still alike is numbered.
    """
    shown = [fit_middle(name, width) for name in names]
    for _ in range(2):
        groups: dict[str, list[int]] = {}
        for index, label in enumerate(shown):
            groups.setdefault(label, []).append(index)
        clashing = [
            members
            for members in groups.values()
            if len({names[index] for index in members}) > 1
        ]
        if not clashing:
            break
        for members in clashing:
            group = [names[index] for index in members]
            differ = _common_prefix(group)
            for attempt in (
                [fit_end(name, width) for name in group],
                [fit_start(name, width) for name in group],
                [_around(name, differ, width) for name in group],
            ):
                if len(set(attempt)) == len(set(group)):
                    break
            else:
                attempt = [
                    fit_end(name, max(width - len(f"#{n + 1}"), 1)) + f"#{n + 1}"
                    for n, name in enumerate(group)
                ]
            for index, label in zip(members, attempt, strict=True):
                shown[index] = label
    return shown
