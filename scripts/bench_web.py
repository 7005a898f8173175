"""Benchmark: a player's bot turns on ``catena-zero serve`` while hostile clients attack it.

One ``catena-zero serve`` process (the shipped side-3 bot, 2 workers, moves of at most 2 s) is
started with a file-descriptor limit of 1024 (soft and hard, as a stock Linux login has). A player
at 127.0.0.1 plays games against the bot at ``--simulations`` a move and times each
``POST /api/games/{id}/bot`` (the bot's turn, as the page asks for it): first with no attack (the
baseline, in the same run), then while each attack runs from other loopback addresses
(127.0.0.N: other clients to the server):

- slow readers: 70 connections, each pipelining 300 GETs of a 13 KB file and reading nothing
  (reopened when the server drops them);
- analysis flood: 12 clients asking for 2-second evaluations of their games without pause, and
  8 more sending evaluation requests and closing their sockets at once, every second;
- slot grab: 10 clients creating games until refused and keeping every one alive with a GET a
  second (the server's 64 slots, 8 per client); the player starts its game while they hold them;
- descriptor exhaustion: 1100 idle connections from 40 addresses, reopened as the server closes
  them, more than the server process can hold.

For each phase it prints the bot turns timed (count, median, slowest), the player's requests
that failed, and what the attack got (answers, refusals, games held, the server's log).

Run: .venv/bin/python scripts/bench_web.py [--simulations 100] [--turns 12] [--phase-seconds 12]
Not niced: it times a server. About a minute and a half.
"""

from __future__ import annotations

import argparse
import re
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Callable

import httpx

import _machine  # scripts/_machine.py: the CPU and the instruction set beside every figure

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "catena_zero" / "bots" / "side3.bot"
JSON = {"Content-Type": "application/json"}
FD_LIMIT = 1024
MAX_SECONDS = 2.0  # the server's --max-seconds: the longest search anyone may ask for


def start_server(err_path: Path) -> tuple[subprocess.Popen, int]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))

    proc = subprocess.Popen([sys.executable, "-m", "catena_zero.cli", "serve", "--bot", str(BOT), "--port", "0",
                             "--workers", "2", "--max-seconds", str(MAX_SECONDS)],
                            stdout=subprocess.PIPE, stderr=open(err_path, "w"), text=True, cwd=ROOT, preexec_fn=limit)
    for line in proc.stdout:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found:
            return proc, int(found.group(1))
    raise SystemExit(f"bench_web: the server did not start:\n{err_path.read_text()[-2000:]}")


def client(url: str, address: str = "127.0.0.1", timeout: float = 60) -> httpx.Client:
    return httpx.Client(base_url=url, headers=JSON, timeout=timeout,
                        transport=httpx.HTTPTransport(local_address=address))


