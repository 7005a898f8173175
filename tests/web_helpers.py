"""Helpers shared by the web tests: a real bot file, a live server in a thread, stand-in bots.

- ``make_bot_file``: an untrained tiny-net checkpoint (configs/tiny.yaml) saved with
  ``save_checkpoint`` and exported with the bot's ``export_bot``, declared trained for every
  game type and scoring on side 3, so the real ``Bot`` plays all of them.
- ``LiveServer``: uvicorn serving an app on a free localhost port in a background thread, so
  tests talk HTTP to the real event loop (concurrency tests need a real loop and real sockets).
- Stand-in players (``bot.players.Player``, with a served bot's default game and budget) for what a real bot cannot be made to do on demand: think
  until released (``GatedBot``), answer nonsense (``BadBot``), play instantly (``QuickBot``).
  They declare their capabilities as every player does: the set-up by fixed answers (judged),
  the rule sets of their side, an analysis of sorts, no fair komi.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import numpy as np
import uvicorn

from catena_zero.artifacts.botfile import RuleSet, export_bot
from catena_zero.bot.players import JUDGED, NO_BUDGET, Capabilities
from catena_zero.config import load_config
from catena_zero.game.options import GAME_TYPES, SCORINGS, GameConfig
from catena_zero.net import model_from_config
from catena_zero.artifacts.checkpoint import Checkpoint, load_checkpoint, save_checkpoint

ROOT = Path(__file__).resolve().parent.parent
JSON = {"Content-Type": "application/json"}  # every state-changing request says JSON (the server refuses others)
SIDE3_RULES = tuple(RuleSet(3, t, s) for t in GAME_TYPES for s in SCORINGS)


def make_bot_file(folder: Path, trained_for=SIDE3_RULES) -> Path:
    """An exported untrained tiny network, playing every rule set in ``trained_for``."""
    config = load_config(ROOT / "configs" / "tiny.yaml")
    model = model_from_config(config.net)
    saved = save_checkpoint(folder / "run", Checkpoint(step=0, config=config, model=model.state_dict()))
    out = folder / "tiny.bot"
    export_bot(load_checkpoint(saved), out, trained_for=trained_for)
    return out


class LiveServer:
    """``with LiveServer(app) as server:`` serves ``app`` at ``server.url`` until the block ends."""

    def __init__(self, app) -> None:
        self.app = app
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


def raw_get(port: int, target: str) -> tuple[int, bytes]:
    """GET ``target`` byte for byte (no client-side path normalisation); (status, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


class QuickBot:
    """Uniformly random legal moves, fixed set-up answers: for tests about the server, not play."""

    name = "quick bot"
    simulations = None  # no budget of its own
    seconds = None

    def __init__(self, seed: int = 0, side: int = 3) -> None:
        self.game_config = GameConfig(side=side)
        self.rng = np.random.default_rng(seed)
        self.calls = 0
        self.capabilities = Capabilities(setup=JUDGED, rule_sets=tuple(RuleSet(side, t, s) for t in GAME_TYPES
                                                                       for s in SCORINGS), analysis=True)

    def choose(self, game, rng=None, budget=NO_BUDGET) -> str:
        self.calls += 1
        moves = game.legal_moves()
        return moves[int(self.rng.integers(len(moves)))]

    def play_and_analyze(self, game, budget=NO_BUDGET):
        return self.choose(game, None, budget), None  # no analysis of its moves: no value graph

    def choose_komi(self, config) -> int:
        return 4

    def choose_colour(self, config, komi) -> str:
        return "white"

    def choose_swap(self, game) -> bool:
        return True

    def analyze(self, game, **budget):
        return {"value": 0.0, "score": 0.0, "moves": [{"move": m, "visits": 1} for m in game.legal_moves()[:2]]}

    def ownership(self, game) -> tuple[float, ...]:
        return (0.0,) * game.spec.num_cells


class GatedBot(QuickBot):
    """The first move any instance of the group is asked for waits until ``gate`` is set."""

    def __init__(self, gate: threading.Event, group: dict, seed: int = 0) -> None:
        super().__init__(seed)
        self.gate = gate
        self.group = group  # shared by the pool's instances: {"calls": n, "lock": Lock}

    def choose(self, game, rng=None, budget=NO_BUDGET) -> str:
        with self.group["lock"]:
            self.group["calls"] += 1
            first = self.group["calls"] == 1
        if first:
            self.group["waiting"].set()
            assert self.gate.wait(timeout=60), "the test never released the gated bot"
        return super().choose(game, rng, budget)


class BadBot(QuickBot):
    """Answers an illegal move, or raises, as told."""

    def __init__(self, answer: str | None) -> None:
        super().__init__()
        self.answer = answer

    def choose(self, game, rng=None, budget=NO_BUDGET) -> str:
        if self.answer is None:
            raise RuntimeError("the network exploded")
        return self.answer
