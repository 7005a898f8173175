"""Running the web server: load the bot into a pool, bind the address, serve with uvicorn.

The socket is bound here (not by uvicorn) so that the address printed is the one actually
listening, including the port the system chose for ``--port 0``, before the first request.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, TextIO

from ..errors import UserError
from .bots import BotLike, BotPool
from .sessions import ServerConfig


@dataclass(frozen=True)
class BotOptions:
    """How to load the bot file (the arguments of ``Bot.load``); None leaves the bot's default."""

    path: Path
    simulations: Optional[int] = None
    seconds: Optional[float] = None
    device: str = "auto"
    seed: int = 0
    threads: int = 1  # torch CPU threads of the process (see bot.py: one is best at batch 1)


def load_bot(options: BotOptions, index: int) -> BotLike:
    """Instance ``index`` of the bot (seed ``seed + index``, so pool members do not think alike)."""
    import torch  # imported only when serving

    from ..bot import Bot

    # Process-wide: every worker thread's bot shares these; with several workers thinking at
    # once on few cores, one thread each avoids oversubscription.
    torch.set_num_threads(options.threads)
    kwargs: dict = {"device": options.device, "seed": options.seed + index}
    if options.simulations is not None:
        kwargs["simulations"] = options.simulations
    if options.seconds is not None:
        kwargs["seconds"] = options.seconds
    return Bot.load(str(options.path), **kwargs)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); OSError with one line saying what failed."""
    if not 0 <= port <= 65535:
        raise UserError(f"port must be in 0..65535, got {port}")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise OSError(f"cannot resolve host {host!r}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


def address_to_open(sock: socket.socket) -> tuple[str, bool]:
    """The URL a browser on this machine opens, and whether other machines can reach it too."""
    host, port = sock.getsockname()[:2]
    ip = ipaddress.ip_address(host)
    everywhere = ip.is_unspecified
    if everywhere:
        host = "127.0.0.1" if ip.version == 4 else "::1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/", everywhere or not ipaddress.ip_address(host).is_loopback


def timed_protocol(timeout_s: float) -> type:
    """uvicorn's HTTP/1.1 protocol (h11) with a deadline: a request must arrive whole (headers and
    body) within ``timeout_s`` of the connection opening or of the previous response, else the
    connection is closed. uvicorn alone waits for slow headers and bodies forever."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11Protocol(H11Protocol):
        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._deadline = None
            self._arm()

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(timeout_s, self._too_slow)

        def _too_slow(self) -> None:
            cycle = self.cycle
            waiting = cycle is None or cycle.response_complete or cycle.more_body  # headers or body still due
            if waiting and not self.transport.is_closing():
                self.transport.close()  # the app, if it was reading the body, sees a disconnect

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection has its own deadline

        def connection_lost(self, exc) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

    return TimedH11Protocol


def uvicorn_config(app, config: ServerConfig, log_level: str = "warning", lifespan: str = "off"):
    """uvicorn's settings for the app: capped connections (503 beyond) and the request deadline."""
    import uvicorn

    return uvicorn.Config(app, log_level=log_level, lifespan=lifespan, http=timed_protocol(config.request_timeout_s),
                          limit_concurrency=config.max_connections, timeout_keep_alive=5)


def serve(bot: BotOptions, host: str, port: int, config: ServerConfig, out: TextIO = sys.stdout) -> None:
    """Load the bot, print the address to open, and serve until interrupted (Ctrl-C)."""
    import uvicorn

    from .app import create_app

    if not 0 <= port <= 65535:
        raise UserError(f"port must be in 0..65535, got {port}")
    if not bot.path.is_file():
        raise UserError(f"bot file {str(bot.path)!r} does not exist (make one with 'catena-zero export')")
    pool = BotPool.of(lambda i: load_bot(bot, i), config.workers)
    app = create_app(pool, config)
    sock = bind(host, port)
    url, reachable = address_to_open(sock)
    cfg = pool.reference.game_config
    print(f"catena-zero serve: bot {bot.path.name} (side {cfg.side}, {cfg.game_type}, {cfg.scoring} scoring), "
          f"{config.workers} worker(s)", file=out)
    if reachable:
        print(f"warning: listening on {host}, so other machines on the network can reach this server", file=out)
    print(f"open {url} in a browser (Ctrl-C stops the server)", file=out, flush=True)
    # Lifespan off: uvicorn re-raises Ctrl-C once it has shut down, which would cancel a pending
    # lifespan task with a logged traceback; the pool is closed here instead.
    server = uvicorn.Server(uvicorn_config(app, config))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shut down cleanly on Ctrl-C, then passed the signal on
        pass
    finally:
        sock.close()
        pool.close()
    print("server stopped", file=out, flush=True)
