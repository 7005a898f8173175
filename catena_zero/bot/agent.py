"""The batched player (``Agent``), also a single-game ``Player`` at batch size one, and the
network's (``NetAgent``): the arena's matches (``eval/``) call ``NetAgent.act`` on a batch; ``play``,
``engine`` and ``serve`` reach it through ``bot.Bot``. So a bot file has one search, one set-up
policy and one randomness contract (the caller's generator) wherever it plays.

Shape legend: B games an agent is asked to move in (all running, all with this agent to move),
A actions (N cells + the button, ``game/spec.py``), F first stones of a no_komi game (R7).

``Agent.act(env, state, rng) -> [B] int64`` legal actions: ONE batched search call per move for every
game the agent thinks in (one evaluator call per simulation serves the batch, DESIGN.md sec. 3), so a
match of G games costs a side one search per ply, not G.

Tree reuse is off by default: every move gets exactly its stated budget, as in classic arena
baselines (OpenSpiel's MCTSBot searches each move afresh); with ``tree_reuse=True`` the kept subtree
adds the visits spent there before. The agent keeps one search per colour to move, because in a
match its Black and White games alternate between calls: each search then sees the same games in
the same slots from one move to the next, which re-rooting needs.

The set-up a network judges (R7; ``Capabilities.setup == JUDGED``), from its value and score heads in
one batched call each, without search: the komi whose value for Black is closest to even, ties by the
score (``search.komi.estimate_fair_komi``); as second player Black if Black's (value, score) at that
komi beats even (``better_than_even``); under no_komi the first stone after which Black is closest
to even (``act`` plays it at move 0), and the swap where the position is better for Black.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Callable, Optional

import numpy as np

from ..config import NetConfig, SearchConfig
from ..errors import UserError
from ..evalfn import EvalFn
from ..game.options import GameConfig, RuleSet
from ..game.rules import Game
from ..game.vec import EnvState, VecEnv
from ..search.komi import VALUE_RESOLUTION, KomiEstimate, closest_to_even, estimate_fair_komi, first_stone_values
from ..search.types import SearchOutput
from .players import CONFIGURED, JUDGED, NO_BUDGET, Budget, Capabilities, Setup

if TYPE_CHECKING:
    from ..net.model import CatenaNet
    from ..search.mcts import MCTS

MAX_SIMULATIONS = 100_000  # cap of a time-limited search (tree memory grows with simulations)
MAX_ENVS = 8  # envs whose evaluator and searches an agent keeps (one per rule set, a match's own)


def better_than_even(value: float, score: float) -> bool:
    """Whether (value, score) beats an even position, value first (to VALUE_RESOLUTION)."""
    rounded = round(value / VALUE_RESOLUTION)
    return rounded > 0 or (rounded == 0 and score > 0)


def check_batch(env: VecEnv, state: EnvState) -> None:
    if state.batch_size == 0:
        raise ValueError("an agent was asked to move in an empty batch of games")
    if state.done.any():
        raise ValueError("an agent was asked to move in a finished game")


class Agent(ABC):
    """A player for batches of games (``act``), and of single games as a ``Player`` (``choose``:
    the agent at batch size one); see the module docstring."""

    name: str = "agent"
    step: Optional[int] = None  # training step of a network agent (None for baselines)
    default_game: Optional[GameConfig] = None  # a network's default game (its run's game, a bot file's header)
    # What it can do as a single-game player: declared, never probed. A baseline makes the R7
    # set-up choices by the configured komi and a random colour, and plays any game.
    capabilities: Capabilities = Capabilities(setup=CONFIGURED)
    _rule_envs: Optional[dict[RuleSet, VecEnv]] = None  # env_for's env per rule set (single games)

    @abstractmethod
    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator) -> np.ndarray:
        """[B] int64 one legal action per game of ``state`` (running games, this agent to move)."""

    def reset(self) -> None:
        """Forget anything kept between calls (search trees) before a new set of games."""

    def komi_curve(self, config: GameConfig) -> Optional[KomiEstimate]:
        """The fair komi by this agent's own estimate (``capabilities.komi_curve``: it has a value
        head), or None without one or without komi (R7 no_komi, R8)."""
        return None

    def choose(self, game: Game, rng: Optional[np.random.Generator], budget: Budget = NO_BUDGET) -> str:
        """``Player``: the agent's move for the player to move in ``game`` (R10 notation), at batch
        size one on its env of the game's rule set (``env_for``, so a search agent keeps its
        searches); ``rng`` None draws from the position (``players.next_turn``)."""
        if game.is_over:
            raise ValueError("the game is over: there is no legal move to choose")
        env = self.env_for(game.config)
        rng = rng if rng is not None else np.random.default_rng([game.move_number])
        return env.spec.action_name(int(self.act_within(env, env.from_games([game]), rng, budget)[0]))

    def act_within(self, env: VecEnv, state: EnvState, rng: np.random.Generator, budget: Budget) -> np.ndarray:
        """``act`` within a per-move ``budget``; a baseline without a search has none to spend."""
        return self.act(env, state, rng)

    def env_for(self, config: GameConfig) -> VecEnv:
        """The agent's env of ``config``'s rule set for single games (komi 0: each state carries
        its game's komi), one per rule set, so its searches are kept from move to move."""
        if self._rule_envs is None:  # made on first use: subclasses need not call an __init__ here
            self._rule_envs = {}
        rules = RuleSet.of(config)
        if rules not in self._rule_envs:
            self._rule_envs[rules] = VecEnv(rules.game())
        return self._rule_envs[rules]


class EnvSearch:
    """What a search agent keeps for one env: its evaluator and its searches (one MCTS; one per
    colour to move under tree reuse)."""

    def __init__(self, env: VecEnv, eval_fn: EvalFn) -> None:
        self.env = env
        self.eval_fn = eval_fn
        self.searches: dict[int, "MCTS"] = {}
        self.warm = False  # a bot has run one forward pass on it (``Bot._env``)


class SearchAgent(Agent):
    """Moves by the batched MCTS over an evaluation function built for the env (no noise).

    Its budget per move is ``search.num_simulations``, or a time limit ``seconds``; ``act`` takes
    either as a keyword for one call (a bot's per-move budget)."""

    seconds: Optional[float] = None  # a time limit per move instead of the simulation count

    def __init__(self, name: str, search: SearchConfig, make_eval_fn: Callable[[VecEnv], EvalFn]) -> None:
        self.name = name
        self.search = search
        self._make_eval_fn = make_eval_fn
        self._envs: dict[int, EnvSearch] = {}  # id(env) -> its evaluator and searches, oldest first

    def reset(self) -> None:
        for kept in self._envs.values():
            kept.searches.clear()

    def searcher(self, env: VecEnv) -> EnvSearch:
        """The evaluator and searches of ``env`` (made on first use; at most MAX_ENVS kept: a
        match's env is new each match, a single-game player's is one per rule set)."""
        kept = self._envs.get(id(env))
        if kept is None or kept.env is not env:
            kept = self._envs[id(env)] = EnvSearch(env, self._make_eval_fn(env))
            while len(self._envs) > MAX_ENVS:
                del self._envs[next(iter(self._envs))]
        return kept

    def _search_for(self, env: VecEnv, state: EnvState) -> "MCTS":
        from ..search.mcts import MCTS

        kept = self.searcher(env)
        mover = state.to_move
        # One search per colour to move (module docstring): the same games in the same slots, and a
        # batch size that stays put, so the tree arrays are reused. A single game searched afresh
        # each move (a bot) needs one: one tree's memory, however long its time limit.
        per_colour = self.search.tree_reuse or state.batch_size > 1
        key = int(mover[0]) if per_colour and (mover == mover[0]).all() else 0
        if key not in kept.searches:
            kept.searches[key] = MCTS(env, kept.eval_fn, self.search)
        return kept.searches[key]

    def prepare(self, eval_fn: EvalFn, rng: np.random.Generator) -> None:
        """Hook before each search call (the rollout agent hands its evaluator the caller's rng)."""

    def run_search(self, env: VecEnv, state: EnvState, rng: np.random.Generator, *,
                   simulations: Optional[int] = None, seconds: Optional[float] = None) -> tuple[SearchOutput, "MCTS"]:
        """One batched search of ``state`` (no noise) and the MCTS that ran it (its tree: the
        analysis). The budget: ``simulations`` or ``seconds`` if given, else the agent's own; under a
        time limit the search runs until the time is up, at most MAX_SIMULATIONS."""
        check_batch(env, state)
        mcts = self._search_for(env, state)
        self.prepare(mcts.eval_fn, rng)
        if simulations is None and seconds is None:
            seconds = self.seconds
        if seconds is not None:
            return mcts.run(state, rng, add_noise=False, num_simulations=MAX_SIMULATIONS, seconds=seconds), mcts
        return mcts.run(state, rng, add_noise=False, num_simulations=simulations), mcts

    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator, *,
            simulations: Optional[int] = None, seconds: Optional[float] = None) -> np.ndarray:
        return self.run_search(env, state, rng, simulations=simulations, seconds=seconds)[0].action

    def act_within(self, env: VecEnv, state: EnvState, rng: np.random.Generator, budget: Budget) -> np.ndarray:
        return self.act(env, state, rng, simulations=budget.simulations, seconds=budget.seconds)


