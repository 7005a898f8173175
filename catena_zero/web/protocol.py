"""uvicorn's HTTP/1.1 protocol (h11) with deadlines and connection caps (``ServerConfig``).

Deadlines, counted from the connection opening or the previous response: the request's first
byte within ``idle_timeout_s``, the request whole (headers and body) within
``request_timeout_s``, else the connection is closed; and bytes waiting to be sent must move
(the buffer empties or shrinks) within ``send_timeout_s``, else the connection is dropped,
so a client that never reads holds nothing but its own connection, and not for long. uvicorn
alone waits for slow headers and bodies, for the first byte, and for a socket to drain, forever.

Caps: at most ``max_connections`` open and ``max_connections_per_client`` per client; beyond,
the connection (of that client) waiting on its client longest is closed to make room, else the
new one is. The file descriptors thus never run out, which made every request wait for the idle
deadline and asyncio log a traceback for each accept it tried.

Imported only when serving (``server.timed_protocol``): it imports uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar, Optional

from uvicorn.protocols.http.h11_impl import H11Protocol

from .guard import client_key
from .sessions import ServerConfig

# A connection's kernel send buffer, fixed (Linux would let it grow to megabytes): a client that
# pipelines requests and reads nothing gets this much of answers made before the server waits on
# it, not hundreds of answers' worth of the event loop's time. The page's largest file is 13 KB.
SEND_BUFFER = 64 * 1024


@dataclass
class Limits:
    """One server's deadlines and caps, and what its connections share: the open connections per
    client and the send deadline's sweep, once started on the server's loop."""

    idle_s: float  # the first byte of a request
    timeout_s: float  # the whole request
    send_s: float  # unsent bytes must move
    cap: int  # connections open
    per_client_cap: int  # connections open per client
    per_client: Counter[str] = field(default_factory=Counter)
    sweeping: Optional[asyncio.TimerHandle] = None  # the next sweep of the send deadline

    @classmethod
    def of(cls, config: ServerConfig, max_connections: Optional[int] = None) -> Limits:
        """``config``'s limits, at most ``max_connections`` open (default ``config.max_connections``)."""
        return cls(idle_s=min(config.idle_timeout_s, config.request_timeout_s), timeout_s=config.request_timeout_s,
                   send_s=config.send_timeout_s, per_client_cap=config.max_connections_per_client,
                   cap=config.max_connections if max_connections is None else max_connections)

    def sweep(self, loop: asyncio.AbstractEventLoop, connections: set) -> None:
        """Every quarter of the send deadline, drop the connections whose unsent bytes stopped moving."""
        now = loop.time()
        for connection in list(connections):
            if isinstance(connection, TimedH11Protocol):
                connection.check_sending(now)
        self.sweeping = loop.call_later(self.send_s / 4, self.sweep, loop, connections)


class TimedH11Protocol(H11Protocol):
    """The protocol of one connection under ``limits`` (a subclass per server sets them:
    ``server.timed_protocol``)."""

    limits: ClassVar[Limits]

    # transport is left untyped: uvicorn narrows asyncio's BaseTransport to Transport here, and
    # either annotation contradicts one of the two.
    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        limits = self.limits
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self._deadline: Optional[asyncio.TimerHandle] = None  # the request's deadline
        self._arm(limits.idle_s)
        self._idle = True  # no byte of the next request yet
        self._waiting_since = self.loop.time()  # waiting on the client (for a request) since
        self._unsent = (0, self.loop.time())  # bytes waiting to be sent, and since when
        self._key = client_key(self.client[0] if self.client else None)
        limits.per_client[self._key] += 1
        if limits.sweeping is None:
            limits.sweeping = self.loop.call_later(limits.send_s / 4, limits.sweep, self.loop, self.connections)
        if limits.per_client[self._key] > limits.per_client_cap:
            self._make_room([c for c in self.connections if getattr(c, "_key", None) == self._key])
        elif len(self.connections) > limits.cap:
            self._make_room(list(self.connections))

    def _make_room(self, among: list) -> None:
        """Close the connection of ``among`` waiting on its client longest, or this new one."""
        waiting = [c for c in among if c is not self and c._waiting_on_client()]
        _drop((min(waiting, key=lambda c: c._waiting_since) if waiting else self).transport)

    def _waiting_on_client(self) -> bool:
        """Idle, or a request still arriving: nothing of the server's is lost by closing it."""
        cycle = self.cycle
        return not self.transport.is_closing() and (cycle is None or cycle.response_complete or cycle.more_body)

    def _arm(self, seconds: float) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def data_received(self, data: bytes) -> None:
        if self._idle and data:  # the request has begun: the rest of its deadline runs
            self._idle = False
            limits = self.limits
            self._arm(limits.timeout_s - limits.idle_s + (self._deadline.when() - self.loop.time()))
        super().data_received(data)

    def _too_slow(self) -> None:
        cycle = self.cycle
        waiting = cycle is None or cycle.response_complete or cycle.more_body  # headers or body still due
        if waiting and not self.transport.is_closing():
            _drop(self.transport)  # the app, if it was reading the body, sees a disconnect

    def check_sending(self, now: float) -> None:
        """Drop the connection if its unsent bytes have not moved for the send deadline."""
        size = self.transport.get_write_buffer_size()
        before, since = self._unsent
        if size == 0 or size < before:
            self._unsent = (size, now)
        elif now - since >= self.limits.send_s:
            self.transport.abort()  # a send waiting to drain returns: the client is gone
        else:
            self._unsent = (size, since)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._idle = True
            self._waiting_since = self.loop.time()
            self._arm(self.limits.idle_s)  # the next request on this connection has its own deadlines

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        per_client = self.limits.per_client
        per_client[self._key] -= 1
        if per_client[self._key] <= 0:
            del per_client[self._key]
        super().connection_lost(exc)


def _drop(transport) -> None:
    """Close a connection; at once (no flush) when bytes wait to be sent: ``close`` would wait
    for a client that does not read, forever, holding the file descriptor."""
    if transport.get_write_buffer_size():
        transport.abort()
    else:
        transport.close()
