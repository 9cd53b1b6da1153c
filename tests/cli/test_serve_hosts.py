"""`steptrace serve` on other addresses: the SSH hint that reaches them, the
Host header checked, and TLS for a public server.

A server on ::1 or 127.0.0.2 printed `ssh -L P:127.0.0.1:P`, a tunnel to an
address it does not listen on. Any Host header was let in (the token stopped a
DNS-rebinding page anyway; the Host is checked too). With --public the token
travelled over plain HTTP without a word of it; --certfile/--keyfile serve TLS.
"""

from __future__ import annotations

import http.client
import re
import shutil
import ssl
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.builders.app_traces import write_training_trace
from tests.cli.test_serve import ROOT, _read_line
from tui.cli import main
from tui.commands.serve import ready_line
from tui.serve.hosts import host_allowed

ANY_URL = re.compile(r"at (https?)://(\S+?):(\d+)/\?token=([A-Za-z0-9_-]+) ")


@pytest.fixture
def trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train.json")


# -- the hint -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "url", "tunnel"),
    [
        ("127.0.0.1", "http://127.0.0.1:8123/", "ssh -L 8123:127.0.0.1:8123 "),
        ("127.0.0.2", "http://127.0.0.2:8123/", "ssh -L 8123:127.0.0.2:8123 "),
        ("::1", "http://[::1]:8123/", "ssh -L 8123:[::1]:8123 "),
        ("localhost", "http://localhost:8123/", "ssh -L 8123:localhost:8123 "),
    ],
)
def test_the_tunnel_reaches_the_address_listened_on(
    trace: Path, host: str, url: str, tunnel: str
) -> None:
    line = ready_line(trace, host, 8123, "TOKEN")
    assert url + "?token=TOKEN" in line
    assert tunnel in line


# -- the Host header --------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "bound", "public", "allowed"),
    [
        ("127.0.0.1:8000", "127.0.0.1", False, True),
        ("localhost:9000", "127.0.0.1", False, True),  # ssh -L 9000:...
        ("LOCALHOST", "127.0.0.1", False, True),
        ("[::1]:8000", "127.0.0.1", False, True),
        ("127.0.0.2:8000", "127.0.0.2", False, True),
        ("app.localhost:8000", "127.0.0.1", False, True),
        ("evil.com", "127.0.0.1", False, False),
        ("evil.com:8000", "127.0.0.1", False, False),
        ("10.1.2.3:8000", "127.0.0.1", False, False),
        ("", "127.0.0.1", False, False),
        ("[::1", "127.0.0.1", False, False),
        ("10.1.2.3:8000", "10.1.2.3", True, True),
        ("evil.com", "10.1.2.3", True, False),
        ("192.168.7.7:8000", "0.0.0.0", True, True),
        ("evil.com", "0.0.0.0", True, False),
        ("gpu-box.example.com", "gpu-box.example.com", True, True),
    ],
)
def test_host_header(header: str, bound: str, public: bool, allowed: bool) -> None:
    assert host_allowed(header, bound, public=public) is allowed


@contextmanager
def served(trace: Path, *extra: str) -> Iterator[tuple[str, str, str, int, str]]:
    """`steptrace serve` with `extra`: its line, scheme, host, port and token."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve", str(trace), "--port", "0", *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = _read_line(process, 30)
        match = ANY_URL.search(line)
        assert match, line
        yield line, match[1], match[2], int(match[3]), match[4]
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _status(
    connection: http.client.HTTPConnection, path: str, host: str | None
) -> tuple[int, dict[str, str]]:
    try:
        connection.request("GET", path, headers={"Host": host} if host else {})
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


@pytest.mark.slow
def test_a_foreign_host_header_is_refused(trace: Path) -> None:
    with served(trace, "--host", "127.0.0.2") as (line, _, host, port, token):
        assert host == "127.0.0.2"
        assert f"ssh -L {port}:127.0.0.2:{port} " in line

        def status(header: str | None) -> int:
            connection = http.client.HTTPConnection(host, port, timeout=10)
            return _status(connection, f"/?token={token}", header)[0]

        assert status(None) == 303
        assert status(f"localhost:{port}") == 303
        assert status("evil.com") == 403
        assert status(f"evil.com:{port}") == 403


# -- TLS --------------------------------------------------------------------------


def test_public_says_plain_http_and_offers_tls(
    trace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["serve", str(trace), "--host", "192.0.2.1", "--public", "--port", "0"]
    )
    assert status == 2  # on no interface: never served
    error = capsys.readouterr().err
    assert "plain HTTP" in error and "--certfile" in error


def test_a_key_without_a_certificate_is_one_line(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "key.pem"
    key.write_text("not a key")
    assert main(["serve", str(trace), "--keyfile", str(key)]) == 2
    error = capsys.readouterr().err
    assert "--certfile" in error and len(error.strip().splitlines()) == 1
    assert main(["serve", str(trace), "--certfile", str(key)]) == 2
    error = capsys.readouterr().err
    assert "certificate" in error and len(error.strip().splitlines()) == 1


def _self_signed(folder: Path) -> tuple[Path, Path]:
    certificate, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
            "-keyout", str(key), "-out", str(certificate), "-days", "1",
            "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    return certificate, key


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl CLI")
def test_tls_with_a_certificate_and_key(trace: Path, tmp_path: Path) -> None:
    certificate, key = _self_signed(tmp_path)
    extra = ("--certfile", str(certificate), "--keyfile", str(key))
    with served(trace, *extra) as (_, scheme, host, port, token):
        assert scheme == "https"
        context = ssl.create_default_context(cafile=str(certificate))
        connection = http.client.HTTPSConnection(
            host, port, timeout=10, context=context
        )
        status, headers = _status(connection, f"/?token={token}", None)
        assert status == 303
        assert "Secure" in headers["set-cookie"]
        plain = http.client.HTTPConnection(host, port, timeout=10)
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            _status(plain, f"/?token={token}", None)
