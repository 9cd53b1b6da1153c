"""Make untrusted trace text safe to show in a terminal.

Trace strings and notes come from other people's files. Control characters
(ESC, CSI, OSC, C1), bidi overrides, zero-width characters and every other
invisible format character (Unicode category Cf, the tag characters of the
U+E0000 block among them) are turned into visible escapes, so that nothing from
a trace can drive the user's terminal, hide what a name really says or take a
character without a cell and push a table's columns out of line.
"""

from __future__ import annotations

import re

# Every format character (category Cf) of Unicode 15 but those in the ranges
# below it already: soft hyphen, Arabic and Syriac number signs, Mongolian
# vowel separator, invisible operators, interlinear annotations, Kaithi and
# Egyptian format controls, shorthand format controls, musical symbol
# formatting, and the tag block U+E0000-U+E007F (all of it, assigned or not).
_FORMAT = (
    "\u00ad\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u2060-\u2064\u2066-\u206f\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)
# DEL, C1 controls, bidi embeddings/overrides/isolates and marks, zero-width
# characters, line/paragraph separators, BOM, lone surrogates, format characters.
_BEYOND_C0 = (
    "\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff"
    + _FORMAT
)
# The same set with the C0 controls.
UNSAFE_CHARACTERS = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
# Less C0 controls: JSON encoders already escape those inside strings, and the
# newlines between JSON tokens must stay.
UNSAFE_BEYOND_C0 = re.compile(f"[{_BEYOND_C0}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def json_escape(match: re.Match[str]) -> str:
    """A matched character as a JSON `\\u` escape (a surrogate pair above U+FFFF),
    which leaves the JSON value unchanged."""
    code = ord(match.group(0))
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def printable(text: str) -> str:
    """Return `text` with every unsafe character shown as a visible escape."""
    if UNSAFE_CHARACTERS.search(text) is None:
        return text
    return UNSAFE_CHARACTERS.sub(_escape, text)


def has_unsafe(text: str) -> bool:
    """Whether `text` holds a character that `printable` would escape."""
    return UNSAFE_CHARACTERS.search(text) is not None
