"""Shared test setup: snapshots in top-level `snapshots/<module>/`, the shared
real traces (skipped when absent), and a notes data folder under tmp_path for
tests that must not touch the home folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from syrupy.location import PyTestLocation

from tests import shared_traces as shared

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"


class TopLevelSVGExtension(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    """The plugin's SVG snapshots, kept in `snapshots/<test module>/`."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOTS / test_location.basename)


@pytest.fixture(autouse=True)
def _snapshots_at_top_level(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`snap_compare` picks the extension up by name when the test asks for it."""
    monkeypatch.setattr(
        pytest_textual_snapshot, "SVGImageExtension", TopLevelSVGExtension
    )
    yield


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the project's own modules once, as pip compiles what it installs.

    Where `PYTHONDONTWRITEBYTECODE` is set (it is on the development and CI
    machines), Python never writes bytecode for the editable checkout, so each
    of the hundreds of `python -m tui` children, and each test worker,
    compiled every module it imported from source: tests/cli took 82 s of CPU
    that way and 66 s with bytecode. Bytecode is checked against its source's
    time and size when read, so an edited module is never run stale. The
    xdist controller (or a run without xdist) does it before its workers
    start."""
    import os
    import re

    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import compileall

    root = SNAPSHOTS.parent
    for folder in ("tui", "collector"):
        compileall.compile_dir(root / folder, quiet=2, workers=0)
    # The tests' own helpers (builders, the pilot); test modules are pytest's
    # to rewrite.
    compileall.compile_dir(
        root / "tests", quiet=2, workers=0, rx=re.compile(r"[/\\]test_[^/\\]*\.py$")
    )
    _rewrite_test_modules_once(session.config, root / "tests")


_REWRITING: pytest.Config | None = None


def _rewrite_test_modules_once(config: pytest.Config, tests: Path) -> None:
    """Write pytest's rewritten bytecode of every test module before the
    workers start, so that each reads it instead of rewriting the suite.

    Pytest reads its cache of rewritten modules (`__pycache__/*-pytest-*.pyc`,
    checked against the source's time and size) whatever
    `PYTHONDONTWRITEBYTECODE` says, but writes it only where that is unset:
    every worker parsed, rewrote and compiled all the test modules itself,
    8 s of its 17 s collection. This leans on pytest's private rewriting
    functions; if they move, it does nothing and the workers rewrite as
    before."""
    global _REWRITING
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    needed = ("_read_pyc", "_rewrite_test", "_write_pyc", "get_cache_dir", "PYC_TAIL")
    if config.getoption("assertmode") != "rewrite" or not all(
        hasattr(rewrite, name) for name in needed
    ):
        return
    stale = [
        path
        for path in sorted(tests.rglob("*.py"))
        if (path.name.startswith("test_") or path.name == "conftest.py")
        and rewrite._read_pyc(path, _rewritten_pyc(path), lambda _message: None) is None
    ]
    if not stale:
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _REWRITING = config
    try:
        if "fork" not in multiprocessing.get_all_start_methods():
            for path in stale:
                _rewrite_one(str(path))
            return
        with ProcessPoolExecutor(
            _cores(), mp_context=multiprocessing.get_context("fork")
        ) as pool:
            list(pool.map(_rewrite_one, map(str, stale), chunksize=4))
    finally:
        _REWRITING = None


def _rewritten_pyc(path: Path) -> Path:
    from _pytest.assertion import rewrite

    return rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)


def _rewrite_one(path_text: str) -> None:
    """In a forked child: rewrite one test module as pytest would and cache it."""
    import os

    from _pytest.assertion import rewrite

    assert _REWRITING is not None
    path = Path(path_text)
    state = _REWRITING.stash[rewrite.assertstate_key]
    stat, code = rewrite._rewrite_test(path, _REWRITING)
    pyc = _rewritten_pyc(path)
    os.makedirs(pyc.parent, exist_ok=True)
    rewrite._write_pyc(state, code, stat, pyc)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores. A sixth of the suite's time
    is spent waiting (children starting and ending, a Dask cluster's workers
    coming back, lock and timeout bounds, a browser), so on 2 cores two
    workers left the CPU idle 17 % of a 409 s run; three took 380 s."""
    return _cores() + 1


def _cores() -> int:
    """The cores this process may run on."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def pytest_configure(config: pytest.Config) -> None:
    """At its end, each test process collects its heap once, not five times,
    before reporting unraisable exceptions: the first collection freed
    0.5-1.5 million objects in each worker, the four after it none, at
    0.6-1 s of CPU each, while the last workers were finishing (pytest's
    own tester sets the same stash item). Unraisables are still reported
    after each test."""
    try:
        from _pytest.unraisableexception import gc_collect_iterations_key
    except ImportError:
        return
    config.stash[gc_collect_iterations_key] = 1


def pytest_collection_finish(session: pytest.Session) -> None:
    """Full collections walk every object alive, and a test process holds
    every collected test module besides the one test it runs: 46 full
    collections cost 42 s of CPU over the app and unit tests in one process.
    What collection left is collected once and frozen out of later walks
    (until an app's `heap.release` unfreezes everything), and a full
    collection waits for 100 younger ones instead of 10 (gen1's young
    cycles are still collected as before)."""
    import gc

    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


def _settle_young() -> None:
    """`tui.app.heap.settle` without its full collection: collect the young
    generations, then freeze what lives (see `_app_heap_settles_young`)."""
    import gc

    gc.collect(1)
    gc.freeze()


@pytest.fixture(autouse=True)
def _app_heap_settles_young(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """An app's first paint collects the whole heap once before freezing it
    (`tui.app.heap.settle`): in a test worker that heap holds every collected
    test module too, several times the app's, and that one walk cost 0.5 s of
    CPU per app test (a sixth of the suite's CPU). Tests collect the young
    generations only; the tests of the heap itself (`real_heap`) keep it."""
    if request.node.get_closest_marker("real_heap") is None:
        from tui.app import heap

        monkeypatch.setattr(heap, "settle", _settle_young)
    yield


@pytest.fixture(scope="session")
def shared_traces() -> Path:
    """The shared real traces (`../shared/traces` beside the checkout); a test
    that asks for them is skipped, saying why, when the folder is absent."""
    if not shared.present():
        pytest.skip(shared.ABSENT)
    return shared.FOLDER


@pytest.fixture
def isolated_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Notes fall back to a folder under the test's tmp_path, never to ~."""
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(tmp_path / "steptrace-data"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return tmp_path / "steptrace-data"


@pytest.fixture(autouse=True, scope="session")
def _caches_and_data_off_the_home_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """Column cache entries and fallback notes of the whole run go to a temporary
    folder (children inherit it), never to ~/.cache or ~/.local/share; under
    xdist the workers share the column cache."""
    import os

    saved = {
        name: os.environ.get(name)
        for name in ("STEPTRACE_CACHE_DIR", "STEPTRACE_DATA_DIR")
    }
    cache = tmp_path_factory.mktemp("column-cache")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # One cache for all workers (entries are written temp-then-rename), so
        # a big shared trace is decoded once per run, not once per worker.
        cache = tmp_path_factory.getbasetemp().parent / "column-cache"
        cache.mkdir(exist_ok=True)
    os.environ["STEPTRACE_CACHE_DIR"] = str(cache)
    os.environ["STEPTRACE_DATA_DIR"] = str(tmp_path_factory.mktemp("steptrace-data"))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
