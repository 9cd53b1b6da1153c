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


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """With -n, whole modules go to one worker (`--dist loadfile`) unless
    `--dist` says otherwise: a module's fixtures (torch captures, torchrun
    jobs, scrubbed real traces) run once, and its tests, snapshots included,
    run one after the other as they do without -n. Set here, not in addopts,
    so that `-p no:xdist` still parses. Runs before xdist's own (first too,
    registered earlier), which turns an unset `--dist` into `load`."""
    if (
        config.pluginmanager.hasplugin("xdist")
        and config.getoption("numprocesses", None)
        and config.getoption("dist") == "no"
    ):
        config.option.dist = "loadfile"


def pytest_configure(config: pytest.Config) -> None:
    """Each test process writes pytest's rewritten test modules
    (`__pycache__/*-pytest-*.pyc`, checked against the source's time and size
    when read) even where `PYTHONDONTWRITEBYTECODE` is set: pytest reads that
    cache whatever the setting, but writes it only when `sys.dont_write_bytecode`
    is false, so every worker of every run parsed, rewrote and compiled all the
    test modules again, 8 s of its 17 s collection."""
    import sys

    sys.dont_write_bytecode = False


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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores. A sixth of the suite's time
    is spent waiting (children starting and ending, a Dask cluster's workers
    coming back, lock and timeout bounds, a browser), so on 2 cores two
    workers left the CPU idle 17 % of a 409 s run; three took 380 s. Optional:
    without xdist (`-p no:xdist`) nothing calls it."""
    return _cores() + 1


def _cores() -> int:
    """The cores this process may run on."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def pytest_unconfigure(config: pytest.Config) -> None:
    """At its end, each test process walks its heap once, not five times:
    pytest then collects five times before reporting unraisable exceptions,
    and while the first full collection freed 0.5-1.5 million objects in each
    worker, the four after it freed none, at 0.6-1 s of CPU each, while the
    last workers were finishing. This collection still reports what it frees
    (pytest's hook is in place until after this one); freezing what survives
    leaves pytest's five collections only what came after it."""
    import gc

    gc.collect()
    gc.freeze()


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
