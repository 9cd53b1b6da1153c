"""A served app under abuse: oversized and too many headers, malformed and
oversized WebSocket messages.

Each bad request or message is one line on the server's terminal (never a
traceback); a malformed message is dropped and its session goes on; a resize
is capped as the URL's size is, so a page cannot grow its app without limit.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import WSMsgType

from tests.builders.app_traces import write_training_trace
from tests.cli.test_serve import Served, app_processes, get, serving
from tui.serve.protocol import MAX_CELLS, Malformed, Ping, Resize, Stdin, parse_message
from tui.serve.server import TraceServer

MALFORMED = [
    '["stdin",123]',
    "[]",
    '"stdin"',
    "not json",
    '["resize",{"width":"wide","height":3}]',
    '["resize",{}]',
    '["ping",{"x":1}]',
    '["nope"]',
]


@pytest.fixture
def trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train.json")


# -- messages, parsed ---------------------------------------------------------


def test_messages_the_page_sends_are_parsed() -> None:
    assert parse_message('["stdin","q"]') == Stdin("q")
    assert parse_message('["ping","17"]') == Ping("17")
    assert parse_message('["resize",{"width":120,"height":40}]') == Resize(120, 40)


def test_resize_is_capped_like_the_url() -> None:
    huge = parse_message('["resize",{"width":30000,"height":30000}]')
    assert huge == Resize(MAX_CELLS, MAX_CELLS)
    assert parse_message('["resize",{"width":-5,"height":0}]') == Resize(1, 1)


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_messages_are_refused(text: str) -> None:
    with pytest.raises(Malformed):
        parse_message(text)


class _Message:
    def __init__(self, data: str) -> None:
        self.type = WSMsgType.TEXT
        self.data = data


class _Closed:
    type = WSMsgType.CLOSED
    data = None


class _Socket:
    """What `_process_messages` reads from and answers on: `texts`, each after
    `gap_s`; then closed, or silent for ever with `then_silent`."""

    def __init__(
        self, texts: list[str], *, gap_s: float = 0.0, then_silent: bool = False
    ) -> None:
        self.texts = texts
        self.gap_s = gap_s
        self.then_silent = then_silent
        self.sent: list[Any] = []

    async def receive(self, timeout: float | None = None) -> _Message | _Closed:
        wait = self.gap_s if self.texts else (3600.0 if self.then_silent else 0.0)
        if timeout is not None and wait > timeout:
            await asyncio.sleep(timeout)
            raise asyncio.TimeoutError
        await asyncio.sleep(wait)
        if not self.texts:
            return _Closed()
        return _Message(self.texts.pop(0))

    async def send_json(self, data: Any) -> None:
        self.sent.append(data)


class _Service:
    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []
        self.typed: list[bytes] = []

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.sizes.append((width, height))

    async def send_bytes(self, data: bytes) -> None:
        self.typed.append(data)


def test_the_relay_caps_sizes_and_drops_what_is_malformed() -> None:
    server = TraceServer(["true"], host="127.0.0.1", port=0, token="t", title="x")
    texts = [
        '["resize",{"width":30000,"height":30000}]',
        *MALFORMED,
        '["stdin","q"]',
        '["ping","p"]',
    ]
    websocket, service = _Socket(texts), _Service()
    asyncio.run(server._process_messages(websocket, service))  # type: ignore[arg-type]
    assert service.sizes == [(MAX_CELLS, MAX_CELLS)]
    assert service.typed == [b"q"]
    assert websocket.sent == [["pong", "p"]]


def test_a_session_without_input_ends_and_pings_do_not_keep_it() -> None:
    server = TraceServer(
        ["true"], host="127.0.0.1", port=0, token="t", title="x", idle_timeout_s=0.3
    )
    pings = ['["ping","p"]'] * 40  # one every 0.05 s: 2 s of a tab left open
    websocket, service = _Socket(['["stdin","q"]', *pings], gap_s=0.05), _Service()
    started = time.monotonic()
    asyncio.run(server._process_messages(websocket, service))  # type: ignore[arg-type]
    assert 0.3 <= time.monotonic() - started < 1.0
    assert service.typed == [b"q"]


def test_input_keeps_a_session_going() -> None:
    server = TraceServer(
        ["true"], host="127.0.0.1", port=0, token="t", title="x", idle_timeout_s=0.3
    )
    keys = ['["stdin","j"]'] * 12  # one every 0.1 s: 1.2 s of typing
    websocket, service = _Socket(keys, gap_s=0.1, then_silent=True), _Service()
    started = time.monotonic()
    asyncio.run(server._process_messages(websocket, service))  # type: ignore[arg-type]
    assert time.monotonic() - started >= 1.2 + 0.3
    assert len(service.typed) == 12


def test_sessions_are_capped_at_eight_by_default() -> None:
    server = TraceServer(["true"], host="127.0.0.1", port=0, token="t", title="x")
    assert server.max_sessions == 8 and not server.full


# -- a real server --------------------------------------------------------------


def _raw_request(port: int, headers: list[str]) -> bytes:
    """Send one GET with `headers` as they are; what comes back."""
    request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "".join(
        f"{header}\r\n" for header in headers
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall((request + "\r\n").encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
        return answer


async def _abuse_the_socket(served: Served) -> Any:
    async with aiohttp.ClientSession() as session:
        websocket = await session.ws_connect(served.ws_url(f"&token={served.token}"))
        await websocket.receive(timeout=60)  # the app's first frame
        await websocket.send_str('["resize",{"width":30000,"height":30000}]')
        for text in MALFORMED:
            await websocket.send_str(text)
        await websocket.send_str('["ping","still-here"]')
        while True:
            message = await websocket.receive(timeout=30)
            if message.type == WSMsgType.TEXT:
                answer = json.loads(message.data)
                if answer and answer[0] == "pong":
                    await websocket.close()
                    return answer
            elif message.type != WSMsgType.BINARY:
                return message.type


@pytest.mark.slow
def test_abuse_gets_one_line_each_and_the_session_goes_on(trace: Path) -> None:
    with serving(trace) as served:
        oversized = _raw_request(served.port, ["X-Big: " + "a" * 9000])
        assert oversized.split(b"\r\n", 1)[0].endswith(b" 400 Bad Request")
        many = _raw_request(served.port, [f"X-{n}: v" for n in range(300)])
        assert many.split(b"\r\n", 1)[0].endswith(b" 400 Bad Request")
        assert asyncio.run(_abuse_the_socket(served)) == ["pong", "still-here"]
        served.process.terminate()
        served.process.wait(20)
        assert served.process.stderr is not None
        lines = served.process.stderr.read().splitlines()
    assert not any("Traceback" in line for line in lines), lines
    assert len(lines) == 2 + len(MALFORMED), lines
    assert all(line.startswith("steptrace serve: ") for line in lines), lines
    assert sum("malformed message" in line for line in lines) == len(MALFORMED)


async def _crowd(served: Served, count: int) -> tuple[int, list[int], int]:
    """Open `count` sessions at once: how many got an app, the statuses of the
    refused ones, and the index page's status while they are open."""
    url = served.ws_url(f"&token={served.token}")
    async with aiohttp.ClientSession() as client:

        async def connect() -> Any:
            try:
                return await client.ws_connect(url)
            except aiohttp.WSServerHandshakeError as error:
                return error.status

        outcomes = await asyncio.gather(*(connect() for _ in range(count)))
        sockets = [item for item in outcomes if not isinstance(item, int)]
        for socket in sockets:
            await socket.receive(timeout=60)  # the app's first frame
        apps = len(app_processes(served.process.pid))
        loop = asyncio.get_running_loop()
        status, _, page = await loop.run_in_executor(
            None, get, served, "/", {"Cookie": served.cookie}
        )
        assert b"sessions of this steptrace server are in use" in page
        for socket in sockets:
            await socket.close()
        return apps, [item for item in outcomes if isinstance(item, int)], status


@pytest.mark.slow
def test_connections_past_the_cap_get_a_busy_page_and_no_app(trace: Path) -> None:
    with serving(trace, "--max-sessions", "2") as served:
        apps, refused, index = asyncio.run(_crowd(served, 6))
        assert apps == 2
        assert refused == [503] * 4
        assert index == 503


def test_max_sessions_and_idle_timeout_are_checked(
    trace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli import main

    for option, value in (("--max-sessions", "0"), ("--idle-timeout", "-3")):
        with pytest.raises(SystemExit) as stopped:
            main(["serve", str(trace), option, value])
        assert stopped.value.code == 2
        assert option in capsys.readouterr().err
