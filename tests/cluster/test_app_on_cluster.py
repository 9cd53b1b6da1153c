"""`steptrace open DIR --cluster ADDRESS` and `serve DIR --cluster ADDRESS`: the ranks
screen from summaries computed on a real Dask cluster, as the local pool's."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_app_ranks import ARRIVALS, settle_on
from tests.builders.runs import write_run
from tui.app.app import StepTraceApp
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.ranks import RanksScreen
from tui.cli import build_parser
from tui.core.runs import pool as local_pool
from tui.core.runs import read_run
from tui.serve.server import app_argv


@pytest.fixture
def run_folder(
    tmp_path: Path, isolated_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    return write_run(tmp_path / "run", ARRIVALS, world_size=4)


def ranks_screen_of(app: StepTraceApp) -> RanksScreen:
    async def walk() -> RanksScreen:
        app.animation_level = "none"
        async with app.run_test(size=(100, 30)) as pilot:
            return await settle_on(pilot, RanksScreen)

    return asyncio.run(walk())


def test_the_app_reads_a_run_on_the_cluster(
    dask_cluster: Any, run_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = read_run(run_folder, workers=1)

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a rank was summarised on this machine")

    monkeypatch.setattr(local_pool, "_summarise_here", refuse)
    monkeypatch.setattr(local_pool, "_summarise_in_pool", refuse)
    app = StepTraceApp(run_folder, rank_cluster=dask_cluster.scheduler_address)
    screen = ranks_screen_of(app)
    assert [row.summary for row in screen.run.ranks] == [
        row.summary for row in local.ranks
    ]


def test_an_unreachable_scheduler_is_the_apps_load_error(run_folder: Path) -> None:
    pytest.importorskip("distributed", reason="needs the cluster extra")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"

    async def walk(app: StepTraceApp) -> str:
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(400):
                await pilot.pause(0.05)
                if isinstance(app.screen, LoadErrorScreen):
                    return app.screen.reason
        return "still loading"

    reason = asyncio.run(walk(StepTraceApp(run_folder, rank_cluster=address)))
    assert reason.startswith(f"no Dask scheduler answered at {address}"), reason


def test_open_and_serve_take_the_option(run_folder: Path) -> None:
    address = "tcp://10.0.0.1:8786"
    for words in (["open", str(run_folder)], ["serve", str(run_folder)]):
        args = build_parser(words[0]).parse_args([*words, "--cluster", address])
        assert args.cluster == address
    argv = app_argv(run_folder, allow_capture=False, cluster=address)
    assert argv[-4:] == ["--cluster", address, "--", str(run_folder)]
    assert "--cluster" not in app_argv(run_folder, allow_capture=False)
