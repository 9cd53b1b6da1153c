"""One way to shorten text to a width, in terminal cells, for the CLI and the app.

ASCII text is cut exactly as the CLI cut it by characters; a wide character
(CJK) counts two cells, so a cut name never fills more than its column and
the CLI's columns line up as the app's do.
"""

from __future__ import annotations

import random

from rich.cells import cell_len, set_cell_size

from tui.core.base.vocab import ZoneSource
from tui.core.figures.zones import ZoneCandidate
from tui.core.results.zones import ZonesResult
from tui.report.fit import fit_end, fit_middle, pad_end, tail_cells
from tui.report.text import cut_middle, distinct_cuts
from tui.report.zones import zones_text

WIDE_NAME = "aten::非常に長い演算子の名前_with_a_long_ascii_tail_after_it"


def _characters_end(text: str, width: int) -> str:
    """The CLI's cut at the end before it counted cells."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _characters_middle(text: str, width: int) -> str:
    """The CLI's cut in the middle before it counted cells (two thirds the start)."""
    if len(text) <= width:
        return text
    if width < 8:
        return _characters_end(text, width)
    head = (width - 1) * 2 // 3
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def test_ascii_text_is_cut_as_the_cli_cut_it_by_characters() -> None:
    rng = random.Random(7)
    alphabet = "abcdefghij_:>()[]. 0123456789"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 90)))
        width = rng.randrange(1, 80)
        assert fit_end(text, width) == _characters_end(text, width)
        assert cut_middle(text, width) == _characters_middle(text, width)
        assert pad_end(text, width) == f"{text:<{width}}"


def test_names_that_end_alike_keep_their_distinguishing_end() -> None:
    names = [
        "aten::addmm_with_an_extremely_long_operator_name_that_is_cut_alpha",
        "aten::addmm_with_an_extremely_long_operator_name_that_is_cut_beta",
        "aten::mm",
    ]
    assert distinct_cuts(names, 28) == [
        "aten::addmm_with_a…cut_alpha",
        "aten::addmm_with_a…_cut_beta",
        "aten::mm",
    ]


def test_wide_characters_are_cut_by_the_cells_they_fill() -> None:
    for width in range(1, 70):
        for cut in (
            fit_end(WIDE_NAME, width),
            fit_middle(WIDE_NAME, width),
            cut_middle(WIDE_NAME, width),
        ):
            assert cell_len(cut) <= width
    assert cell_len(fit_end(WIDE_NAME, 28)) == 28
    # Cut by characters, the same name filled 38 cells of a 28-cell column.
    assert cell_len(_characters_end(WIDE_NAME, 28)) > 28


def test_the_cli_columns_line_up_with_wide_names() -> None:
    candidates = [
        ZoneCandidate("lecture_batch_cpu", 5, 1_500_000, "annotation"),
        ZoneCandidate("漢字データ区間", 5, 200_000, "annotation"),
        ZoneCandidate(WIDE_NAME, 5, 150_000, "operator"),
    ]
    result = ZonesResult(("lecture_batch_cpu",), ZoneSource.DEFAULT, candidates)
    rows = [
        line for line in zones_text(result).splitlines() if line.endswith(("µs", "ms"))
    ]
    assert len(rows) == 3
    assert len({cell_len(line) for line in rows}) == 1


def _tail_walked(text: str, width: int) -> str:
    """The last `width` cells, taken a character at a time from the end."""
    taken = ""
    for character in reversed(text):
        if cell_len(taken) + cell_len(character) > width:
            break
        taken = character + taken
    return set_cell_size(taken, width)


def test_the_tail_of_plain_text_is_the_one_walked() -> None:
    """ASCII printable text is cut without a walk: the same cells as walking it."""
    rng = random.Random(7)
    texts = ["", "a", "aten::mm", WIDE_NAME, "tab\there", "x" * 40]
    texts += ["".join(rng.choices("ab:<>_ ,", k=rng.randint(0, 30))) for _ in range(50)]
    for text in texts:
        for width in (-1, 0, 1, 2, 5, 29, 30, 31, 80):
            assert tail_cells(text, width) == _tail_walked(text, width), (text, width)
