"""Running the web server: load the bot into a pool, bind the address, serve with uvicorn.

The socket is bound here (not by uvicorn) so that the address printed is the one actually
listening, including the port the system chose for ``--port 0``, before the first request.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import socket
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence, TextIO

from ..errors import UserError
from .bots import BotPools
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


def load_bot(options: BotOptions, index: int) -> "Bot":
    """Instance ``index`` of the bot (seed ``seed + index``, so pool members do not think alike)."""
    from ..bot import Bot  # imported only when serving
    from ..net.device import set_torch_threads

    # Process-wide: every worker thread's bot shares these; with several workers thinking at
    # once on few cores, one thread each avoids oversubscription.
    set_torch_threads(options.threads)
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
        sock.listen(BACKLOG)
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


# Connections asyncio accepts in one go (its accept loop takes up to the backlog at a time;
# uvicorn's default is 2048), before the protocol can close the ones beyond the caps.
BACKLOG = 64
# File descriptors kept for what is not a connection: the listening socket, logs, the bot's
# libraries, and the connections accepted beyond the cap before they are closed (up to a
# backlog accepted on each of the two loop turns a close takes, and those being closed).
FD_RESERVE = 64 + 3 * BACKLOG


def timed_protocol(config: ServerConfig, max_connections: Optional[int] = None) -> type:
    """uvicorn's HTTP/1.1 protocol with ``config``'s deadlines and connection caps
    (``protocol.TimedH11Protocol``), at most ``max_connections`` open (default
    ``config.max_connections``): a class of its own, so each server's connections share their
    counts and nothing else's."""
    from .protocol import Limits, TimedH11Protocol  # imports uvicorn: only when serving

    class ServerProtocol(TimedH11Protocol):
        limits = Limits.of(config, max_connections)

    return ServerProtocol


def connection_cap(config: ServerConfig) -> int:
    """``config.max_connections``, lowered to what the process's file-descriptor limit leaves
    (what is open now and ``FD_RESERVE`` aside), so accepting a connection never fails."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no limit to read
        return config.max_connections
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return config.max_connections
    try:
        used = len(os.listdir("/proc/self/fd"))
    except OSError:
        used = 64  # not Linux: a generous guess at the descriptors open besides connections
    return max(1, min(config.max_connections, soft - used - FD_RESERVE))


def raise_fd_limit(config: ServerConfig) -> None:
    """Raise the soft file-descriptor limit towards the hard one, as far as ``max_connections``
    needs: the usual soft limit (1024) is below what the server can hold."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = config.max_connections + FD_RESERVE + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            allowed = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (allowed, hard))


class OncePerMinute(logging.Filter):
    """Lets one of asyncio's "out of system resource" accept errors through a minute: should the
    descriptors run out anyway (other processes, a tiny limit), the log says so, not 65,000 times."""

    def __init__(self) -> None:
        super().__init__()
        self.last = -float("inf")

    def filter(self, record: logging.LogRecord) -> bool:
        if "out of system resource" not in record.getMessage():
            return True
        now = time.monotonic()
        if now - self.last < 60:
            return False
        self.last = now
        return True


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
    """uvicorn's settings for the app: the deadlines and connection caps of ``timed_protocol``
    (the cap within the file-descriptor limit, ``connection_cap``), not uvicorn's
    ``limit_concurrency``, which counts idle connections too, so 64 idle sockets locked everyone
    out (the app caps requests in flight instead, see ``guard.Guard``)."""
    import uvicorn

    return uvicorn.Config(app, log_level=log_level, lifespan=lifespan,
                          http=timed_protocol(config, connection_cap(config)), backlog=BACKLOG,
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
    raise_fd_limit(config)
    logging.getLogger("asyncio").addFilter(OncePerMinute())
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
