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
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import WSMsgType

from tests.builders.app_traces import write_training_trace
from tests.cli.test_serve import Served, serving
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


class _Socket:
    """What `_process_messages` reads from and answers on."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.sent: list[Any] = []

    def __aiter__(self) -> _Socket:
        return self

    async def __anext__(self) -> _Message:
        if not self.texts:
            raise StopAsyncIteration
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
