"""`steptrace serve` leaves no app process behind when it is hung up on or killed.

An SSH disconnect or a closed terminal sends SIGHUP: the server stops as on
SIGTERM, ending its apps (unless started under nohup, which asks to go on
serving after a logout). SIGKILL gives the server no chance to do anything:
each app process was started with a parent-death signal, so the kernel ends it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import psutil
import pytest

from tests.builders.app_traces import write_training_trace
from tests.cli.test_serve import ROOT, Served, _read_line, app_processes, serving

GONE_WITHIN_S = 15.0


@pytest.fixture
def trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train.json")


async def _open_app_then_signal(served: Served, signum: int) -> list[psutil.Process]:
    """Open one session, wait for its app to draw, then send `signum` to the
    server alone (not its group); the app processes that were running."""
    async with aiohttp.ClientSession() as session:
        socket = await session.ws_connect(served.ws_url(f"&token={served.token}"))
        message = await socket.receive(timeout=60)
        assert message.type == aiohttp.WSMsgType.BINARY
        apps = app_processes(served.process.pid)
        assert len(apps) == 1
        os.kill(served.process.pid, signum)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, served.process.wait, 20)
        await socket.close()
        return apps


def _alive(process: psutil.Process) -> bool:
    try:
        return bool(process.is_running()) and bool(
            process.status() != psutil.STATUS_ZOMBIE
        )
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGKILL], ids=["hup", "kill"])
def test_no_app_outlives_its_server(trace: Path, signum: int) -> None:
    with serving(trace) as served:
        apps = asyncio.run(_open_app_then_signal(served, signum))
        deadline = time.monotonic() + GONE_WITHIN_S
        while any(_alive(app) for app in apps) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [app.pid for app in apps if _alive(app)]
        for app in apps:  # never leave one behind, even when the test fails
            if _alive(app):
                app.kill()
        assert left == [], f"app processes outlived the server: {left}"
        if signum == signal.SIGHUP:
            assert served.process.returncode == 0
            assert served.process.stderr is not None
            assert "Traceback" not in served.process.stderr.read()


def _ignore_hangups() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@pytest.mark.slow
def test_under_nohup_a_hangup_is_still_ignored(trace: Path) -> None:
    """`nohup steptrace serve ...` means: keep serving after I log out."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve", str(trace), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        preexec_fn=_ignore_hangups,
    )
    try:
        assert "token=" in _read_line(process, 30)
        os.kill(process.pid, signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(3)
    finally:
        process.terminate()
        process.wait(20)
        if process.stdout is not None:
            process.stdout.close()
