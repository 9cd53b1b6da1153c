"""The column cache reopens a trace with the same figures, and misses when the file changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.core.base.vocab import CacheUse
from tui.core.figures.analysis import Analysis
from tui.core.ingest import cache, code_hash
from tui.core.ingest.load import load_trace
from tui.core.results import GapsResult, SummaryResult


def test_reopened_trace_gives_identical_figures(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_trace(
        tmp_path / "t.json",
        metadata() + training_step_events(1, 0) + training_step_events(2, 1000),
    )
    parsed = load_trace(path, cache=CacheUse.ON)
    reopened = cache.load(path)
    assert reopened is not None
    assert cache.is_mapped(reopened.start_ns)
    for column in (
        "start_ns",
        "duration_ns",
        "track",
        "name_id",
        "kind",
        "correlation",
        "external_id",
        "stream_arg",
    ):
        assert np.array_equal(getattr(parsed, column), getattr(reopened, column)), (
            column
        )
    assert reopened.event_args(0) == parsed.event_args(0)
    first, second = (
        SummaryResult.of(Analysis(parsed)).to_json(),
        SummaryResult.of(Analysis(reopened)).to_json(),
    )
    assert first == second
    assert (
        GapsResult.of(Analysis(parsed)).to_json()
        == GapsResult.of(Analysis(reopened)).to_json()
    )
    # load_trace takes the cached entry, asked by the word or by its text.
    assert cache.is_mapped(load_trace(path, cache=CacheUse.AUTO).start_ns)
    assert cache.is_mapped(load_trace(path, cache="auto").start_ns)  # type: ignore[arg-type]


def test_a_misspelt_cache_use_is_an_error(tmp_path: Path, cache_dir: Path) -> None:
    """Not a silent cache: a misspelt "off" is refused, never read as "on"."""
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    with pytest.raises(ValueError, match="'of'"):
        load_trace(path, cache="of")  # type: ignore[arg-type]
    assert not cache_dir.exists()


def test_a_changed_file_misses(tmp_path: Path, cache_dir: Path) -> None:
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    load_trace(path, cache=CacheUse.ON)
    write_trace(
        path, metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    )
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache.load(path) is None
    assert len(Analysis(load_trace(path, cache=CacheUse.AUTO)).steps) == 2


def test_unwritable_cache_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(blocker / "cache"))
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    assert load_trace(path, cache=CacheUse.ON).event_count == 14


def test_off_by_default_and_by_environment(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    load_trace(path)
    assert not cache_dir.exists()
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    load_trace(path, cache=CacheUse.ON)
    assert not cache_dir.exists()


def _core_copy(tmp_path: Path) -> Path:
    """A copy of tui/core's sources, to change as a new loader would."""
    source = Path(cache.__file__).parent.parent
    copy = tmp_path / "core"
    for module in source.rglob("*.py"):
        target = copy / module.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(module.read_bytes())
    return copy


def test_code_version_hashes_the_real_loader_sources(tmp_path: Path) -> None:
    assert (
        code_hash.source_version(cache.builder_sources(_core_copy(tmp_path)))
        == cache.code_version()
    )


@pytest.mark.parametrize(
    "module",
    [
        "ingest/source",
        "ingest/decode/document",
        "ingest/assemble/assembler",
        "base/numbers",
        "model/trace",
        "ingest/cache",
        "ingest/load",
    ],
)
def test_the_key_moves_when_the_loader_changes(tmp_path: Path, module: str) -> None:
    core = _core_copy(tmp_path)
    before = code_hash.source_version(cache.builder_sources(core))
    changed = core / f"{module}.py"
    changed.write_bytes(changed.read_bytes().replace(b"\n", b"\n ", 1))
    assert code_hash.source_version(cache.builder_sources(core)) != before


@pytest.mark.parametrize(
    "new_file",
    ["ingest/decode/fast.py", "ingest/streaming.py", "ingest/parallel/pool/worker.py"],
)
def test_a_new_decoding_module_moves_the_key(tmp_path: Path, new_file: str) -> None:
    core = _core_copy(tmp_path)
    before = code_hash.source_version(cache.builder_sources(core))
    added = core / new_file
    added.parent.mkdir(exist_ok=True)
    added.write_text("CHUNK = 1\n")
    after = code_hash.source_version(cache.builder_sources(core))
    assert after != before
    added.write_text("CHUNK = 2\n")
    assert code_hash.source_version(cache.builder_sources(core)) != after


def test_a_module_the_loader_starts_importing_moves_the_key(tmp_path: Path) -> None:
    core = _core_copy(tmp_path)
    (core / "base" / "helper.py").write_text("SCALE = 1000\n")
    before = code_hash.source_version(cache.builder_sources(core))
    (core / "base" / "helper.py").write_text("SCALE = 1024\n")
    assert (
        code_hash.source_version(cache.builder_sources(core)) == before
    )  # not used yet
    build = core / "ingest" / "assemble" / "assembler.py"
    build.write_bytes(
        b"from tui.core.base import (\n    helper,  # new\n)\n" + build.read_bytes()
    )
    used = code_hash.source_version(cache.builder_sources(core))
    (core / "base" / "helper.py").write_text("SCALE = 1000\n")
    assert code_hash.source_version(cache.builder_sources(core)) != used


def test_a_missing_loader_source_fails_instead_of_hashing_less(
    tmp_path: Path,
) -> None:
    core = _core_copy(tmp_path)
    (core / "ingest" / "assemble" / "assembler.py").unlink()
    with pytest.raises(OSError):
        cache.builder_sources(core)


def test_every_module_the_loader_imports_is_hashed() -> None:
    """A tui.core module that building columns imports must be hashed with BUILDER_ROOTS."""
    probe = (
        "import sys, tui.core.ingest.load, tui.core.ingest.cache\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('tui.core.'))))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout.split()
    hashed = {
        name for name, _ in cache.builder_sources(Path(cache.__file__).parent.parent)
    }
    assert imported
    missing = [
        m
        for m in imported
        if not {
            f"{m.removeprefix('tui.core.').replace('.', '/')}.py",
            f"{m.removeprefix('tui.core.').replace('.', '/')}/__init__.py",
        }
        & hashed
    ]
    assert missing == []


def test_code_version_is_computed_once_without_importing_the_loader() -> None:
    probe = (
        "import sys, tui.core.ingest.cache as c\n"
        "first = c.code_version(); second = c.code_version()\n"
        "print(first == second, c.code_version.cache_info().misses,"
        " 'tui.core.ingest.assemble.assembler' in sys.modules, 'tui.core.ingest.decode.document' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout.split()
    assert result == ["True", "1", "False", "False"]


def test_an_entry_from_another_loader_is_a_miss_never_its_figures(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_trace(
        tmp_path / "t.json",
        metadata() + training_step_events(1, 0) + training_step_events(2, 1000),
    )
    expected = SummaryResult.of(Analysis(load_trace(path))).to_json()
    monkeypatch.setattr(cache, "code_version", lambda: "old-loader")
    # The old loader's figures were wrong: every event 1 µs late.
    wrong = load_trace(path)
    wrong.start_ns = wrong.start_ns + 1000
    assert cache.save(wrong) is not None
    assert cache.load(path) is not None  # the old loader would take it back
    monkeypatch.setattr(cache, "code_version", lambda: "new-loader")
    assert cache.load(path) is None
    reopened = load_trace(path, cache=CacheUse.AUTO)
    assert not cache.is_mapped(reopened.start_ns)
    assert SummaryResult.of(Analysis(reopened)).to_json() == expected
