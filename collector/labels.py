"""Checks on zone names, because labels travel with the trace.

A trace is shared; a zone name that carries an e-mail address, a secret, a
home path or a piece of input ends up in every copy. These checks warn, they
do not refuse: the user decides, knowing.
"""

from __future__ import annotations

import re

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_SECRET_WORD = re.compile(
    r"(?<![a-z])(password|passwd|passphrase|secret|token|api[_-]?key|apikey|bearer|credential|"
    r"private[_-]?key|access[_-]?key|auth)(?![a-z])",
    re.IGNORECASE,
)
_TOKEN_PREFIX = re.compile(
    r"(ghp_|gho_|ghs_|github_pat_|glpat-|sk-[A-Za-z0-9]|sk_live_|rk_live_|xox[abprs]-|"
    r"AKIA[0-9A-Z]{12}|hf_[A-Za-z0-9]{12}|eyJ[A-Za-z0-9_-]{8,}\.)"
)
_LONG_RUN = re.compile(r"[A-Za-z0-9_+/=-]{24,}")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")
_HOME_PATH = re.compile(
    r"(/home/[^/\s]+|/Users/[^/\s]+|/root(/|$)|(^|[\s=:])~/|[A-Za-z]:\\Users\\)"
)
_LONGEST_PLAIN_LABEL = 80
_MOST_WORDS = 6


def _looks_random(run: str) -> bool:
    """A long run mixing lower case, upper case and digits reads like a key, not a name."""
    return (
        any(c.islower() for c in run)
        and any(c.isupper() for c in run)
        and any(c.isdigit() for c in run)
    )


def label_problems(name: str) -> list[str]:
    """What a zone name seems to carry that should not travel; empty when it looks like a plain label.

    The messages never repeat the name, so they can be stored in the trace itself.
    """
    problems: list[str] = []
    if _EMAIL.search(name):
        problems.append("looks like it holds an e-mail address")
    if (
        _SECRET_WORD.search(name)
        or _TOKEN_PREFIX.search(name)
        or _HEX_RUN.search(name)
        or any(_looks_random(run) for run in _LONG_RUN.findall(name))
    ):
        problems.append("looks like it holds a token or secret")
    if _HOME_PATH.search(name):
        problems.append("holds a home-folder path")
    if (
        len(name) > _LONGEST_PLAIN_LABEL
        or len(name.split()) > _MOST_WORDS
        or any(not char.isprintable() for char in name)
        or any(quote in name for quote in "\"'`")
    ):
        problems.append("looks like input content rather than a label")
    return problems
