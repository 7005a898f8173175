"""The checks every request passes before the app sees it (an ASGI middleware around the routes).

- **Host** (DNS rebinding): a page on ``evil.example`` whose name is re-pointed at 127.0.0.1
  reaches this server as the same origin as itself, so the server answers only for the names it
  is known by (``ServerConfig.hosts``: localhost, 127.0.0.1, ::1 and what ``serve`` was started
  with); any other ``Host`` is a 400.
- **Cross-site writes** (CSRF): a form or a ``fetch`` with a "simple" body (``text/plain``, a form)
  is sent by the browser from any site without asking (no CORS preflight). Every state-changing
  request (any method but GET and HEAD) must say ``Content-Type: application/json``, which a
  browser sends cross-site only after a preflight this server never grants (415 otherwise), and
  one with ``Sec-Fetch-Site`` other than same-origin, or an ``Origin`` that is not this server, is
  refused outright (403). Programs (curl, scripts) send neither header and are served.
- **Requests in flight** are capped (``ServerConfig.max_requests``, 503 at once beyond), not
  open connections: an idle connection costs a file descriptor until the request deadline
  (``server.timed_protocol``), never a slot. The body (at most ``max_body`` bytes, 413 beyond) is
  read before the request takes a slot, so a client trickling its body holds only its own
  connection.

Every refusal is ``{"error": "one line"}`` with a 4xx or 503 status, like the app's own.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any, Awaitable, Callable, Optional
from urllib.parse import urlsplit

from .sessions import ServerConfig

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = ("GET", "HEAD")
SAME_ORIGIN = ("same-origin", "none")  # Sec-Fetch-Site values of the page itself, or a typed-in address
ERROR_HEADERS = [(b"content-type", b"application/json"), (b"cache-control", b"no-store"),
                 (b"x-content-type-options", b"nosniff")]


def host_name(host: str) -> str:
    """The name part of a ``Host`` header or a configured host, lower case, without port,
    brackets or trailing dot ("[::1]:8000" -> "::1", "LocalHost.:80" -> "localhost")."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def host_allowed(host: str, config: ServerConfig) -> bool:
    """Whether this server answers for ``host`` (a ``Host`` header)."""
    name = host_name(host)
    if name in {host_name(h) for h in config.hosts}:
        return True
    if config.any_ip_host:  # bound to every interface: any address of the machine, but no name
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True
    return False


class Guard:
    """The middleware: Host, cross-site and content-type checks, then a slot among
    ``config.max_requests`` for the request, whose body has been read whole first."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config
        self.in_flight = 0  # requests the app is answering now

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope["method"], headers)
        if refusal is not None:  # the body is left unread: the answer closes the connection
            await _error(send, *refusal)
            return
        body = await self.read_body(receive, headers, send)
        if body is None:  # refused (413) or the client left
            return
        if self.in_flight >= self.config.max_requests:
            await _error(send, 503, f"the server is answering {self.config.max_requests} requests already "
                                    f"(its limit); try again in a moment")
            return
        self.in_flight += 1
        try:
            await self.app(scope, _replay(body, receive), send)
        finally:
            self.in_flight -= 1

    def refusal(self, method: str, headers: dict[str, str]) -> Optional[tuple[int, str]]:
        """(status, message) if the request is refused before it is read, else None."""
        host = headers.get("host", "")
        if not host_allowed(host, self.config):
            known = ", ".join(self.config.hosts) + (" or an IP address" if self.config.any_ip_host else "")
            return 400, (f"this server answers only for host {known}, not {host[:80]!r} "
                         f"(another name pointed at it; serve --allow-host NAME adds one)")
        if method in SAFE_METHODS:
            return None
        site = headers.get("sec-fetch-site")
        if site is not None and site.lower() not in SAME_ORIGIN:
            return 403, (f"cross-site request refused (Sec-Fetch-Site: {site[:40]}): "
                         f"only this server's page may change games")
        origin = headers.get("origin")
        if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != host.strip().lower()):
            return 403, f"cross-site request refused (Origin {origin[:80]!r} is not this server, {host[:80]!r})"
        ctype = headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return 415, (f"send state-changing requests with Content-Type: application/json, even with an empty "
                         f"body (got {ctype[:40] or 'none'!r})")
        return None

    async def read_body(self, receive: Receive, headers: dict[str, str], send: Send) -> Optional[bytes]:
        """The whole body, or None once refused with 413 (or when the client left mid-body)."""
        limit = self.config.max_body
        too_large = f"the request body is too large (limit {limit} bytes)"
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _error(send, 413, too_large)
            return None
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            if len(body) > limit:
                await _error(send, 413, too_large)
                return None
            if not message.get("more_body", False):
                return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` giving the app the body already read, then waiting on the client as before
    (so the app still sees a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _error(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": ERROR_HEADERS + [(b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