def connect(port: int, address: str, rcvbuf: int = 0) -> socket.socket:
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((address, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    return s


class Player:
    """The normal player: plays the default game as the second player, timing the bot's turns."""

    def __init__(self, url: str, simulations: int) -> None:
        self.c = client(url)
        self.simulations = simulations
        self.failures: list[str] = []
        self.game = None

    def new_game(self) -> int:
        if self.game is not None:  # a person starting another game leaves the last one
            self.c.delete(f"/api/games/{self.game['id']}")
            self.game = None
        reply = self.c.post("/api/games", json={"seat": "second", "simulations": self.simulations})
        if reply.status_code == 201:
            self.game = reply.json()
        else:
            self.failures.append(f"new game {reply.status_code}")
        return reply.status_code

    def bot_turns(self, count: int, at_least_s: float = 0, within_s: float = 60) -> list[float]:
        """Time at least ``count`` bot turns, for at least ``at_least_s`` (fewer if ``within_s``
        runs out: a failure, listed)."""
        begun = time.monotonic()
        times, deadline = [], begun + within_s
        while len(times) < count or time.monotonic() - begun < at_least_s:
            if time.monotonic() > deadline:
                self.failures.append(f"only {len(times)} bot turns in {within_s:g} s")
                break
            state = self.game
            if state is None or state["phase"] == "over":
                if self.new_game() != 201:
                    time.sleep(0.5)
                continue
            gid = state["id"]
            if state["to_act_is"] == "bot":
                started = time.monotonic()
                reply = self.c.post(f"/api/games/{gid}/bot")
                if reply.status_code == 200:
                    times.append(time.monotonic() - started)
            elif state["phase"] == "komi":
                reply = self.c.post(f"/api/games/{gid}/komi", json={"komi": 3})
            elif state["phase"] == "colour":
                reply = self.c.post(f"/api/games/{gid}/colour", json={"colour": "white"})
            else:
                reply = self.c.post(f"/api/games/{gid}/move", json={"move": state["legal"][0]})
            if reply.status_code != 200:
                self.failures.append(f"{reply.request.method} {reply.request.url.path} {reply.status_code}")
                again = self.c.get(f"/api/games/{gid}")
                self.game = again.json() if again.status_code == 200 else None
                continue
            self.game = reply.json()
        return times


class Attack:
    """Threads running ``step`` until stopped; ``stats`` counts what they got."""

    def __init__(self, name: str, threads: int, step: Callable[[int, "Attack"], None]) -> None:
        self.name, self.stop, self.stats = name, threading.Event(), {}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(i, step), daemon=True) for i in range(threads)]

    def count(self, key: str, n: int = 1) -> None:
        with self.lock:
            self.stats[key] = self.stats.get(key, 0) + n

    def _run(self, i: int, step) -> None:
        while not self.stop.is_set():
            try:
                step(i, self)
            except (OSError, httpx.HTTPError) as exc:
                self.count(type(exc).__name__)
                time.sleep(0.05)

    def __enter__(self) -> "Attack":
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=20)


def slow_readers(port: int) -> Attack:
    request = b"GET /static/panel.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    def step(i: int, attack: Attack) -> None:
        s = connect(port, f"127.0.0.{10 + i}", rcvbuf=4096)
        attack.count("connections opened")
        try:
            s.sendall(request * 300)
            while not attack.stop.wait(1.0):
                s.send(request)  # more pipelined requests; fails once the server has dropped the connection
        except OSError:
            attack.count("connections dropped by the server")
        finally:
            s.close()

    return Attack("slow readers", 70, step)


