"""The bots of the web server: pools of bot instances that think in worker threads.

A served bot is a ``Player`` (``bot/players.py``) asked for its next event through
``players.next_turn`` on a copy of the match (``Match.copy``: the worker never touches the match the
event loop owns); what it can do besides moving is read from its declared ``capabilities``. Tests
drive the server with small stand-ins (a slow bot, a bot that answers nonsense) as well as the real one.

Why threads and a pool: a think takes from milliseconds to seconds and must not run on the event
loop, or every other page would wait for it. Each worker thread takes one bot instance for the
duration of a call, so no instance is used by two threads at once (a bot may keep per-search state
such as a reused tree); with K instances K games think at once, and further requests queue for a
free instance (moves first: ``WorkQueue``) while the server keeps answering everything else.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import queue
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TypeVar

from ..bot.players import Player
from ..game.options import GameConfig, RuleSet

if TYPE_CHECKING:
    from ..bot.bot import Bot

T = TypeVar("T")

MOVE = "move"  # a bot's turn in a game in play: first in line
ANALYSIS = "analysis"  # an evaluation or a fair komi, asked for by a person: after the moves
KINDS = (MOVE, ANALYSIS)


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

    def __init__(self, bots: Sequence[Bot], executor: Optional[ThreadPoolExecutor] = None,
                 line: Optional[WorkQueue] = None) -> None:
        """``executor`` and ``line``: worker threads shared with other pools (``BotPools``),
        else K of its own."""
        if not bots:
            raise ValueError("a bot pool needs at least one bot")
        for bot in bots:
            if not isinstance(bot, Player):
                raise TypeError(f"{type(bot).__name__} is not a player (bot.players.Player)")
        self.reference = bots[0]  # read-only questions (game_config, supports) on the loop
        self.size = len(bots)
        self._free: "queue.SimpleQueue[Bot]" = queue.SimpleQueue()
        for bot in bots:
            self._free.put(bot)
        self._executor = executor or ThreadPoolExecutor(max_workers=len(bots), thread_name_prefix="catena-bot")
        self.line = line or WorkQueue(len(bots))

    @classmethod
    def of(cls, factory: Callable[[int], Bot], size: int,
           executor: Optional[ThreadPoolExecutor] = None, line: Optional[WorkQueue] = None) -> "BotPool":
        """``size`` instances made by ``factory(i)`` (e.g. loading the bot file with seed i)."""
        if size < 1:
            raise ValueError(f"the number of bot workers must be >= 1, got {size}")
        return cls([factory(i) for i in range(size)], executor, line)

    async def run(self, fn: Callable[[Bot], T], kind: str = MOVE) -> T:
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

    def _call(self, fn: Callable[[Bot], T]) -> T:
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
    def of(cls, factories: Sequence[Callable[[int], Bot]], size: int) -> "BotPools":
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
        playing = [pool for pool in self.pools if pool.reference.capabilities.plays(config)]
        if not playing:
            raise ValueError(f"no bot of this server plays {config}")
        own = [p for p in playing if RuleSet.of(p.reference.game_config) == RuleSet.of(config)]
        return (own or playing)[0]

    def close(self) -> None:
        for pool in self.pools:
            pool.close()


def _on_loop(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    """Call ``fn(*args)`` on ``loop`` from a worker thread (nothing once the loop has closed)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(fn, *args)
