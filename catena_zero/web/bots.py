"""The bot as the web server sees it: ``BotLike``, the one player protocol (``bot.players.Player``)
with what a served bot adds, a pool of bot instances that think in worker threads, and
``bot_event``, the bot's next R10 event of a match (its set-up answers through the one set-up
function, ``bot.players.setup_answer``).

The server depends only on this protocol (the API of ``catena_zero.bot.Bot``), so tests can
drive it with small stand-ins (a slow bot, a bot that answers nonsense) as well as the real bot.
What a bot can do besides moving is read from its declared ``capabilities``, never probed: the
set-up policy, the rule sets it plays, its fair komi (``komi_curve``: the komi advice) and its
analysis (``play_and_analyze``, ``analyze``, ``ownership``: the value graph and the evaluation).

Why threads and a pool: a think takes from milliseconds to seconds and must not run on the
event loop, or every other page would wait for it. Each worker thread takes one bot instance
from the pool for the duration of a call, so no bot instance is ever used by two threads at
once (a bot may keep per-search state such as a reused tree); with K instances, K games can
think at the same time, and further requests queue for a free instance while the server keeps
answering everything else.

Which waits first (``WorkQueue``): a bot's move in a game in play before any evaluation, each
kind in arrival order, and with several workers evaluations use all but one, so a flood of them
never delays a game's moves by more than what is already thinking. Work whose request is
cancelled (its client left) before a worker takes it is dropped; a search already running
finishes, within its budget.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import queue
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol, Sequence, TypeVar, runtime_checkable

import numpy as np

from ..bot.players import Player, setup_answer
from ..game.match import Match
from ..game.options import GameConfig
from ..game.rules import Game

T = TypeVar("T")

MOVE = "move"  # a bot's turn in a game in play: first in line
ANALYSIS = "analysis"  # an evaluation or a fair komi, asked for by a person: after the moves
KINDS = (MOVE, ANALYSIS)


@runtime_checkable
class BotLike(Player, Protocol):
    """A ``Player`` the server can serve (``catena_zero.bot.Bot``); events in R10 notation.

    Besides ``capabilities`` and ``choose`` it has a default game and a move by a budget; its
    optional parts are those its ``capabilities`` declare (module docstring)."""

    game_config: GameConfig  # the options it plays by default
    simulations: Optional[int]  # its own budget per move: a simulation count, or
    seconds: Optional[float]  # a time limit (None: not this kind of budget)

    def select_move(self, game: Game, **budget: Any) -> str:
        """A legal move for the player to move ("D5" or "button"); ``budget``: ``budget_kwargs``."""
        ...


def plays(bot: BotLike, config: GameConfig) -> bool:
    """Whether ``bot`` plays ``config``'s side, game type and scoring (its declared rule sets)."""
    return bot.capabilities.plays(config)


@dataclass(frozen=True)
class Snapshot:
    """What a worker thread reads: immutable options and a private copy of the game, so the
    thread never touches a ``Match`` that the event loop owns."""

    phase: str  # Match.phase: "komi", "colour" or "play"
    config: GameConfig  # the match's configured options (komi 0 under game type komi)
    game: Optional[Game]  # a copy of the match's game; None before the komi choice

    @classmethod
    def of(cls, match: Match) -> "Snapshot":
        game = match.game
        return cls(phase=match.phase, config=match.config, game=None if game is None else game.copy())


@dataclass(frozen=True)
class BotAnswer:
    """The bot's next event and, for a move, its analysis of the position it moved in (the
    same search; None for set-up events, a forced move, or a bot that declares no analysis)."""

    event: str
    analysis: Any = None


def budget_kwargs(simulations: Optional[int], seconds: Optional[float]) -> dict[str, Any]:
    """The keyword arguments that give one search its budget; {} for the bot's own."""
    if simulations is not None:
        return {"simulations": simulations}
    if seconds is not None:
        return {"seconds": seconds}
    return {}


def bot_answer(bot: BotLike, snap: Snapshot, budget: Optional[dict[str, Any]] = None) -> BotAnswer:
    """``bot_event`` with the analysis of the bot's move where the bot gives one
    (``play_and_analyze``, one search for both); ``budget`` from ``budget_kwargs``."""
    budget = budget or {}
    if snap.phase == "play":
        if bot.capabilities.analysis:
            move, analysis = bot.play_and_analyze(snap.game, **budget)  # type: ignore[attr-defined]
            return BotAnswer(move, analysis)
        return BotAnswer(bot.select_move(snap.game, **budget))
    return BotAnswer(bot_event(bot, snap))


def bot_event(bot: BotLike, snap: Snapshot) -> str:
    """The bot's next event in R10 notation for the phase of ``snap`` (R7, then play).

    The answer is not trusted here: the caller applies it to the match, which rejects anything
    malformed or illegal.
    """
    if snap.phase == "play":
        return bot.select_move(snap.game)
    # A judged set-up (the served bots') draws nothing; a random colour is drawn from the
    # position, so the same question gets the same answer, as the bot's moves do.
    rng = np.random.default_rng([0 if snap.game is None else snap.game.move_number])
    return setup_answer(bot, snap.phase, snap.config, snap.game, rng)  # ValueError in a phase without a choice


