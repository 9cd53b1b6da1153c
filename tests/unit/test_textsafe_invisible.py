"""Invisible format characters in trace names are shown as visible escapes.

Unicode tag characters (U+E0000 block) and every other format character
(category Cf: soft hyphen, Arabic number signs, interlinear annotations, ...)
draw nothing yet occupy a character: left in a name, they hide what it says
and push table columns out of line.
"""

from __future__ import annotations

import functools
import json
import sys
import unicodedata

import pytest
from rich.cells import cell_len

from tui.commands._common import json_bytes
from tui.core.base.textsafe import has_unsafe, printable


@functools.cache
def format_characters() -> list[str]:
    """Every character of category Cf (a walk over all code points: 1 s, so
    made when a test asks, not at collection in every test process)."""
    return [
        chr(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf"
    ]


TAGS = "".join(chr(0xE0000 + ord(letter)) for letter in "evil")


def test_every_format_character_is_escaped() -> None:
    missed = [f"U+{ord(c):04X}" for c in format_characters() if printable(c) == c]
    assert missed == []
    for character in format_characters():
        assert has_unsafe(character)


@pytest.mark.parametrize(
    "name",
    [f"aten::mm{TAGS}", "aten::\u00admm", "a\u0600b", "x\ufff9y\ufffb", "k\U0001d173"],
)
def test_escaped_name_takes_one_cell_per_character(name: str) -> None:
    shown = printable(name)
    assert all(unicodedata.category(c) != "Cf" for c in shown)
    assert cell_len(shown) == len(shown)  # a table column stays in line


def test_tag_escape_names_the_whole_code_point() -> None:
    assert printable("\U000e0041") == "\\U000e0041"


def test_json_output_escapes_them_and_keeps_the_value() -> None:
    value = {"name": f"aten::mm{TAGS}\u00ad"}
    text = json_bytes(value).decode("utf-8")
    assert all(unicodedata.category(c) != "Cf" for c in text)
    assert json.loads(text) == value
