"""`steptrace serve`: the address rules, the token on every request and
WebSocket, one app process per connection, and Ctrl+C leaving none behind.

Servers run as real subprocesses on a free loopback port (`--port 0`); HTTP
goes through http.client (no redirect or cookie magic), WebSockets through
aiohttp, which textual-serve brings.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import psutil
import pytest

from tests.builders.app_traces import write_training_trace
from tui.cli import main
from tui.commands.serve import is_loopback, ready_line
from tui.serve.auth import cookie_name, new_token, token_matches

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(r"at (http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)) ")


@dataclass
class Served:
    """A running `steptrace serve` and what its one line said."""

    process: subprocess.Popen[str]
    line: str
    url: str
    port: int
    token: str

    @property
    def cookie(self) -> str:
        return f"{cookie_name(self.port)}={self.token}"

    def ws_url(self, query: str = "") -> str:
        return f"ws://127.0.0.1:{self.port}/ws?width=100&height=30{query}"


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    if not selector.select(timeout):
        raise AssertionError(f"steptrace serve printed nothing in {timeout} s")
    return process.stdout.readline()


def app_processes(server_pid: int) -> list[psutil.Process]:
    """The app processes (`steptrace open --served`) the server started."""
    try:
        children = psutil.Process(server_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for child in children:
        try:
            if "--served" in child.cmdline():
                found.append(child)
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
    return found


@contextmanager
def serving(trace: Path, *extra: str) -> Iterator[Served]:
    """Start `steptrace serve TRACE --port 0` in its own session; stop it after."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve", str(trace), "--port", "0", *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    started: list[psutil.Process] = []
    try:
        line = _read_line(process, 30)
        match = URL_LINE.search(line)
        assert match, line
        yield Served(process, line, match[1], int(match[2]), match[3])
    finally:
        started = app_processes(process.pid)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)
        for leftover in started:
            if leftover.is_running():
                leftover.kill()
        if process.stdout is not None:
            process.stdout.close()
        if process.stderr is not None:
            process.stderr.close()


def get(
    served: Served, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP GET: status, headers (lower-case names), body."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return (
            response.status,
            {name.lower(): value for name, value in response.getheaders()},
            response.read(),
        )
    finally:
        connection.close()


@pytest.fixture
def trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train.json")


# -- the command line ---------------------------------------------------------


def test_token_has_at_least_128_bits_and_compares_exactly() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    for token in tokens:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", token)
        assert len(token) * 6 >= 128  # URL-safe base64: 6 bits a character
        assert token_matches(token, token)
        assert not token_matches(token[:-1], token)
        assert not token_matches(token + "x", token)
        assert not token_matches("é" + token[1:], token)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.3.4.5", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.1.2.3", False),
        ("gpu-box.example.com", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_one_line_names_url_token_and_tunnel(trace: Path) -> None:
    line = ready_line(trace, "127.0.0.1", 8123, "TOKEN")
    assert "\n" not in line
    assert "http://127.0.0.1:8123/?token=TOKEN" in line
    assert "ssh -L 8123:127.0.0.1:8123 " in line


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::"])
def test_other_host_needs_public(
    trace: Path, host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(trace), "--host", host, "--port", "0"]) == 2
    captured = capsys.readouterr()
    assert "--public" in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.out == ""


