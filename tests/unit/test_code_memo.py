"""The cache's code versions remembered by the files' stamps: the same version as
hashing the sources, read without them, and hashed again when a module changes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tui.core.ingest import cache, code_memo
from tui.core.ingest.code_hash import module_sources, source_version

ROOTS = ("ingest", "model/trace.py")


@pytest.fixture
def core(tmp_path: Path) -> Path:
    """A copy of tui/core's sources, a minute old (settled)."""
    source = Path(cache.__file__).parent.parent
    copy = tmp_path / "core"
    old = (1_700_000_000, 1_700_000_000)
    for module in source.rglob("*.py"):
        target = copy / module.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(module.read_bytes())
        os.utime(target, old)
    return copy


def _hashed(core: Path) -> str:
    return source_version(module_sources(core, ROOTS))


def _no_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any) -> Any:
        raise AssertionError("hashed again")

    monkeypatch.setattr(code_memo, "module_sources", refuse)


def test_a_remembered_version_is_the_hashed_one(
    core: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo = tmp_path / "memo.json"
    assert code_memo.remembered_version(core, ROOTS, memo) == _hashed(core)
    _no_hashing(monkeypatch)
    assert code_memo.remembered_version(core, ROOTS, memo) == _hashed(core)


@pytest.mark.parametrize(
    "change",
    ["an edited module", "a new module", "a module imported anew", "a removed module"],
)
def test_a_changed_module_is_hashed_again(
    core: Path, tmp_path: Path, change: str
) -> None:
    memo = tmp_path / "memo.json"
    spare = core / "ingest" / "spare.py"  # imported by none
    spare.write_bytes(b"Y = 2\n")
    os.utime(spare, (1_700_000_000, 1_700_000_000))
    before = code_memo.remembered_version(core, ROOTS, memo)
    if change == "an edited module":
        path = core / "ingest" / "source.py"
        path.write_bytes(path.read_bytes() + b"\n# edited\n")
    elif change == "a new module":
        (core / "ingest" / "decode" / "new_decoder.py").write_bytes(b"X = 1\n")
    elif change == "a module imported anew":
        path = core / "ingest" / "source.py"
        path.write_bytes(path.read_bytes() + b"\nfrom tui.core.base import units\n")
        units = core / "base" / "units.py"
        assert units.exists()
    else:
        spare.unlink()
    after = code_memo.remembered_version(core, ROOTS, memo)
    assert after == _hashed(core) != before


def test_files_edited_a_moment_ago_are_not_remembered(
    core: Path, tmp_path: Path
) -> None:
    (core / "model" / "trace.py").touch()  # modified now: may still be edited
    memo = tmp_path / "memo.json"
    assert code_memo.remembered_version(core, ROOTS, memo) == _hashed(core)
    assert not memo.exists()
