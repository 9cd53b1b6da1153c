"""Which address the server listens on, how to reach it, and which Host
headers it answers.

Standard library only: `steptrace serve` checks its address with this before
it loads aiohttp.

The Host header. A page of another site that re-points its own name to this
machine (DNS rebinding) sends its own name as Host; the token stops it anyway,
but the server also answers only names that can mean this server: loopback
names and addresses when it listens on loopback (an SSH tunnel arrives as
`localhost:P` or `127.0.0.1:P`, P being the tunnel's port, so ports are not
compared), and with --public also the bound address, any IP address, and this
machine's own names (gethostname, getfqdn, their first label).
"""

from __future__ import annotations

import functools
import ipaddress
import socket

WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether `host` only accepts connections from this machine."""
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """`host` as it goes in a URL: IPv6 in brackets, a wildcard as this host's name."""
    if host in WILDCARDS:
        return socket.gethostname()
    host = host.strip("[]")
    return f"[{host}]" if ":" in host else host


def tunnel(host: str, port: int) -> str:
    """The `ssh -L` forward that reaches `host`:`port` from the user's computer."""
    return f"ssh -L {port}:{url_host(host)}:{port}"


def header_host(header: str) -> str | None:
    """The host of a Host header (`name`, `name:port`, `[v6]:port`), lower case;
    None when it is not one."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        rest = header[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return header[1:end] or None
    name, _, port = header.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


@functools.cache
def _own_names() -> frozenset[str]:
    names = {socket.gethostname().lower(), socket.getfqdn().lower()}
    names |= {name.split(".", 1)[0] for name in names}
    return frozenset(name for name in names if name)


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(header: str, bound: str, *, public: bool) -> bool:
    """Whether a request whose Host header is `header` may be answered by a
    server bound to `bound` (`public`: --public was given)."""
    name = header_host(header)
    if name is None:
        return False
    if is_loopback(name) or name == bound.strip("[]").lower().rstrip("."):
        return True
    if not public:
        return False
    return (
        _is_address(name)
        or name in _own_names()
        or name.split(".", 1)[0] in (_own_names())
    )