class NetAgent(SearchAgent):
    """A network through the batched search (its configured algorithm), without exploration noise;
    with ``setup=JUDGED`` (a bot file) it also makes the R7 set-up choices by its heads (module
    docstring), the no_komi first stone included."""

    def __init__(
        self,
        model: "CatenaNet",
        net: NetConfig,
        search: SearchConfig,
        name: str = "net",
        step: Optional[int] = None,
        simulations: Optional[int] = None,
        device: Optional[str] = None,
        tree_reuse: bool = False,
        default_game: Optional[GameConfig] = None,
        rule_sets: Optional[tuple] = None,
        seconds: Optional[float] = None,
        setup: Setup = CONFIGURED,
    ) -> None:
        """``simulations`` overrides ``search.num_simulations``, ``seconds`` replaces it by a time
        limit; ``device`` overrides ``net.device``; ``rule_sets`` (``RuleSet``s), if given, are the
        only games it accepts; ``setup``: ``JUDGED`` or ``CONFIGURED`` (``bot.players``)."""
        if simulations is not None and (isinstance(simulations, bool) or simulations < 1):
            raise UserError(f"simulations must be a positive integer, got {simulations!r}")
        search = dataclasses.replace(
            search, num_simulations=int(simulations or search.num_simulations), tree_reuse=tree_reuse)
        self.net = net if device is None else dataclasses.replace(net, device=device)
        self.model = model
        self.step = step
        self.default_game = default_game
        self.rule_sets = rule_sets
        self.seconds = None if seconds is None else float(seconds)
        self.capabilities = Capabilities(setup=setup, rule_sets=rule_sets, komi_curve=True)
        super().__init__(name, search, lambda env: self.evaluator(env))  # looked up when needed

    def evaluator(self, env: VecEnv):
        """A new ``NetEvaluator`` of this agent's model for ``env``."""
        from ..net.inference import NetEvaluator

        return NetEvaluator(self.model, env, self.net)

    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator, *,
            simulations: Optional[int] = None, seconds: Optional[float] = None) -> np.ndarray:
        judged = self.capabilities.setup is JUDGED and env.config.game_type_rule.has_swap
        opening = state.move_number == 0 if judged else np.zeros(state.batch_size, bool)  # [B]
        if not opening.any():
            return super().act(env, state, rng, simulations=simulations, seconds=seconds)
        check_batch(env, state)
        actions = np.full(state.batch_size, self.first_stone(env), np.int64)  # R7: set-up, not search
        rest = np.flatnonzero(~opening)
        if rest.size:
            actions[rest] = super().act(env, env.take(state, rest), rng, simulations=simulations, seconds=seconds)
        return actions

    def komi_curve(self, config: GameConfig, source: Optional[str] = None) -> Optional[KomiEstimate]:
        """The komi where the value head's value of the empty board for Black crosses 0.

        One forward pass over the empty board at every komi of the scoring's range (R6: 0-15, or
        0-1000 for quadratic); the network takes komi as an input, which is what lets it read off
        the fair komi (DESIGN.md sec. 4, KataGo). The choice is the bot's (``search.komi.fair_komi_of_curve``):
        the value closest to even, ties (a saturated or untrained head) by the score head's margin
        closest to 0, so a match's fair komi is the komi an exported bot of this network would name.
        Game types without komi (R7 no_komi, R8) have none to choose: None.
        """
        if not config.game_type_rule.has_komi:
            return None
        env = self.env_for(config)
        return estimate_fair_komi(env, self.searcher(env).eval_fn, source=source or f"value head of {self.name}")

    # -- the judged set-up (R7): a SetupPolicy (bot/players.py) -------------------------------------

    def evaluate(self, game: Game) -> tuple[float, float]:
        """The network's (value, score margin) of ``game`` for the player to move, without search."""
        env = self.env_for(game.config)
        evaluation = self.searcher(env).eval_fn(env.from_games([game]))
        return float(evaluation.value[0]), float(evaluation.score[0])

    def choose_komi(self, config: GameConfig) -> int:
        estimate = self.komi_curve(config)
        if estimate is None:
            raise ValueError(f"komi is chosen only under game type komi (R7), not {config.game_type!r}")
        return estimate.komi

    def choose_colour(self, config: GameConfig, komi: int) -> str:
        if not config.game_type_rule.has_komi:
            raise ValueError(f"the colour is chosen at a komi only under game type komi (R7), not "
                             f"{config.game_type!r}; under no_komi use choose_swap")
        game = Game(dataclasses.replace(config, komi=komi))  # UserError if komi is out of range
        value, score = self.evaluate(game)  # Black to move on the empty board
        return "black" if better_than_even(value, score) else "white"

    def choose_swap(self, game: Game) -> bool:
        if not isinstance(game, Game):
            raise ValueError(f"expected a catena_zero.game.Game, got {type(game).__name__}")
        if not game.config.game_type_rule.has_swap:
            raise ValueError(f"swap exists only under game type no_komi (R7), not {game.config.game_type!r}")
        if game.move_number != 1:
            raise ValueError(f"the swap is chosen right after Black's first stone; this game has "
                             f"{game.move_number} moves")
        value, score = self.evaluate(game)  # White to move
        return better_than_even(-value, -score)

    def first_stone_values(self, env: VecEnv) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """([F] first stones, [F] Black's value, [F] Black's score) of ``env``'s no_komi rule set."""
        return first_stone_values(self.searcher(env).eval_fn, env)

    def first_stone(self, env: VecEnv) -> int:
        """The no_komi first stone (R7) closest to even by the heads, as an action of ``env``."""
        return closest_to_even(*self.first_stone_values(env))
