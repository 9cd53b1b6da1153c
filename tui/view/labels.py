"""Track labels that stay distinct however narrow the column is (names fitted
to terminal cells by `tui.report.fit`)."""

from __future__ import annotations

from rich.cells import cell_len

from tui.report.fit import ELLIPSIS, fit_end, fit_middle, fit_start


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
