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
  connection; and the slot is given back when the answer starts, so a client that does not read
  its answers holds only its own connection too (until ``send_timeout_s`` drops it).
- **Per client** (an address, ``client_key``): at most ``max_requests_per_client`` requests in
  flight, and ``max_analyses_per_client`` evaluations (the routes in ``ANALYSES``, which search),
  one per game; 429 at once beyond, so no client fills the slots or the bot's queue for others.
- **A client that leaves** cancels its request: what the app awaits (an evaluation waiting for a
  worker, say) is dropped, not searched for nobody. A bot's move is the game's, not the
  request's, and is applied all the same (see ``app.bot_turn``).

Every refusal is ``{"error": "one line"}`` with a 4xx or 503 status, like the app's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
from collections import Counter
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
# The app's routes under /api/games/{id}/ whose answer is a search (ANALYSES: an evaluation, the
# fair komi): limited per game and per client, since each can keep a worker busy for max_seconds.
ANALYSES = ("analysis", "komi-advice")
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


def client_key(address: Optional[str]) -> str:
    """Who a request or connection is from, for the limits per client: its IP address, an IPv6
    one by its /64 network (one machine is commonly given a whole /64); "" when unknown."""
    if not address:
        return ""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d is the IPv4 client a.b.c.d
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def scope_client(scope: Scope) -> str:
    """``client_key`` of an ASGI request (uvicorn gives the peer's address, or the one a trusted
    proxy forwards)."""
    client = scope.get("client")
    return client_key(client[0] if client else None)


class Guard:
    """The middleware: Host, cross-site and content-type checks, then a slot among
    ``config.max_requests`` for the request, whose body has been read whole first, within the
    limits per client; the app's work is cancelled if the client leaves before the answer."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config
        self.in_flight = 0  # requests the app is answering now
        self.by_client: Counter[str] = Counter()  # of those, per client
        self.analyses: Counter[str] = Counter()  # evaluations in flight per client, and per "game:ID"

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
        client = scope_client(scope)
        keys = self.analysis_keys(scope["path"], client)
        refusal = self.busy(client, keys)
        if refusal is not None:
            await _error(send, *refusal)
            return
        with self.slot(client, keys) as release:
            async def answer(message: Message) -> None:
                if message["type"] == "http.response.start":
                    release()  # the answer is made: delivering it (to a slow reader) holds no slot
                await send(message)

            await _unless_client_leaves(self.app, scope, body, receive, answer)

    def analysis_keys(self, path: str, client: str) -> tuple[str, ...]:
        """The counters an evaluation request takes (its client's, its game's); () for others."""
        parts = path.split("/")  # "", "api", "games", ID, "analysis"
        if len(parts) == 5 and parts[1:3] == ["api", "games"] and parts[4] in ANALYSES:
            return (client, "game:" + parts[3])
        return ()

    def busy(self, client: str, keys: tuple[str, ...]) -> Optional[tuple[int, str]]:
        """(status, message) if the server or the client has as many requests in flight as allowed."""
        c = self.config
        if self.in_flight >= c.max_requests:
            return 503, f"the server is answering {c.max_requests} requests already (its limit); try again in a moment"
        if self.by_client[client] >= c.max_requests_per_client:
            return 429, (f"you have {c.max_requests_per_client} requests in flight, the most one address may "
                         f"have; wait for their answers")
        if keys and self.analyses[keys[1]] >= 1:
            return 429, "this game is being evaluated already; ask again when that answer has come"
        if keys and self.analyses[keys[0]] >= c.max_analyses_per_client:
            return 429, (f"you have {c.max_analyses_per_client} evaluations in flight, the most one address may "
                         f"have; ask again when one has come")
        return None

    @contextlib.contextmanager
    def slot(self, client: str, keys: tuple[str, ...]):
        """Hold a request slot (and the evaluation counters ``keys``) until the answer starts or
        the request ends; yields the function that gives them back (once)."""
        held = True
        self.in_flight += 1
        self.by_client[client] += 1
        for key in keys:
            self.analyses[key] += 1

        def release() -> None:
            nonlocal held
            if held:
                held = False
                self.in_flight -= 1
                _decrement(self.by_client, client)
                for key in keys:
                    _decrement(self.analyses, key)

        try:
            yield release
        finally:
            release()

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


def _decrement(counts: Counter, key: str) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]  # the counters hold only clients with requests in flight


async def _unless_client_leaves(app: ASGIApp, scope: Scope, body: bytes, receive: Receive, send: Send) -> None:
    """Run the app on the request (its body already read), cancelling it if the client leaves
    before the answer is sent whole: nobody would read it. The client's leaving is the next
    message of ``receive`` (an ``http.disconnect``), which the app also gets if it asks."""
    sent = False

    async def sending(message: Message) -> None:
        nonlocal sent
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            sent = True
        await send(message)

    gone = asyncio.ensure_future(receive())
    work = asyncio.ensure_future(app(scope, _replay(body, gone), sending))
    try:
        await asyncio.wait({gone, work}, return_when=asyncio.FIRST_COMPLETED)
        if not work.done() and not sent and gone.done() and not gone.cancelled() and gone.exception() is None \
                and gone.result()["type"] == "http.disconnect":
            work.cancel()  # the client left: drop the work, nobody reads its answer
            with contextlib.suppress(asyncio.CancelledError):
                await work
            return
        await work
    finally:
        for task in (work, gone):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


def _replay(body: bytes, gone: "asyncio.Future[Message]") -> Receive:
    """A ``receive`` giving the app the body already read, then the client's next message (its
    leaving), which ``_unless_client_leaves`` is waiting for already."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await asyncio.shield(gone)

    return replay


async def _error(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": ERROR_HEADERS + [(b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
