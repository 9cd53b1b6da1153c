"""torch's native log lines kept out of the terminal (issue 23, item 19); torch-free."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import orjson
import pytest

from collector.native_log import NativeLog
from tui.cli import main

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