class WorkQueue:
    """The K worker threads handed out on the event loop: a waiting ``MOVE`` before any waiting
    ``ANALYSIS``, each kind first come first served; with K > 1, analyses on at most K - 1 at
    once, so a move never waits for more than the moves ahead of it. A waiter cancelled before
    its turn leaves the line."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.analysis_workers = max(1, workers - 1)
        self.busy: collections.Counter[str] = collections.Counter()
        self._waiting: dict[str, collections.deque[asyncio.Future]] = {k: collections.deque() for k in KINDS}

    async def acquire(self, kind: str) -> None:
        """Wait for a worker for ``kind``; the caller must ``release(kind)`` once the work ends."""
        turn = asyncio.get_running_loop().create_future()
        self._waiting[kind].append(turn)
        self._grant()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # granted as the waiter was cancelled
                self.release(kind)
            else:
                turn.cancel()
                self._waiting[kind].remove(turn)
            raise

    def release(self, kind: str) -> None:
        self.busy[kind] -= 1
        self._grant()

    def _grant(self) -> None:
        for kind, limit in ((MOVE, self.workers), (ANALYSIS, self.analysis_workers)):
            line = self._waiting[kind]
            while line and sum(self.busy.values()) < self.workers and self.busy[kind] < limit:
                turn = line.popleft()
                if not turn.done():
                    self.busy[kind] += 1
                    turn.set_result(None)


class BotPool:
    """K bot instances and K worker threads; ``await pool.run(fn)`` calls ``fn(bot)`` in a
    worker with an instance nobody else is using, off the event loop."""

    def __init__(self, bots: Sequence[BotLike], executor: Optional[ThreadPoolExecutor] = None,
                 line: Optional[WorkQueue] = None) -> None:
        """``executor`` and ``line``: worker threads shared with other pools (``BotPools``),
        else K of its own."""
        if not bots:
            raise ValueError("a bot pool needs at least one bot")
        for bot in bots:
            if not isinstance(bot, BotLike):
                raise TypeError(f"{type(bot).__name__} does not have the bot API (BotLike)")
        self.reference = bots[0]  # read-only questions (game_config, supports) on the loop
        self.size = len(bots)
        self._free: "queue.SimpleQueue[BotLike]" = queue.SimpleQueue()
        for bot in bots:
            self._free.put(bot)
        self._executor = executor or ThreadPoolExecutor(max_workers=len(bots), thread_name_prefix="catena-bot")
        self.line = line or WorkQueue(len(bots))

    @classmethod
    def of(cls, factory: Callable[[int], BotLike], size: int,
           executor: Optional[ThreadPoolExecutor] = None, line: Optional[WorkQueue] = None) -> "BotPool":
        """``size`` instances made by ``factory(i)`` (e.g. loading the bot file with seed i)."""
        if size < 1:
            raise ValueError(f"the number of bot workers must be >= 1, got {size}")
        return cls([factory(i) for i in range(size)], executor, line)

    async def run(self, fn: Callable[[BotLike], T], kind: str = MOVE) -> T:
        """``fn(bot)`` in a worker once ``kind``'s turn comes (``WorkQueue``). Cancelled while
        waiting, it never runs; cancelled while running, it finishes but nobody waits for it."""
        loop = asyncio.get_running_loop()
        await self.line.acquire(kind)
        try:
            done: Future = self._executor.submit(self._call, fn)
        except BaseException:
            self.line.release(kind)
            raise
        # The worker is free again when the thread ends, not when the waiter stops waiting.
        done.add_done_callback(lambda _: _on_loop(loop, self.line.release, kind))
        return await asyncio.wrap_future(done, loop=loop)

    def _call(self, fn: Callable[[BotLike], T]) -> T:
        bot = self._free.get()
        try:
            return fn(bot)
        finally:
            self._free.put(bot)

    def close(self) -> None:
        """Stop taking work; a think in progress finishes in its thread, queued ones are dropped."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class BotPools:
    """The pools of the bots one server plays (one per bot file, e.g. every shipped bot), sharing
    K worker threads, so at most K games are thought about at once whichever bots they use. The
    first pool's bot gives the default game; a game's pool is the one for its rules, chosen as
    ``bot/shipped.py`` chooses a shipped bot: a specialist (its default game has these rules)
    before a generalist, then the earlier one."""

    def __init__(self, pools: Sequence[BotPool]) -> None:
        if not pools:
            raise ValueError("a server needs at least one bot")
        self.pools = tuple(pools)
        self.reference = self.pools[0].reference  # the default game's bot

    @classmethod
    def of(cls, factories: Sequence[Callable[[int], BotLike]], size: int) -> "BotPools":
        """One pool of ``size`` instances per factory, all on ``size`` shared worker threads."""
        if size < 1:
            raise ValueError(f"the number of bot workers must be >= 1, got {size}")
        executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="catena-bot")
        line = WorkQueue(size)
        try:
            return cls([BotPool.of(factory, size, executor, line) for factory in factories])
        except BaseException:
            executor.shutdown(wait=False, cancel_futures=True)
            raise

    def for_game(self, config: GameConfig) -> BotPool:
        """The pool whose bot plays ``config``'s rules (``ValueError`` if none does: the server
        refuses such a game before it exists)."""
        playing = [pool for pool in self.pools if plays(pool.reference, config)]
        if not playing:
            raise ValueError(f"no bot of this server plays {config}")
        own = [p for p in playing if (p.reference.game_config.side, p.reference.game_config.game_type,
                                      p.reference.game_config.scoring) == (config.side, config.game_type, config.scoring)]
        return (own or playing)[0]

    def close(self) -> None:
        for pool in self.pools:
            pool.close()


def _on_loop(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    """Call ``fn(*args)`` on ``loop`` from a worker thread (nothing once the loop has closed)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(fn, *args)
