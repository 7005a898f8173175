"""``Bot``: an exported network (``export.py``) that plays, chooses the R7 set-up and analyses.

Shape legend: A actions (N cells + the button), K komi values of a scoring's range.

    from catena_zero.bot import Bot
    bot = Bot.load("bot.file", simulations=200)    # or seconds=1.5; device="auto"; seed=0
    bot.game_config                                  # GameConfig it plays by default
    bot.capabilities.plays(config)                   # trained for this side, game type and scoring?
    move = bot.choose(game)                          # R10 notation ("D5", "button")
    komi = bot.choose_komi(config)                   # first player, game type komi (R7)
    colour = bot.choose_colour(config, komi)         # second player: "black" or "white"
    swap = bot.choose_swap(game)                     # no_komi, after Black's first stone
    info = bot.analyze(game)                         # Analysis: value, score, top moves

A ``Bot`` is a ``Player`` (``players.py``): its file's ``NetAgent`` (``agent.py``) at batch size one,
the agent ``evaluate``, ``ladder`` and ``ablate`` play a bot file as, so a bot file plays one way
everywhere; the bot adds the analysis, the komi curve's checks and per-move budgets. Moves come from
the batched search with the file's ``SearchConfig``, no exploration noise, a fresh tree every move.
``choose(game, rng)`` draws from the caller's generator; with rng None (the engine, the page),
``play_and_analyze`` and ``analyze`` draw from ``position_rng`` (the bot's seed and the position), so
with a simulation count the same file, seed and game always give the same move.

Set-up choices (R7) are the agent's judgement by its value and score heads (``agent.py``). Why the
komi closest to even: the second player takes the better colour at the named komi k, so the first
player's value is min(V(k), -V(k)) = -|V(k)|, best where V(k) is nearest 0; where the value head is
saturated the score head orders komis (``search.komi.fair_komi_of_curve``). The no_komi first stone
follows the same reasoning, the second player being free to take over Black after it.

Time limits (``seconds``): under Gumbel the search fixes its budget, and so its sequential-halving
schedule, from its measured speed after the first simulations; such moves depend on the machine's
speed, so only a simulation count is reproducible. Threads: at batch 1 a small network gains little
from several torch threads and loses badly on shared cores (``scripts/bench_bot.py``); the commands
set one (``--threads``), and the Bot leaves the process-wide ``torch.set_num_threads`` alone.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from ..artifacts.botfile import BotHeader, RuleSet, averaging_label
from ..artifacts.network import BOT, TrainedNetwork, load_network
from ..errors import UserError
from ..game.options import SCORINGS, GameConfig
from ..game.rules import Game
from ..game.vec import VecEnv
from ..search.komi import KomiEstimate
from ..search.tree import ROOT, UNVISITED
from ..search.types import SearchOutput
from .agent import NetAgent
from .players import JUDGED, NO_BUDGET, Budget, Capabilities, check_plays

if TYPE_CHECKING:
    import torch

    from ..search.mcts import MCTS

# ------------------------------------------------------------------------------ records


@dataclass(frozen=True)
class MoveAnalysis:
    """One root move of a search, from the perspective of the player to move."""

    move: str  # R10 notation
    visits: int  # simulations through the move
    value: float  # mean backed-up value after the move, in [-1, 1]
    score: float  # mean predicted final score margin after the move (mover minus opponent)
    prior: float  # the network's prior probability of the move
    # The principal variation from the move on: the move, then the most visited reply at each node
    # the search expanded (at most PV_MOVES moves), as KataGo's and Leela Zero's analyses give it.
    pv: tuple[str, ...] = ()


PV_MOVES = 16  # the longest principal variation an analysis reports


@dataclass(frozen=True)
class Analysis:
    """What the bot thinks of a position (``Bot.analyze``); values for the player to move."""

    to_move: str  # "black" or "white"
    # The search's value of the position, P(win) - P(loss), in [-1, 1], and its expected final score
    # margin (R6), mover minus opponent: those of the move it plays (``best``), where the search
    # visited it. Not the root's mean over all its visits: Gumbel's sequential halving gives the last
    # candidates equal visits, so where one move wins and the next best loses the mean sits near even
    # (docs/RESULTS.md, "Where side6.bot loses": +0.94 for the move, -0.40 for the mean).
    value: float
    score: float
    best: str  # the move ``choose`` plays
    moves: tuple[MoveAnalysis, ...]  # searched moves, most visited first
    simulations: int  # simulations of this search
    seconds: float  # time it took
    net_value: float  # the network's own value of the position (no search)
    net_score: float  # the network's own score margin


def merge_analyses(a: Analysis, b: Analysis, top: int) -> Analysis:
    """Two independent searches of one position as one (root parallelisation, Chaslot et al. 2008):
    each move's visits add up, its value and score are the visit-weighted means, its line is the
    one of the search that visited it more; the best move is then the most visited. A streaming
    analysis grows this way without keeping a tree between reports. ``top``: moves kept."""
    merged: dict[str, MoveAnalysis] = {}
    for m in (*a.moves, *b.moves):
        seen = merged.get(m.move)
        if seen is None:
            merged[m.move] = m
            continue
        visits = seen.visits + m.visits
        weight = m.visits / visits if visits else 0.5
        merged[m.move] = MoveAnalysis(
            move=m.move, visits=visits, value=seen.value + weight * (m.value - seen.value),
            score=seen.score + weight * (m.score - seen.score), prior=m.prior,
            pv=m.pv if m.visits > seen.visits else seen.pv)
    moves = sorted(merged.values(), key=lambda m: -m.visits)[:top]
    best = moves[0] if moves else None
    return dataclasses.replace(
        b, value=best.value if best else b.value, score=best.score if best else b.score,
        best=best.move if best else b.best, moves=tuple(moves), simulations=a.simulations + b.simulations,
        seconds=a.seconds + b.seconds)


# ------------------------------------------------------------------------------ set-up choices (R7)


def check_budget(simulations: Optional[int], seconds: Optional[float]) -> None:
    """UserError unless at most one of a simulation count (>= 1) and a time limit (> 0) is given."""
    if simulations is not None and seconds is not None:
        raise UserError("give the bot a simulation count or a time limit, not both")
    if simulations is not None and (isinstance(simulations, bool) or not isinstance(simulations, int)
                                    or simulations < 1):
        raise UserError(f"simulations must be a positive whole number, got {simulations!r}")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not seconds > 0):
        raise UserError(f"seconds must be a positive number, got {seconds!r}")


class Bot:
    """A network with its search settings that plays Catena (see the module docstring).

    Safe to share between threads: every call that searches or evaluates holds the bot's lock, so
    calls on one bot run one at a time (a web server may share one bot between requests; for
    moves in parallel, load one bot per thread).
    """

    def __init__(
        self,
        model: "torch.nn.Module",
        header: BotHeader,
        *,
        simulations: Optional[int] = None,
        seconds: Optional[float] = None,
        device: str = "auto",
        seed: int = 0,
        path: Optional[Path] = None,
    ) -> None:
        check_budget(simulations, seconds)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise UserError(f"seed must be a non-negative whole number, got {seed!r}")
        from ..net.device import resolve_device  # torch: imported with the first bot, not with the package

        self.header = header
        self.path = path
        if simulations is None and seconds is None:
            simulations = header.search.num_simulations  # the exported default
        self.simulations: Optional[int] = simulations  # None under a time limit
        self.seconds = float(seconds) if seconds is not None else None
        self.seed = int(seed)
        self.net_config = dataclasses.replace(header.net, device=device)
        self.device = resolve_device(device, "device")  # UserError for an unknown or absent device
        self.model = model.to(self.device).eval()
        # The one way a bot file plays (bot/agent.py): the network agent with the file's search
        # settings and this budget, its set-up judged by its heads, at batch size one.
        self.agent = NetAgent(self.model, self.net_config, header.search, name=self.name, step=header.step,
                              simulations=simulations, seconds=self.seconds, default_game=header.game,
                              rule_sets=header.trained_for, setup=JUDGED)
        self.capabilities = Capabilities(setup=JUDGED, rule_sets=self.trained_for, komi_curve=True, analysis=True)
        self._lock = threading.RLock()

    # -- loading -----------------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        simulations: Optional[int] = None,
        seconds: Optional[float] = None,
        device: str = "auto",
        seed: int = 0,
    ) -> Bot:
        """The bot of a file written by ``catena-zero export``; ``BotFileError`` if it is bad.

        Without ``simulations`` or ``seconds`` the file's default search settings decide.
        """
        return cls.from_network(load_network(path, BOT), simulations=simulations, seconds=seconds, device=device,
                                seed=seed)

    @classmethod
    def from_network(cls, network: TrainedNetwork, **options) -> Bot:
        """The bot of a network as read (``artifacts.network.load_network``): a bot file's, or a
        checkpoint's with the header ``export`` would give it."""
        return cls(network.model(), network.bot_header(), path=network.path, **options)

    # -- what it plays -----------------------------------------------------------------------------

    @property
    def game_config(self) -> GameConfig:
        """The options it plays by default (the exported run's game)."""
        return self.header.game

    @property
    def trained_for(self) -> tuple[RuleSet, ...]:
        return self.header.trained_for

    @property
    def name(self) -> str:
        """A short name for people and protocols, e.g. "catena-zero bot step 1200"."""
        return f"catena-zero bot step {self.header.step}"

    def _rules(self, config: GameConfig) -> RuleSet:
        """``config``'s rule set if the bot plays it, else ``UnsupportedGame`` naming what it plays."""
        return check_plays(self, config, "this bot")

    def _env(self, rules: RuleSet) -> VecEnv:
        """The agent's env of ``rules``; the first time, one forward pass to warm up (the first is
        slow: allocations, kernels), so a time-limited first move is not spent on it."""
        env = self.agent.env_for(rules.game())
        searcher = self.agent.searcher(env)
        if not searcher.warm:
            searcher.eval_fn(env.reset(1))
            searcher.warm = True
        return env

    def position_rng(self, game: Game) -> np.random.Generator:
        """The generator of the search of ``game``: determined by the bot's seed and the position
        (options, komi, moves), so a position's move does not depend on what was searched before."""
        c = game.config
        entropy = [self.seed, c.side, c.game_type_rule.index, SCORINGS.index(c.scoring), c.komi,
                   game.move_number, *map(game.spec.action, game.history)]
        return np.random.default_rng(np.random.SeedSequence(entropy))

    def _search(self, game: Game, simulations: Optional[int] = None,
                seconds: Optional[float] = None) -> tuple[SearchOutput, "MCTS", VecEnv, int, float]:
        """One search of ``game`` by the agent, with the position's generator (``position_rng``)."""
        if not isinstance(game, Game):
            raise ValueError(f"expected a catena_zero.game.Game, got {type(game).__name__}")
        rules = self._rules(game.config)
        if game.is_over:
            raise ValueError("the game is over: there is no move to choose")
        budget = self._budget(Budget(simulations, seconds))
        env = self._env(rules)
        start = time.perf_counter()
        output, mcts = self.agent.run_search(env, env.from_games([game]), self.position_rng(game),
                                             simulations=budget.simulations, seconds=budget.seconds)
        # Every simulation passes through one root action (the tree was fresh).
        return output, mcts, env, int(output.visits[0].sum()), time.perf_counter() - start

    @staticmethod
    def _budget(budget: Budget) -> Budget:
        """``budget`` checked (UserError for a bad one), its time limit a float; neither: the bot's own."""
        if budget.simulations is None and budget.seconds is None:
            return budget
        check_budget(budget.simulations, budget.seconds)
        return budget if budget.seconds is None else Budget(seconds=float(budget.seconds))

    def _forced(self, game: Game, budget: Budget) -> Optional[str]:
        """The move when there is nothing to search: the one legal move, or the no_komi first stone
        (R7, judged by the heads as the agent plays it); None otherwise."""
        if not isinstance(game, Game) or game.is_over:
            return None  # _search says what is wrong
        rules = self._rules(game.config)
        legal = game.legal_moves()
        if len(legal) == 1:  # nothing to think about
            self._budget(budget)  # still refuse a bad budget
            return legal[0]
        if game.config.game_type_rule.has_swap and game.move_number == 0:
            self._budget(budget)
            env = self._env(rules)
            return env.spec.action_name(self.agent.first_stone(env))
        return None

    # -- playing: a Player (bot/players.py) ----------------------------------------------------------

    def choose(self, game: Game, rng: Optional[np.random.Generator] = None, budget: Budget = NO_BUDGET) -> str:
        """Its move for the player to move in ``game``, in R10 notation ("D5" or "button"), by the
        agent at batch size one; ``budget`` replaces the bot's for this move only. ``rng`` None:
        the position's generator (``position_rng``), else the caller's (as ``eval/`` plays a bot
        file: ``NetAgent.act`` with its rng)."""
        with self._lock:
            if rng is None:
                forced = self._forced(game, budget)
                if forced is not None:
                    return forced
                output, _, env, _, _ = self._search(game, budget.simulations, budget.seconds)
                return env.spec.action_name(int(output.action[0]))
            if not isinstance(game, Game):
                raise ValueError(f"expected a catena_zero.game.Game, got {type(game).__name__}")
            self._env(self._rules(game.config))  # warmed up, as a first move under a time limit needs
            return self.agent.choose(game, rng, self._budget(budget))

    def play_and_analyze(self, game: Game, budget: Budget = NO_BUDGET) -> tuple[str, Optional["Analysis"]]:
        """``choose(game)``'s move and the analysis of the same search (one search, not two), so a
        caller can keep the bot's value and score of every position it moved in; the analysis
        is None when there was nothing to think about (one legal move, the no_komi first stone)."""
        with self._lock:
            forced = self._forced(game, budget)
            if forced is not None:
                return forced, None
            analysis = self.analyze(game, simulations=budget.simulations, seconds=budget.seconds)
            return analysis.best, analysis

    def analyze(self, game: Game, top: int = 10, *, simulations: Optional[int] = None,
                seconds: Optional[float] = None) -> Analysis:
        """The search's view of ``game``: value, score, and its ``top`` most visited moves
        (``simulations`` or ``seconds``: this search's budget instead of the bot's)."""
        with self._lock:
            output, mcts, env, simulations, seconds = self._search(game, simulations, seconds)
            return self._analysis(output, mcts, env, 0, game, simulations, seconds, top)

    def analyze_many(self, games: Sequence[Game], top: int = 10, *,
                     simulations: Optional[int] = None) -> list[Analysis]:
        """``analyze`` of many positions at once: ONE batched search per rule set among them (one
        network call per simulation serves every position, DESIGN.md sec. 3), each position with
        the same simulation budget and its own fresh tree, so a position's analysis does not
        depend on its neighbours in the batch (only on the random numbers it draws). For the
        JSON-lines analysis engine (``bot/analysis.py``), where programs analyse whole games."""
        with self._lock:
            if simulations is not None:
                check_budget(simulations, None)
            # A bot with a time budget analyses a batch by its file's simulation count instead.
            simulations = simulations or self.simulations or self.header.search.num_simulations
            out: dict[int, Analysis] = {}
            groups: dict[RuleSet, list[int]] = {}
            for i, game in enumerate(games):
                if not isinstance(game, Game):
                    raise ValueError(f"expected a catena_zero.game.Game, got {type(game).__name__}")
                if game.is_over:
                    raise ValueError(f"position {i} is over: there is no move to choose")
                groups.setdefault(self._rules(game.config), []).append(i)
            for rules, slots in groups.items():
                env = self._env(rules)
                batch = [games[i] for i in slots]
                rng = np.random.default_rng([self.seed, len(batch), *(g.move_number for g in batch)])
                start = time.perf_counter()
                output, mcts = self.agent.run_search(env, env.from_games(batch), rng, simulations=simulations)
                elapsed = time.perf_counter() - start
                for b, (i, game) in enumerate(zip(slots, batch)):
                    out[i] = self._analysis(output, mcts, env, b, game, int(output.visits[b].sum()), elapsed, top)
            return [out[i] for i in range(len(games))]

    def _analysis(self, output: SearchOutput, mcts: "MCTS", env: VecEnv, b: int, game: Game, simulations: int,
                  seconds: float, top: int) -> Analysis:
        """The ``Analysis`` of game ``b`` of a finished search."""
        tree = mcts.tree
        spec = env.spec
        visits = tree.child_visits[b, ROOT]
        best = int(output.action[b])
        value, score = self._child_means(tree, b)
        # The move it plays first, then by visits and value (Gumbel's winner is among the most
        # visited, but need not have the highest mean value).
        ranked = np.lexsort((-np.nan_to_num(value, nan=-2.0), -visits, np.arange(visits.size) != best))
        moves = tuple(
            MoveAnalysis(
                move=spec.action_name(int(a)),
                visits=int(visits[a]),
                value=float(value[a]),
                score=float(score[a]),
                prior=float(tree.priors[b, ROOT, a]),
                pv=self._pv(tree, spec, b, int(a)),
            )
            for a in [a for a in ranked if visits[a] > 0][:top]
        )
        played = np.isfinite(value[best]) if 0 <= best < value.size else False
        return Analysis(
            to_move=game.to_move,
            value=float(value[best] if played else output.value[b]),
            score=float(score[best] if played else output.score[b]),
            best=spec.action_name(best),
            moves=moves,
            simulations=simulations,
            seconds=seconds,
            net_value=float(tree.raw_value[b, ROOT]),
            net_score=float(tree.raw_score[b, ROOT]),
        )

    @staticmethod
    def _pv(tree, spec, b: int, action: int) -> tuple[str, ...]:
        """The principal variation of root ``action`` in game ``b``'s tree: the action, then at each
        expanded node below it its most visited action (the first on a tie), while one was visited."""
        line, node = [action], int(tree.children[b, ROOT, action])
        while node != UNVISITED and len(line) < PV_MOVES:
            visits = tree.child_visits[b, node]
            best = int(np.argmax(visits))
            if visits[best] <= 0:
                break
            line.append(best)
            node = int(tree.children[b, node, best])
        return tuple(spec.action_name(a) for a in line)

    @staticmethod
    def _child_means(tree, b: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """[A] mean win value and score margin after each root action of game ``b``, root mover's
        view (NaN if unvisited).

        Read from the child nodes (the edges hold the search's utility, not the win value): a child's
        values are for its own player to move, so they flip where that is the other player.
        """
        children = tree.children[b, ROOT].astype(np.int64)  # [A]
        exists = children != UNVISITED
        node = np.where(exists, children, 0)
        visits = np.where(exists, tree.visits[b, node], 0)
        sign = np.where(tree.player[b, node] == tree.player[b, ROOT], 1.0, -1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(visits > 0, sign * tree.value_sum[b, node] / visits, np.nan)
            score = np.where(visits > 0, sign * tree.score_sum[b, node] / visits, np.nan)
        return value, score

    def evaluate(self, game: Game) -> tuple[float, float]:
        """The network's (value, score margin) of ``game`` for the player to move, without search."""
        with self._lock:
            self._env(self._rules(game.config))
            return self.agent.evaluate(game)

    def ownership(self, game: Game) -> tuple[float, ...]:
        """[N] the network's expected final owner of each cell of ``game`` (cells in notation order),
        in Black's view: +1 Black's, -1 White's, near 0 uncertain or empty (KataGo's ownership map)."""
        with self._lock:
            env = self._env(self._rules(game.config))
            owned = self.agent.searcher(env).eval_fn.ownership(env.from_games([game]))[0]  # mover's view
            sign = 1.0 if game.to_move == "black" else -1.0
            return tuple(float(sign * v) for v in owned)

    # -- the set-up (R7): the agent's judgement (bot/agent.py), with the bot's checks ----------------

    def komi_curve(self, config: GameConfig) -> KomiEstimate:
        """Black's value and score on the empty board at every komi of the range (game type komi)."""
        with self._lock:
            if isinstance(config, GameConfig) and not config.game_type_rule.has_komi:
                raise ValueError(f"komi is chosen only under game type komi (R7), not {config.game_type!r}")
            self._env(self._rules(config))
            curve = self.agent.komi_curve(config, source=f"value and score heads of {self.name}")
            assert curve is not None  # a game type with komi
            return curve

    def choose_komi(self, config: GameConfig) -> int:
        """As first player under game type komi (R7): the komi closest to even by its heads."""
        return self.komi_curve(config).komi

    def choose_colour(self, config: GameConfig, komi: int) -> str:
        """As second player under game type komi (R7): "black" or "white", whichever its heads prefer."""
        with self._lock:
            if isinstance(config, GameConfig) and config.game_type_rule.has_komi:
                self._env(self._rules(config))
            return self.agent.choose_colour(config, komi)

    def choose_first_stone(self, config: GameConfig) -> str:
        """As first player under no_komi (R7): Black's first stone, the one closest to even by its
        heads (the second player then gains nothing by taking Black). ``choose`` plays it."""
        with self._lock:
            env = self._first_stone_env(config)
            return env.spec.action_name(self.agent.first_stone(env))

    def first_stone_values(self, config: GameConfig) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
        """Under no_komi (R7): every first stone Black may be given ([F] cell names) with Black's
        value and score after it by its heads ([F] each), what ``choose_first_stone`` and
        ``choose_swap`` decide by."""
        with self._lock:
            env = self._first_stone_env(config)
            stones, value, score = self.agent.first_stone_values(env)
            return tuple(env.spec.action_name(int(a)) for a in stones), value, score

    def _first_stone_env(self, config: GameConfig) -> VecEnv:
        if isinstance(config, GameConfig) and not config.game_type_rule.has_swap:
            raise ValueError(f"the first stone is a set-up choice only under game type no_komi (R7), "
                             f"not {config.game_type!r}")
        return self._env(self._rules(config))

    def choose_swap(self, game: Game) -> bool:
        """As second player under no_komi (R7), after Black's first stone: take over Black?"""
        with self._lock:
            if isinstance(game, Game) and game.config.game_type_rule.has_swap:
                self._env(self._rules(game.config))
            return self.agent.choose_swap(game)

    def __repr__(self) -> str:
        budget = f"{self.seconds:g} s" if self.seconds is not None else f"{self.simulations} simulations"
        rules = ", ".join(str(r) for r in self.trained_for)
        return f"Bot({self.name}, {budget}{averaging_label(self.net_config)}, {rules})"


def komi_table(curve: KomiEstimate, around: Optional[int] = 5) -> str:
    """The komi curve as a text table, the fair komi marked; only komis within ``around`` of it
    (every komi when ``around`` is None). The first player's value at komi k is -|V(k)| (R7)."""
    fair = curve.komi
    rules = curve.rules
    lines = [
        f"fair komi {fair} for side {rules.side}, {rules.scoring} scoring (game type komi, R7), "
        f"by the bot's value and score heads on the empty board",
        f"  {'komi':>5}  {'black value':>11}  {'black score':>11}  {'first player':>12}",
    ]
    for komi, value, score in zip(curve.komis, curve.black_value, curve.black_score):
        if around is not None and abs(komi - fair) > around:
            continue
        mark = ">" if komi == fair else " "
        lines.append(f"{mark} {komi:>5}  {value:>+11.3f}  {score:>+11.2f}  {-abs(value):>+12.3f}")
    lines.append("black value / score: Black to move on the empty board (value in [-1, 1], score margin "
                 "in points); first player: -|black value|, what the second player's best colour leaves them")
    return "\n".join(lines) + "\n"
