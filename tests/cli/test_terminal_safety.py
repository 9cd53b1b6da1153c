"""Names from a trace never drive the user's terminal, end to end through a real pty.

A trace from a colleague can carry clear-screen, clipboard-writing (OSC 52) or
title-setting sequences, C1 controls and bidi overrides in operator names. The
CLI and the app run here inside a pseudo-terminal, exactly as a user runs
them, and the bytes that reach the terminal are searched for those payloads.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.builders.hostile import (
    LEAK_MARKERS,
    MARKUP_NAMES,
    HostileCase,
    build_corpus,
    isolated_env,
)

REPO = Path(__file__).resolve().parents[2]
COLUMNS, ROWS = 120, 40
# Sequences the app itself never writes: only a trace name could put them there.
APP_PAYLOADS: tuple[bytes, ...] = (
    b"x\x1b[2Jy",
    b"\x1b]52;c;ZXZpbA==",
    b"\x1b]0;pwned",
    b"pwned\x07",
    b"\x9b31m",
    "\u202e".encode(),
    "\x9b".encode(),
)


@pytest.fixture(scope="module")
def payload_cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, HostileCase]:
    """The corpus cases whose names or capture description carry terminal payloads."""
    folder = tmp_path_factory.mktemp("terminal")
    return {
        case.name: case
        for case in build_corpus(folder, large=False)
        if case.terminal_payload
    }


@pytest.fixture(scope="module")
def hostile_names_trace(payload_cases: dict[str, HostileCase]) -> HostileCase:
    """The corpus case whose names and description carry every payload."""
    return payload_cases["hostile-names"]


def run_in_pty(
    args: list[str],
    *,
    keys: Sequence[tuple[float, bytes]] = (),
    keys_after: bytes = b"",
    timeout: float = 30.0,
) -> tuple[int, bytes]:
    """Run `python -m tui ARGS` on a pty of fixed size; all output.

    `keys` are sent at their delays counted from the first time `keys_after`
    is on the terminal (from the start when empty): a key pressed before the
    screen that reads it is up would test nothing on a slow machine.
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLUMNS": str(COLUMNS),
        "LINES": str(ROWS),
        **isolated_env(),
        "PYTHONIOENCODING": "utf-8",
        "LANG": "C.UTF-8",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        env=env,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    output = bytearray()
    started = time.monotonic()
    pending = sorted(keys)
    keys_from: float | None = None if keys_after else started
    try:
        while True:
            now = time.monotonic()
            elapsed = now - started
            if keys_from is None and keys_after in output:
                keys_from = now
            while (
                pending and keys_from is not None and now - keys_from >= pending[0][0]
            ):
                os.write(master, pending.pop(0)[1])
            if elapsed > timeout:
                process.kill()
                pytest.fail(f"{args} did not finish in {timeout} s")
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            elif process.poll() is not None and not pending:
                # Drain what is left, then stop.
                while select.select([master], [], [], 0.2)[0]:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:
                        break
                    if not chunk:
                        break
                    output += chunk
                break
    finally:
        os.close(master)
    status = process.wait(timeout=10)
    return status, bytes(output)


def leaked(output: bytes, markers: tuple[bytes, ...] = LEAK_MARKERS) -> list[bytes]:
    """The payload byte sequences present in what reached the terminal."""
    return [marker for marker in markers if marker in output]


@pytest.mark.parametrize("command", ["summary", "ops", "gaps"])
def test_cli_text_output_is_inert(
    command: str, hostile_names_trace: HostileCase
) -> None:
    """No escape of any kind reaches the terminal from the text commands."""
    status, output = run_in_pty([command, str(hostile_names_trace.path)])
    assert status == 0, output[-2000:]
    assert not leaked(output), output[-3000:]
    assert b"\x1b" not in output, output[-3000:]
    assert b"Traceback" not in output


def test_ops_shows_markup_verbatim(hostile_names_trace: HostileCase) -> None:
    """Markup in names is plain text: printed as written, never a link or an action."""
    status, output = run_in_pty(
        ["ops", "--sort", "name", str(hostile_names_trace.path)]
    )
    assert status == 0
    from tui.report.ops import OPS_NAME_WIDTH

    for name in MARKUP_NAMES:
        # Written as is, whole or cut at its end where the terminal is narrow.
        cut = name[: OPS_NAME_WIDTH - 1] + "…"
        assert name.encode() in output or cut.encode() in output, name
    assert b"\x1b]8;" not in output  # no OSC 8 hyperlink
    # The payloads are shown as visible escapes instead.
    assert b"\\x1b[2J" in output and b"\\u202e" in output


def _json_case(trace: str, command: str) -> Any:
    return pytest.param(trace, command, id=f"{trace}-{command}")


@pytest.mark.parametrize(
    ("trace", "command"),
    [
        _json_case("hostile-names", "summary"),
        _json_case("hostile-names", "ops"),
        _json_case("hostile-names", "gaps"),
        _json_case("hostile-description", "summary"),
        _json_case("raw-control-chars", "ops"),
    ],
)
def test_cli_json_output_is_inert(
    trace: str, command: str, payload_cases: dict[str, HostileCase]
) -> None:
    """`--json` to a terminal: no payload survives the JSON encoder."""
    status, output = run_in_pty([command, "--json", str(payload_cases[trace].path)])
    assert status == 0, output[-2000:]
    assert not leaked(output), leaked(output)


def test_description_text_is_inert(payload_cases: dict[str, HostileCase]) -> None:
    """The capture description (question, why GPU is missing) is shown escaped."""
    status, output = run_in_pty(
        ["summary", str(payload_cases["hostile-description"].path)]
    )
    assert status == 0
    assert not leaked(output), leaked(output)


def test_raw_control_characters_are_inert(
    payload_cases: dict[str, HostileCase],
) -> None:
    """Raw C0 controls written into a name (invalid JSON, read tolerantly) stay visible escapes."""
    for command in ("summary", "ops"):
        status, output = run_in_pty(
            [command, str(payload_cases["raw-control-chars"].path)]
        )
        assert status == 0
        assert b"\\x01" in output or command == "summary"  # shown as text
        assert b"\x01" not in output and b"\x1b" not in output
        assert not leaked(output)


def test_load_error_line_is_inert(tmp_path: Path) -> None:
    """A file name with escapes, refused by the loader, is shown escaped."""
    hostile = tmp_path / "t\x1b]0;pwned\x07\x1b[2J\u202e.json"
    hostile.write_bytes(b"not json")
    status, output = run_in_pty(["summary", str(hostile)])
    assert status == 2
    assert not leaked(output), output


def test_open_missing_path_is_inert(tmp_path: Path) -> None:
    """`steptrace open` on a missing file whose name holds escapes shows them escaped."""
    status, output = run_in_pty(["open", str(tmp_path / "t\x1b]0;pwned\x07.json")])
    assert status == 2
    assert not leaked(output), output


def test_app_never_writes_payloads(hostile_names_trace: HostileCase) -> None:
    """The explorer on the hostile-names trace: its own escapes only, never the payloads."""
    status, output = run_in_pty(
        ["open", str(hostile_names_trace.path)],
        keys=[(1.0, b"q"), (3.0, b"q"), (5.0, b"\x03")],
        keys_after=b"Operator (",  # the main screen's table is drawn
        timeout=90.0,
    )
    assert len(output) > 1000, output  # it really drew something
    found = leaked(output, APP_PAYLOADS)
    assert not found, found
    assert b"Traceback" not in output
    assert status in (0, 130, -2), output[-2000:]