def analysis_flood(url: str, port: int) -> Attack:
    games: dict[int, str] = {}

    def step(i: int, attack: Attack) -> None:
        if i < 12:  # a flooding client: evaluations of its own game (2 s searches), without pause
            with client(url, f"127.0.0.{100 + i}", timeout=60) as c:
                if i not in games:
                    state = c.post("/api/games", json={"seat": "second", "seconds": MAX_SECONDS}).json()
                    c.post(f"/api/games/{state['id']}/bot")  # the bot's komi: a position to evaluate
                    games[i] = state["id"]
                while not attack.stop.is_set():
                    reply = c.get(f"/api/games/{games[i]}/analysis", params={"move": 0})
                    attack.count(f"evaluations answered {reply.status_code}")
                    if reply.status_code == 429:
                        time.sleep(0.05)
        else:  # an abandoning client: asks for an evaluation of its game, closes its socket at once, every second
            if i not in games:
                with client(url, f"127.0.0.{100 + i}") as c:
                    state = c.post("/api/games", json={"seat": "second", "seconds": MAX_SECONDS}).json()
                    c.post(f"/api/games/{state['id']}/bot")
                    games[i] = state["id"]
            gid = games[i]
            s = connect(port, f"127.0.0.{100 + i}")
            s.sendall(f"GET /api/games/{gid}/analysis?move=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            s.close()
            attack.count("evaluations abandoned")
            attack.stop.wait(1.0)

    return Attack("analysis flood", 20, step)


def slot_grab(url: str) -> Attack:
    def step(i: int, attack: Attack) -> None:
        with client(url, f"127.0.0.{150 + i}") as c:
            held = []
            while not attack.stop.is_set():
                reply = c.post("/api/games", json={})
                if reply.status_code != 201:
                    attack.count(f"games refused {reply.status_code}")
                    break
                held.append(reply.json()["id"])
            attack.count("games taken", len(held))
            while not attack.stop.wait(1.0):  # keep every one alive
                alive = sum(c.get(f"/api/games/{gid}").status_code == 200 for gid in held)
                with attack.lock:
                    attack.stats.setdefault("games held", {})[i] = alive

    return Attack("slot grab", 10, step)


def idle_flood(port: int, total: int = 1100, addresses: int = 40) -> Attack:
    def step(i: int, attack: Attack) -> None:
        mine = [connect(port, f"127.0.0.{200 + i}") for _ in range(total // addresses)]
        attack.count("connections opened", len(mine))
        while not attack.stop.wait(0.5):  # reopen the ones the server closed
            for k, s in enumerate(mine):
                s.setblocking(False)
                try:
                    closed = s.recv(1) == b""
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if closed:
                    s.close()
                    mine[k] = connect(port, f"127.0.0.{200 + i}")
                    attack.count("connections closed by the server, reopened")
        for s in mine:
            s.close()

    return Attack("descriptor exhaustion", addresses, step)


def summary(times: list[float]) -> str:
    return (f"{len(times)} bot turns, median {statistics.median(times):.2f} s, slowest {max(times):.2f} s"
            if times else "no bot turn answered")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--simulations", type=int, default=100, help="the player's bot budget per move")
    parser.add_argument("--turns", type=int, default=12, help="bot turns timed per phase, at least")
    parser.add_argument("--phase-seconds", type=float, default=12.0,
                        help="how long the player plays under each attack, at least (past the server's "
                             "5 s idle and 10 s send deadlines, so the attack is met by them)")
    args = parser.parse_args()
    err = Path("/tmp") / f"bench_web_{time.time_ns()}.log"
    proc, port = start_server(err)
    url = f"http://127.0.0.1:{port}"
    machine = _machine.describe()
    print(machine.line())
    print(f"bench_web: catena-zero serve --bot {BOT.name} --workers 2 --max-seconds {MAX_SECONDS:g} under a "
          f"{FD_LIMIT}-descriptor limit; the player at 127.0.0.1 asks for {args.simulations} simulations a move; "
          f"bot turns (POST /bot, wall time) timed for {args.phase_seconds:g} s (at least {args.turns}) "
          f"with no attack, then under each attack after 4 s of it", flush=True)
    results = []
    try:
        player = Player(url, args.simulations)
        player.bot_turns(2)  # warm up (first searches load code paths)
        phases = [("no attack (baseline)", None), ("slow readers", lambda: slow_readers(port)),
                  ("analysis flood", lambda: analysis_flood(url, port)), ("slot grab", lambda: slot_grab(url)),
                  ("descriptor exhaustion", lambda: idle_flood(port))]
        for name, make in phases:
            player.failures = []
            with ExitStack() as stack:
                attack = stack.enter_context(make()) if make else None
                if attack:
                    time.sleep(4)  # the attack takes hold
                started = time.monotonic()
                new_game = player.new_game()
                times = player.bot_turns(args.turns, args.phase_seconds)
                wall = time.monotonic() - started
                stats = dict(attack.stats) if attack else {}
            held = stats.pop("games held", None)
            if held is not None:
                stats["games the attack held at the end"] = sum(held.values())
            line = (f"{name:24s} {summary(times)}; player's new game {new_game}, failed requests "
                    f"{len(player.failures)}{' ' + str(player.failures[:3]) if player.failures else ''}; "
                    f"phase {wall:.1f} s")
            print(line, flush=True)
            if stats:
                print(f"{'':24s} attack: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())), flush=True)
            results.append((name, times))
            time.sleep(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    log = err.read_text()
    print(f"server log: {len(log.splitlines())} lines, {log.count('Traceback')} tracebacks ({err})")
    base = statistics.median(results[0][1])
    worst = max((statistics.median(t), n) for n, t in results[1:] if t)
    print(f"bench_web {machine.tag()}: baseline median bot turn {base:.2f} s; worst median under attack {worst[0]:.2f} s ({worst[1]})")


if __name__ == "__main__":
    main()
