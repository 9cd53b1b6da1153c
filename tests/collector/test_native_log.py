"""torch's native log lines kept out of the terminal; torch-free."""

from __future__ import annotations

import faulthandler
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from collector.native_log import NativeLog
from tui.cli import main

REPO = Path(__file__).resolve().parents[2]
USDT = b"USDT:2026-12-02 00:07:54 25260:25260 SyncActivityProfilerHandler.cpp:52] profiler_start"
WARNING = b"WARNING:2026-12-02 00:07:54 25260:25260 CuptiActivityApi.cpp:80] no CUPTI"


def test_routine_lines_are_kept_and_the_rest_shown_in_order(
    capfd: pytest.CaptureFixture[str],
) -> None:
    log = NativeLog()
    with log.catching():
        os.write(2, USDT + b"\n")
        print("steptrace: wrote x.json", file=sys.stderr)
        os.write(2, WARNING + b"\nsomething else\n")
        os.write(2, b"a line without its end")
    assert capfd.readouterr().err == (
        f"steptrace: wrote x.json\n{WARNING.decode()}\nsomething else\n"
        "a line without its end\n"
    )
    assert log.take() == {"USDT": [USDT.decode()]}
    assert log.take() == {}
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


def test_the_lines_kept_in_a_trace_are_scrubbed_as_a_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.json"
    document = {"traceEvents": [], "USDT": [USDT.decode()]}
    path.write_bytes(orjson.dumps(document))
    assert main(["scrub", str(path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "log" in out and "unknown-key" not in out


CRASH_WHILE_CATCHING = """
import faulthandler, os, sys
from collector.native_log import NativeLog
if sys.argv[1] == "on":
    faulthandler.enable()
log = NativeLog()
with log.catching():
    os.abort()  # as torch's C++ does when an exception reaches a thread's end
"""


@pytest.mark.parametrize("before", ["on", "off"])
def test_a_crash_while_catching_still_says_where_on_the_terminal(before: str) -> None:
    """A process torch aborts inside the profiler dies with descriptor 2 sent
    to a file that goes with it: the fault handler writes to the terminal."""
    completed = subprocess.run(
        [sys.executable, "-c", CRASH_WHILE_CATCHING, before],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
        check=False,
    )
    assert completed.returncode < 0
    assert "Fatal Python error: Aborted" in completed.stderr, completed.stderr
    assert 'File "<string>", line 8' in completed.stderr, completed.stderr


@pytest.mark.parametrize("before", [True, False])
def test_catching_leaves_the_fault_handler_as_it_found_it(before: bool) -> None:
    was = faulthandler.is_enabled()
    try:
        if before:
            faulthandler.enable()
        else:
            faulthandler.disable()
        with NativeLog().catching():
            assert faulthandler.is_enabled()
        assert faulthandler.is_enabled() == before
    finally:
        if was:
            faulthandler.enable()
        else:
            faulthandler.disable()
