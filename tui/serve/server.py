"""The web server: one app process per browser connection, all ended on stop.

Built on textual-serve's `Server` (its page, static files, WebSocket protocol
and downloads) with these changes: every request passes the token guard
(`tui.serve.auth`); every message from the page is parsed before it reaches
its app (`tui.serve.protocol`), and what goes wrong is one log line
(`tui.serve.logs`); each app process is started from an argument list (no
shell, so a trace path is never parsed as shell words) in its own process
group; and stopping the server ends every app process, then anything they
started, before it returns.

The server stops the same way on Ctrl+C, SIGTERM and SIGHUP (an SSH
disconnect, a closed terminal). A server killed outright (SIGKILL, the OOM
killer) can end nothing: on Linux each app process asks the kernel, before it
runs, to be killed when the server dies (`PR_SET_PDEATHSIG`), so none is left
running with parent 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import socket
import ssl
import sys
from asyncio.subprocess import Process
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from tui.serve import logs
from tui.serve.auth import cookie_name, harden_headers, token_guard
from tui.serve.hosts import host_allowed
from tui.serve.limits import DEFAULT_IDLE_TIMEOUT_S, DEFAULT_MAX_SESSIONS
from tui.serve.protocol import (
    Focus,
    Malformed,
    Ping,
    Resize,
    Stdin,
    cells,
    parse_message,
)

TEMPLATES = Path(__file__).resolve().parent / "templates"
# How long an app process gets to quit on its own, then after SIGTERM.
QUIT_GRACE_S = 3.0
TERM_GRACE_S = 2.0
# The signals that stop the server, ending every app first.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_server() -> Callable[[], None] | None:
    """A `preexec_fn` that has the kernel SIGKILL the app when this server dies
    (SIGKILL: no one is left to escalate from a SIGTERM it ignores; notes are
    written atomically, so a killed app loses no saved note). None off Linux.

    `prctl` is looked up here, in the server: the child only calls it.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    server = os.getpid()

    def ask_for_parent_death_signal() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != server:  # the server died before the call took hold
            os.kill(os.getpid(), signal.SIGKILL)

    return ask_for_parent_death_signal


class AppProcess(AppService):
    """textual-serve's app service, started without a shell in its own process group."""

    def __init__(
        self, argv: Sequence[str], started: set[Process], **kwargs: Any
    ) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = list(argv)
        self.started = started

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
            preexec_fn=die_with_server(),
        )
        self.started.add(process)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    @property
    def process(self) -> Process | None:
        """The app process, once started."""
        return self._process


@dataclass(eq=False)
class Session:
    """One browser connection and the app process serving it."""

    service: AppProcess
    websocket: web.WebSocketResponse
    ending: asyncio.Task[None] | None = None


