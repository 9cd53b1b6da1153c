"""Make untrusted trace text safe to show in a terminal.

Trace strings and notes come from other people's files. Control characters
(ESC, CSI, OSC, C1), bidi overrides and zero-width characters are turned into
visible escapes so that nothing from a trace can drive the user's terminal or
hide what a name really says.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, bidi embeddings/overrides/isolates and marks,
# zero-width characters, line/paragraph separators, BOM, lone surrogates.
UNSAFE_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)


# The same set less C0 controls: JSON encoders already escape those inside
# strings, and the newlines between JSON tokens must stay.
UNSAFE_BEYOND_C0 = re.compile(
    "[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def printable(text: str) -> str:
    """Return `text` with every unsafe character shown as a visible escape."""
    if UNSAFE_CHARACTERS.search(text) is None:
        return text
    return UNSAFE_CHARACTERS.sub(_escape, text)


def has_unsafe(text: str) -> bool:
    """Whether `text` holds a character that `printable` would escape."""
    return UNSAFE_CHARACTERS.search(text) is not None