def test_public_host_warns(trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 192.0.2.1 (TEST-NET-1) is on no interface: the warning comes, then the
    # bind fails, so nothing is ever served here.
    status = main(
        ["serve", str(trace), "--host", "192.0.2.1", "--public", "--port", "0"]
    )
    captured = capsys.readouterr()
    assert status == 2
    assert "warning" in captured.err and "not loopback" in captured.err
    assert "cannot listen on 192.0.2.1" in captured.err
    assert captured.out == ""


def test_folder_and_missing_file_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(tmp_path)]) == 2
    folder_error = capsys.readouterr().err
    assert "is a folder" in folder_error
    assert len(folder_error.strip().splitlines()) == 1
    assert main(["serve", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_port_in_use_is_one_line(
    trace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", str(trace), "--port", str(port)]) == 2
    error = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in error
    assert len(error.strip().splitlines()) == 1


def test_other_commands_never_import_textual_serve(trace: Path) -> None:
    code = (
        "import sys\n"
        "from tui.cli import main\n"
        f"status = main(['summary', {str(trace)!r}, '--json'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = result.stdout.strip().splitlines()[-1]
    assert "'tui'" in loaded
    for package in ("textual_serve", "aiohttp", "textual"):
        assert f"'{package}'" not in loaded


def test_the_server_imports_no_torch_and_no_textual() -> None:
    code = (
        "import sys\n"
        "import tui.commands.serve, tui.serve.server\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = result.stdout.strip().splitlines()[-1]
    assert "'textual_serve'" in loaded
    assert "'torch'" not in loaded and "'textual'" not in loaded


# -- the token ------------------------------------------------------------------

UNAUTHORISED_PATHS = [
    "/",
    "/?token=",
    "/ws",
    "/static/js/textual.js",
    "/static/css/xterm.css",
    "/static/",
    "/download/abc",
    "/no/such/page",
]


def _assert_bare_403(status: int, headers: dict[str, str], body: bytes) -> None:
    assert status == 403
    assert body == b"Forbidden\n"
    assert "server" not in headers
    assert "set-cookie" not in headers
    blob = (json.dumps(headers) + body.decode()).lower()
    for hint in ("steptrace", "textual", "aiohttp", "python"):
        assert hint not in blob


async def _ws_status(url: str, headers: dict[str, str]) -> int:
    """The HTTP status a WebSocket handshake gets (101 when it opens)."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers) as socket:
                await socket.close()
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


@pytest.mark.slow
def test_requests_and_websockets_without_the_token_get_403(trace: Path) -> None:
    with serving(trace) as served:
        wrong = served.token[:-1] + ("A" if served.token[-1] != "A" else "B")
        wrong_cookie = f"{cookie_name(served.port)}={wrong}"
        for path in UNAUTHORISED_PATHS:
            _assert_bare_403(*get(served, path))
            _assert_bare_403(*get(served, f"{path}?token={wrong}"))
            _assert_bare_403(*get(served, path, {"Cookie": wrong_cookie}))
        # Another port's cookie is not this server's.
        other = f"{cookie_name(served.port + 1)}={served.token}"
        _assert_bare_403(*get(served, "/static/js/textual.js", {"Cookie": other}))

        # WebSocket handshakes: no token, a wrong one, or the right one sent
        # by a page of another origin (another port of this host) are refused.
        refused = [
            (served.ws_url(), {}),
            (served.ws_url(f"&token={wrong}"), {}),
            (served.ws_url(), {"Cookie": wrong_cookie}),
            (
                served.ws_url(),
                {"Cookie": served.cookie, "Origin": "http://127.0.0.1:1"},
            ),
            (served.ws_url(), {"Cookie": served.cookie, "Origin": "null"}),
        ]
        for url, headers in refused:
            assert asyncio.run(_ws_status(url, headers)) == 403, (url, headers)
        assert not app_processes(served.process.pid)

        # The printed URL: a redirect that sets the cookie and drops the token.
        status, headers, _ = get(served, f"/?token={served.token}&fontsize=14")
        assert status == 303
        assert headers["location"] == "/?fontsize=14"
        cookie = headers["set-cookie"]
        assert cookie.startswith(served.cookie + ";")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert "Path=/" in cookie
        assert "Max-Age" not in cookie and "expires" not in cookie.lower()

        # With the cookie: the page, its assets, and a socket from its own origin.
        status, headers, page = get(served, "/", {"Cookie": served.cookie})
        assert status == 200 and b'id="terminal"' in page
        assert b"googleapis" not in page  # nothing asked of another host
        assert headers["referrer-policy"] == "no-referrer"
        for asset in ("/static/js/textual.js", "/static/css/xterm.css"):
            assert get(served, asset, {"Cookie": served.cookie})[0] == 200
        origin = f"http://127.0.0.1:{served.port}"
        headers = {"Cookie": served.cookie, "Origin": origin}
        assert asyncio.run(_ws_status(served.ws_url(), headers)) == 101


# -- processes ----------------------------------------------------------------


async def _open_sessions_then_interrupt(served: Served, count: int) -> list[int]:
    """Open `count` sessions, wait for each app to draw, then Ctrl+C the server;
    the pids of the app processes that were running."""
    async with aiohttp.ClientSession() as session:
        sockets = [
            await session.ws_connect(served.ws_url(f"&token={served.token}"))
            for _ in range(count)
        ]
        for socket in sockets:
            message = await socket.receive(timeout=60)
            assert message.type == aiohttp.WSMsgType.BINARY
        apps = app_processes(served.process.pid)
        assert len(apps) == count, [app.cmdline() for app in apps]
        assert len({app.pid for app in apps}) == count
        # Ctrl+C in a terminal signals the whole foreground process group.
        os.killpg(served.process.pid, signal.SIGINT)
        loop = asyncio.get_running_loop()
        status = await loop.run_in_executor(None, served.process.wait, 20)
        assert status == 0
        ends = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        for socket in sockets:
            while (await socket.receive(timeout=10)).type not in ends:
                pass  # what the app drew before it ended
        return [app.pid for app in apps]


@pytest.mark.slow
def test_each_connection_gets_an_app_and_ctrl_c_ends_them_all(trace: Path) -> None:
    with serving(trace) as served:
        started = time.monotonic()
        pids = asyncio.run(_open_sessions_then_interrupt(served, 2))
        assert time.monotonic() - started < 60
        assert served.process.stderr is not None
        errors = served.process.stderr.read()
    assert "Traceback" not in errors, errors
    for pid in pids:
        assert not psutil.pid_exists(pid) or (
            psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        ), f"app process {pid} outlived the server"
    assert _processes_on(trace) == []


def _processes_on(trace: Path) -> list[int]:
    """Every process whose command line names `trace` (the served apps)."""
    return [
        process.pid
        for process in psutil.process_iter(["cmdline"])
        if str(trace) in " ".join(process.info["cmdline"] or [])
    ]


async def _connect_then_interrupt_at_once(served: Served) -> int:
    async with aiohttp.ClientSession() as session:
        socket = await session.ws_connect(served.ws_url(f"&token={served.token}"))
        os.killpg(served.process.pid, signal.SIGINT)  # the app is still starting
        loop = asyncio.get_running_loop()
        status: int = await loop.run_in_executor(None, served.process.wait, 30)
        await socket.close()
        return status


@pytest.mark.slow
def test_ctrl_c_while_an_app_starts_leaves_none(trace: Path) -> None:
    with serving(trace) as served:
        assert asyncio.run(_connect_then_interrupt_at_once(served)) == 0
    assert _processes_on(trace) == []
