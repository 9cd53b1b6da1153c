"""Where the shared real traces are: `../shared/traces`, beside the checkout.

One place computes the folder; the `shared_traces` fixture (tests/conftest.py)
skips a test, saying why, when the folder is absent. Lists built at collection
(for parametrize) hold one placeholder when the folder is absent, so the test
is still collected and its fixture skips it with that reason instead of an
empty parameter set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
ABSENT = "the shared real traces are absent: no ../shared/traces beside the checkout"


def present() -> bool:
    """Whether the folder is there (read at collection and by the fixture)."""
    return FOLDER.is_dir()


def paths(
    pattern: str = "*.json*", keep: Callable[[Path], bool] = lambda path: True
) -> list[Path]:
    """The shared traces matching `pattern` that `keep` keeps, sorted; one
    placeholder when the folder is absent."""
    if not present():
        return [FOLDER / "absent.json"]
    return sorted(path for path in FOLDER.glob(pattern) if keep(path))


def names(
    pattern: str = "*.json*", keep: Callable[[Path], bool] = lambda path: True
) -> list[str]:
    """The file names of `paths(pattern, keep)`."""
    return [path.name for path in paths(pattern, keep)]
