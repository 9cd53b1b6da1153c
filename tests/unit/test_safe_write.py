"""One safe way to write a file whole: replacing one (notes) keeps the old file
until the new one is complete, and flushing the folder passes over a
filesystem that refuses it but not a failing disk."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from tui.core.base import safe_write


def test_a_replaced_file_is_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_bytes(b"old")
    path.chmod(0o640)
    safe_write.write_replacing(path, b"new" * 1000)
    assert path.read_bytes() == b"new" * 1000
    assert path.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["notes.json"]


def test_a_failed_replacement_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "notes.json"
    path.write_bytes(b"old")

    def disk_full(fd: int, data: memoryview) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", disk_full)
    with pytest.raises(OSError, match="No space left"):
        safe_write.write_replacing(path, b"new")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["notes.json"]


def test_the_temporary_names_are_the_ones_swept(tmp_path: Path) -> None:
    fd, temporary = safe_write.temporary_sibling(tmp_path / "a.json")
    os.close(fd)
    assert temporary.parent == tmp_path
    assert safe_write.temporary_pattern("a.json").fullmatch(temporary.name)
    assert not safe_write.temporary_pattern("b.json").fullmatch(temporary.name)


@pytest.mark.parametrize("refusal", [errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP])
def test_a_folder_flush_refused_by_the_filesystem_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: int
) -> None:
    def refuse(fd: int) -> None:
        raise OSError(refusal, os.strerror(refusal))

    monkeypatch.setattr(os, "fsync", refuse)
    safe_write.fsync_folder(tmp_path)


def test_a_folder_flush_failing_on_the_disk_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_disk(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing_disk)
    with pytest.raises(OSError, match="Input/output error"):
        safe_write.fsync_folder(tmp_path)
