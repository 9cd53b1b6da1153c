"""`steptrace serve TRACE|DIR`: the explorer in a browser, behind a secret token.

Each browser connection gets its own `steptrace open --served` process on the
same trace (or run folder); their notes merge in the sidecar as two
terminals' do. The server listens on loopback unless told otherwise, and
prints one line: the URL with its token, and the SSH tunnel to reach it (to
the very address it listens on: ::1 or 127.0.0.2 as well). A public server
says that its token travels in clear over plain HTTP unless given a
certificate (--certfile, --keyfile: then HTTPS). textual-serve and aiohttp are
imported inside `run` only.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.commands._cluster import add_cluster_option
from tui.commands._common import at_least_one
from tui.commands.errors import CommandError, warn
from tui.serve.hosts import is_loopback, tunnel, url_host
from tui.serve.limits import DEFAULT_IDLE_TIMEOUT_S, DEFAULT_MAX_SESSIONS

if TYPE_CHECKING:
    import ssl

__all__ = ["is_loopback", "ready_line", "register", "run", "tls_context"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(subparsers: Any) -> None:
    """Add the `serve` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="serve the explorer to a browser (through an SSH tunnel)",
        description=(
            "Serve the explorer on TRACE (or a run folder) over HTTP/WebSocket. "
            "Every browser "
            "connection gets its own app on the same trace. Listens on "
            f"{DEFAULT_HOST} and prints the URL to open, with its secret token; "
            "Ctrl+C stops the server and every app it started."
        ),
    )
    parser.add_argument(
        "trace",
        metavar="TRACE",
        help="trace file (.json or .json.gz), or a run folder of per-rank traces",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port to listen on (default {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}; others need --public)",
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="allow a --host that is not loopback (others on the network can connect)",
    )
    parser.add_argument(
        "--certfile",
        metavar="PEM",
        help="serve HTTPS with this certificate (PEM; may hold the key too)",
    )
    parser.add_argument(
        "--keyfile",
        metavar="PEM",
        help="the private key of --certfile, when it is in a file of its own",
    )
    parser.add_argument(
        "--allow-capture",
        action="store_true",
        help="let the served app launch captures (key c): off by default",
    )
    parser.add_argument(
        "--max-sessions",
        type=at_least_one,
        default=DEFAULT_MAX_SESSIONS,
        metavar="N",
        help=(
            f"app processes at most, one per browser tab (default {DEFAULT_MAX_SESSIONS});"
            " further connections get a page saying the server is busy"
        ),
    )
    parser.add_argument(
        "--idle-timeout",
        type=_positive_seconds,
        default=DEFAULT_IDLE_TIMEOUT_S,
        metavar="SECONDS",
        help=(
            "end a session after this long without a key, resize or focus from its"
            f" page (default {DEFAULT_IDLE_TIMEOUT_S:.0f})"
        ),
    )
    add_cluster_option(parser)
    parser.set_defaults(func=run)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def ready_line(
    trace: Path, host: str, port: int, token: str, *, tls: bool = False
) -> str:
    """The one line printed once listening: the URL, and how to reach it."""
    from tui.core.base.textsafe import printable

    scheme = "https" if tls else "http"
    url = f"{scheme}://{printable(url_host(host))}:{port}/?token={token}"
    if is_loopback(host):
        reach = (
            f"from your computer: {printable(tunnel(host, port))} "
            f"{printable(_hostname())}, then open it"
        )
    else:
        reach = "open it from any machine that can reach this one"
    return (
        f"steptrace: serving {printable(trace.name)} at {url} ({reach}; Ctrl+C stops)"
    )


def run(args: argparse.Namespace) -> int:
    """Check the trace and the address, then serve until Ctrl+C."""
    import asyncio

    from tui.commands.open import openable
    from tui.core.base.textsafe import printable

    path = openable(args.trace)
    host = str(args.host).strip()
    if not (0 <= args.port <= 65535):
        raise CommandError(f"--port {args.port}: not a port (0-65535)")
    if not is_loopback(host):
        if not args.public:
            raise CommandError(
                f"--host {host} is not loopback: anyone who can reach it could "
                "connect; add --public to mean it, or use the SSH tunnel the "
                "default prints"
            )
        if args.certfile is None:
            warn(
                f"listening on {host}, not loopback, over plain HTTP: the token "
                "is the only protection and travels unencrypted "
                "(--certfile/--keyfile serve HTTPS)"
            )
    ssl_context = None
    if args.certfile is not None or args.keyfile is not None:
        ssl_context = tls_context(args.certfile, args.keyfile)

    from tui.serve.auth import new_token
    from tui.serve.server import TraceServer, app_argv, listen

    try:
        listening = listen(host, args.port)
    except OSError as error:
        reason = error.strerror or str(error)
        raise CommandError(
            f"cannot listen on {host}:{args.port}: {reason} "
            "(--port 0 takes any free port)"
        ) from error
    port = int(listening.getsockname()[1])
    token = new_token()
    trace = path.resolve()
    server = TraceServer(
        app_argv(trace, allow_capture=args.allow_capture, cluster=args.cluster),
        host=host,
        port=port,
        token=token,
        title=f"steptrace — {printable(trace.name)}",
        public=bool(args.public),
        ssl_context=ssl_context,
        max_sessions=args.max_sessions,
        idle_timeout_s=args.idle_timeout,
    )

    def ready() -> None:
        line = ready_line(trace, host, port, token, tls=ssl_context is not None)
        print(line, flush=True)

    asyncio.run(server.run(listening, ready))
    return 0


def tls_context(certfile: str | None, keyfile: str | None) -> ssl.SSLContext:
    """The server's TLS context from --certfile/--keyfile; refused (CommandError)
    when they cannot be used."""
    import ssl

    if certfile is None:
        raise CommandError("--keyfile needs --certfile")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(certfile, keyfile)
    except (OSError, ssl.SSLError) as error:
        reason = getattr(error, "strerror", None) or getattr(error, "reason", None)
        raise CommandError(
            f"--certfile {certfile}: cannot load the certificate and its key "
            f"({reason or error})"
        ) from error
    return context


def _hostname() -> str:
    """This machine's name, for the tunnel hint (socket is imported when needed)."""
    import socket

    return socket.gethostname()