def _signal_group(process: Process, signum: int) -> None:
    """Send `signum` to the app's process group (the app and what it started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


async def end_app_process(service: AppProcess) -> None:
    """Ask the app to quit; after a grace period terminate, then kill, its group."""
    with contextlib.suppress(asyncio.TimeoutError, OSError, RuntimeError):
        await asyncio.wait_for(service.stop(), QUIT_GRACE_S)
    if service.process is not None:
        await end_process_group(service.process)


async def end_process_group(process: Process) -> None:
    """Terminate, then kill, an app process and whatever it started."""
    if process.returncode is None:
        _signal_group(process, signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), TERM_GRACE_S)
        except asyncio.TimeoutError:
            _signal_group(process, signal.SIGKILL)
            await process.wait()
    # Whatever the app started (a capture) shares its group: it goes too.
    _signal_group(process, signal.SIGTERM)


class TraceServer(Server):
    """Serve `app_argv` (a `steptrace open --served` command) behind `token`."""

    def __init__(
        self,
        app_argv: Sequence[str],
        *,
        host: str,
        port: int,
        token: str,
        title: str,
        public: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    ) -> None:
        """`public`: --public was given (more Host names answered, see
        `tui.serve.hosts`); `ssl_context`: serve HTTPS; `max_sessions` app
        processes at most; a session idle `idle_timeout_s` ends."""
        super().__init__(" ".join(app_argv), host=host, port=port, title=title)
        self.app_argv = list(app_argv)
        self.token = token
        self.public = public
        self.ssl_context = ssl_context
        self.max_sessions = max_sessions
        self.idle_timeout_s = idle_timeout_s
        self.sessions: set[Session] = set()
        self.started: set[Process] = set()

    async def _make_app(self) -> web.Application:
        """The aiohttp application: token guard first, then textual-serve's routes."""

        def allowed(header: str) -> bool:
            return host_allowed(header, self.host, public=self.public)

        guard = token_guard(self.token, cookie_name(self.port), allowed)
        app = web.Application(middlewares=[guard])
        aiohttp_jinja2.setup(
            app, loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True
        )
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        app.on_response_prepare.append(harden_headers)
        app.on_shutdown.append(self.on_shutdown)
        return app

    @property
    def full(self) -> bool:
        """Whether every session allowed is in use."""
        return len(self.sessions) >= self.max_sessions

    def refusal(self) -> web.HTTPServiceUnavailable:
        """The polite page a connection gets when every session is in use (raised)."""
        logs.logger().warning(
            "connection refused: all %d sessions in use", self.max_sessions
        )
        return web.HTTPServiceUnavailable(
            headers={"Retry-After": "60"},
            content_type="text/html",
            text=(
                "<!doctype html><title>steptrace: busy</title>"
                f"<p>All {self.max_sessions} sessions of this steptrace server are"
                " in use. Close another tab of it and reload this page, or ask"
                " whoever runs it to start it with a larger --max-sessions.</p>"
            ),
        )

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page: textual-serve's terminal, with paths relative to this origin;
        the refusal page when every session is in use."""
        if self.full:
            raise self.refusal()
        font_size = min(max(to_int(request.query.get("fontsize", "16"), 16), 6), 64)
        return aiohttp_jinja2.render_template(
            "index.html",
            request,
            {"title": self.title, "font_size": font_size, "static_url": "/static/"},
        )

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """Start an app process for this connection and relay it until either
        ends; refused (503) when every session is in use."""
        if self.full:
            raise self.refusal()
        websocket = web.WebSocketResponse(heartbeat=15)
        width = cells(request.query.get("width"), 80)
        height = cells(request.query.get("height"), 24)
        service = AppProcess(
            self.app_argv,
            self.started,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        # Counted before the first await, so connections arriving together
        # cannot pass the cap between the check and the count.
        session = Session(service, websocket)
        self.sessions.add(session)
        try:
            await websocket.prepare(request)
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except (ValueError, AssertionError, TypeError, KeyError):
            pass  # the relay broke down (a message is dropped, never raised): end it
        finally:
            await self.end_session(session)
        return websocket

    async def _process_messages(
        self, websocket: web.WebSocketResponse, app_service: AppService
    ) -> None:
        """Relay the page's messages to its app, each parsed first: a size is
        capped, a malformed message is dropped with one log line. Without a
        key, resize or focus for `idle_timeout_s` (pings do not count), the
        session ends."""
        loop = asyncio.get_running_loop()
        last_input = loop.time()
        while True:
            left = last_input + self.idle_timeout_s - loop.time()
            try:
                message = await websocket.receive(timeout=max(left, 0.0))
            except asyncio.TimeoutError:
                logs.logger().warning(
                    "session idle for %.0f s: ended", self.idle_timeout_s
                )
                return
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            if message.type == WSMsgType.ERROR:
                return
            if message.type != WSMsgType.TEXT:
                continue
            try:
                parsed = parse_message(message.data)
            except Malformed as reason:
                logs.logger().warning("malformed message dropped: %s", reason)
                continue
            if not isinstance(parsed, Ping):
                last_input = loop.time()
            if isinstance(parsed, Stdin):
                await app_service.send_bytes(parsed.text.encode("utf-8"))
            elif isinstance(parsed, Resize):
                await app_service.set_terminal_size(parsed.width, parsed.height)
            elif isinstance(parsed, Ping):
                await websocket.send_json(["pong", parsed.data])
            elif isinstance(parsed, Focus):
                await (app_service.focus() if parsed.focused else app_service.blur())

    async def end_session(self, session: Session) -> None:
        """End a session's app process (once, whoever asks first) and its socket."""
        if session.ending is None:
            session.ending = asyncio.ensure_future(end_app_process(session.service))
        try:
            await asyncio.shield(session.ending)
        finally:
            self.sessions.discard(session)
            process = session.service.process
            if process is not None and process.returncode is not None:
                self.started.discard(process)  # ended: nothing left to sweep
            if not session.websocket.closed:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await session.websocket.close(code=WSCloseCode.GOING_AWAY)

    async def on_shutdown(self, app: web.Application) -> None:
        """No new connection gets in any more: end every session."""
        await asyncio.gather(
            *(self.end_session(session) for session in list(self.sessions)),
            return_exceptions=True,
        )

    async def run(self, listening: socket.socket, ready: Callable[[], None]) -> None:
        """Serve on `listening` until SIGINT, SIGTERM or SIGHUP; `ready()` once
        accepting. A signal ignored from the start stays ignored: under nohup,
        a hangup means "go on serving"."""
        logs.install()
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        stop_signals = [
            signum
            for signum in STOP_SIGNALS
            if signum != signal.SIGHUP or signal.getsignal(signum) != signal.SIG_IGN
        ]
        for signum in stop_signals:
            loop.add_signal_handler(signum, stop.set)
        runner = web.AppRunner(
            await self._make_app(),
            access_log=None,
            handle_signals=False,
            shutdown_timeout=QUIT_GRACE_S + TERM_GRACE_S + 1,
        )
        await runner.setup()
        try:
            await web.SockSite(runner, listening, ssl_context=self.ssl_context).start()
            ready()
            await stop.wait()
        finally:
            await runner.cleanup()
            # Sessions end their apps as they close; this catches one that was
            # still starting when the server stopped.
            running = [
                process for process in self.started if process.returncode is None
            ]
            await asyncio.gather(*(end_process_group(process) for process in running))
            for signum in stop_signals:
                loop.remove_signal_handler(signum)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port` (0: any free port), so the port is known
    before the app is built; raises OSError when it cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family)


def app_argv(
    trace: Path, *, allow_capture: bool, cluster: str | None = None
) -> list[str]:
    """The command each browser connection runs: this steptrace, served mode
    (a run's ranks read on the Dask scheduler at `cluster` when given)."""
    argv = [sys.executable, "-m", "tui", "open", "--served"]
    if allow_capture:
        argv.append("--allow-capture")
    if cluster is not None:
        argv += ["--cluster", cluster]
    return [*argv, "--", str(trace)]
