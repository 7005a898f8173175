"""Running the web server: load the bot into a pool, bind the address, serve with uvicorn.

The socket is bound here (not by uvicorn) so that the address printed is the one actually
listening, including the port the system chose for ``--port 0``, before the first request.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence, TextIO

from ..errors import UserError
from .bots import BotLike, BotPools
from .guard import host_name
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


def timed_protocol(timeout_s: float, idle_s: Optional[float] = None) -> type:
    """uvicorn's HTTP/1.1 protocol (h11) with deadlines, both counted from the connection opening
    or the previous response: the request's first byte within ``idle_s``, the request whole
    (headers and body) within ``timeout_s``, else the connection is closed. uvicorn alone waits
    for slow headers and bodies, and for the first byte on a new connection, forever."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    idle_s = timeout_s if idle_s is None else min(idle_s, timeout_s)

    class TimedH11Protocol(H11Protocol):
        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._deadline = None
            self._arm(idle_s)
            self._idle = True  # no byte of the next request yet

        def _arm(self, seconds: float) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def data_received(self, data: bytes) -> None:
            if self._idle and data:  # the request has begun: the rest of its deadline runs
                self._idle = False
                self._arm(timeout_s - idle_s + (self._deadline.when() - self.loop.time()))
            super().data_received(data)

        def _too_slow(self) -> None:
            cycle = self.cycle
            waiting = cycle is None or cycle.response_complete or cycle.more_body  # headers or body still due
            if waiting and not self.transport.is_closing():
                self.transport.close()  # the app, if it was reading the body, sees a disconnect

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._idle = True
                self._arm(idle_s)  # the next request on this connection has its own deadlines

        def connection_lost(self, exc) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

    return TimedH11Protocol


def answering_for(host: str, sock: socket.socket, config: ServerConfig) -> ServerConfig:
    """``config`` answering also for the address ``serve`` was started with (its name as given and
    the address bound); bound to every interface, for any IP address too (DNS rebinding needs a
    name, so an address as the Host is the machine itself)."""
    bound = sock.getsockname()[0]
    every = ipaddress.ip_address(bound).is_unspecified
    extra = tuple(h for h in (host, bound) if h and not (every and _is_unspecified(h))
                  and host_name(h) not in {host_name(k) for k in config.hosts})
    return replace(config, hosts=config.hosts + tuple(dict.fromkeys(extra)), any_ip_host=config.any_ip_host or every)


def _is_unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host_name(host)).is_unspecified
    except ValueError:
        return False


def uvicorn_config(app, config: ServerConfig, log_level: str = "warning", lifespan: str = "off"):
    """uvicorn's settings for the app: the request deadlines, and no cap on open connections
    (uvicorn's ``limit_concurrency`` counts idle ones too, so 64 idle sockets locked everyone out;
    the app caps requests in flight instead, see ``guard.Guard``)."""
    import uvicorn

    return uvicorn.Config(app, log_level=log_level, lifespan=lifespan,
                          http=timed_protocol(config.request_timeout_s, config.idle_timeout_s),
                          timeout_keep_alive=config.idle_timeout_s)


def serve(bots: BotOptions | Sequence[BotOptions], host: str, port: int, config: ServerConfig,
          out: TextIO = sys.stdout) -> None:
    """Load the bots (the first one's game is the page's default), print the address to open,
    and serve until interrupted (Ctrl-C). Each game is played by the bot for its rules."""
    import uvicorn

    from .app import create_app
    from .views import supported_options

    bots = [bots] if isinstance(bots, BotOptions) else list(bots)
    if not 0 <= port <= 65535:
        raise UserError(f"port must be in 0..65535, got {port}")
    for bot in bots:
        if not bot.path.is_file():
            raise UserError(f"bot file {str(bot.path)!r} does not exist (make one with 'catena-zero export')")
    pool = BotPools.of([lambda i, bot=bot: load_bot(bot, i) for bot in bots], config.workers)
    sock = bind(host, port)
    url, reachable = address_to_open(sock)
    config = answering_for(host, sock, config)
    app = create_app(pool, config)
    for bot, each in zip(bots, pool.pools):
        cfg = each.reference.game_config
        plays = ", ".join(f"side {o.side} {o.game_type} {o.scoring}" for o in supported_options(each.reference))
        print(f"catena-zero serve: bot {bot.path.name} (default side {cfg.side}, {cfg.game_type}, {cfg.scoring} "
              f"scoring; plays {plays})", file=out)
    print(f"catena-zero serve: {config.workers} worker(s)", file=out)
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
