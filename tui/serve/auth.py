"""Every request to the server carries its token, or gets 403 and nothing else.

How the token travels. The printed URL holds it as a query parameter
(`/?token=T`). The page that textual-serve serves then loads its script, style
sheet and font from `/static/`, opens its WebSocket at `/ws?width=W&height=H`
(its script appends that query itself, so a token put in the socket URL would
be mangled) and opens file downloads at `ORIGIN/download/KEY` (an absolute
path, so a token in a path prefix would be lost). A cookie reaches all of
them, so the first authorised request for `/` answers with a redirect to `/`
that sets it:
- HttpOnly: no script in the page can read it;
- SameSite=Strict: no page of another site makes the browser send it;
- no Max-Age: it is gone when the browser closes; it names the port, so two
  servers on one host do not overwrite each other's.
The redirect also takes the token out of the address bar, which may be on a
shared screen. A cookie is not bound to a port, and a page from another port
of the same host counts as the same site: a request whose `Origin` is not the
address it was sent to (a WebSocket opened by such a page) is refused too.

A request is let in when its Host header names this server (see
`tui.serve.hosts`) and its query token or its cookie matches, compared in
constant time (`hmac.compare_digest`). Anything else, any path and any method,
gets a bare 403: no page, no app name, no server header. Over HTTPS the
cookie is also Secure.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from yarl import URL

TOKEN_PARAMETER = "token"
TOKEN_BYTES = 24  # 192 bits
FORBIDDEN_TEXT = "Forbidden\n"
# Headers on every response, refused or not.
HARDENING_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Cache-Control": "no-store",
}


def new_token() -> str:
    """A fresh random token, URL-safe, 192 bits."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def cookie_name(port: int) -> str:
    """The cookie that holds the token of the server on `port`."""
    return f"steptrace-{port}"


def token_matches(candidate: str, token: str) -> bool:
    """Whether `candidate` is the token, in time that does not depend on where they differ."""
    return hmac.compare_digest(
        candidate.encode("utf-8", "surrogateescape"),
        token.encode("utf-8", "surrogateescape"),
    )


def same_origin(request: web.Request) -> bool:
    """False when the request says it comes from a page of another origin
    (another host or port) than the address it was sent to."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not sent by a page of another origin (browsers always say)
    try:
        page = URL(origin)
        target = URL(f"{request.scheme}://{request.host}")
    except ValueError:
        return False
    if not page.host or page.scheme not in ("http", "https"):
        return False
    return (page.scheme, page.host.lower(), page.port) == (
        target.scheme,
        (target.host or "").lower(),
        target.port,
    )


def forbidden() -> web.Response:
    """The only answer an unauthorised request gets."""
    return web.Response(status=403, text=FORBIDDEN_TEXT)


def token_guard(
    token: str, cookie: str, host_allowed: Callable[[str], bool]
) -> Middleware:
    """The middleware that lets in only requests carrying `token`
    (query parameter or cookie `cookie`) from their own origin, sent to a
    Host that `host_allowed` accepts."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not host_allowed(request.headers.get("Host", "")):
            return forbidden()
        query_token = request.query.get(TOKEN_PARAMETER)
        cookie_token = request.cookies.get(cookie)
        by_query = query_token is not None and token_matches(query_token, token)
        by_cookie = cookie_token is not None and token_matches(cookie_token, token)
        if not (by_query or by_cookie) or not same_origin(request):
            return forbidden()
        if by_query and request.method == "GET" and request.path == "/":
            query = {
                key: value
                for key, value in request.query.items()
                if key != TOKEN_PARAMETER
            }
            response = web.HTTPSeeOther(location=str(URL("/").with_query(query)))
            response.set_cookie(
                cookie,
                token,
                path="/",
                httponly=True,
                samesite="Strict",
                secure=request.secure,
            )
            return response
        return await handler(request)

    return guard


async def harden_headers(request: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare` hook: no server banner, no referrer, no framing, no cache."""
    response.headers.pop("Server", None)
    for name, value in HARDENING_HEADERS.items():
        response.headers.setdefault(name, value)
