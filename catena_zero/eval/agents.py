"""Agents: players that choose one move for each of a BATCH of games in one call (the arena's players).

Shape legend: B games an agent is asked to move in (all running, all with this agent to move),
A actions (N cells + the button, ``game/spec.py``), K komi values of a range (R6).

``Agent.act(env, state, rng) -> [B] int64`` legal actions. A batched search agent runs ONE search
call per move for every game it is thinking in (one evaluator call per simulation serves every
leaf of the batch, DESIGN.md sec. 3), so a match of G games costs a side one search per ply, not G.
``reset()`` forgets what the agent kept between calls (its search trees) before a new set of games.

Implementations:
- ``RandomAgent``: uniform over the legal actions (``game.vec.random_legal_actions``).
- ``GreedyAgent``: the action with the best immediate score margin for the mover (R6 scores after
  that one action, claims included); every legal action of every game is stepped in one batch;
  ties are broken uniformly at random, so greedy games vary.
- ``UCTAgent`` (``mcts:K``): classic UCT (Kocsis and Szepesvari 2006) as PUCT over uniform priors
  with random-rollout leaf values (``search/rollout.py``), K simulations per move. This is the one
  meaning of ``mcts:K`` wherever a player is named (``specs.py``), ``play --opponent`` included.
- ``NetAgent``: a ``CatenaNet`` through the batched search with ``net/inference.py``'s
  ``NetEvaluator``, no exploration noise (evaluation, not self-play). Its value head gives the
  fair komi of a game (``komi_estimate``).

``AgentPlayer`` is any agent as a single-game ``Player`` (``bot/players.py``, what ``play
--opponent`` needs): the agent at batch size one, which takes the search's and the engine's
single-game fast paths. ``specs.py`` is the registry that builds agents and players from strings.

Tree reuse is off by default for the search agents: every move then gets exactly its stated
simulation budget, as in classic arena baselines (OpenSpiel's MCTSBot searches each move afresh);
with ``tree_reuse=True`` the kept subtree adds the visits the previous search spent there. The
agent keeps one search per colour to move, because in a match the games where it plays Black and
those where it plays White alternate between calls: each search then sees the same games in the
same slots from one of its moves to the next, which is what re-rooting needs.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Callable, Optional

import numpy as np

from ..bot.players import CONFIGURED, RANDOM, Capabilities, check_plays
from ..config import NetConfig, SearchConfig
from ..errors import UserError
from ..evalfn import EvalFn
from ..game.options import GameConfig, RuleSet
from ..game.vec import BLACK, EnvState, VecEnv, random_legal_actions
from ..search.komi import KomiEstimate, estimate_fair_komi

if TYPE_CHECKING:
    from ..game.match import Match
    from ..game.rules import Game
    from ..net.model import CatenaNet

# The greedy agent steps every legal action of every game; above this many copies at once it works
# through the batch in slices, so a side-10 batch (271 actions a game) stays a few tens of MB.
GREEDY_MAX_ROWS = 16384


class Agent(ABC):
    """A player for batches of games; see the module docstring."""

    name: str = "agent"
    step: Optional[int] = None  # training step of a network agent (None for baselines)
    default_game: Optional[GameConfig] = None  # a network's default game (its run's game, a bot file's header)
    # What it can do as a single-game player (``AgentPlayer``): declared, never probed. A baseline
    # makes the R7 set-up choices by the configured komi and a random colour, and plays any game.
    capabilities: Capabilities = Capabilities(setup=CONFIGURED)

    @abstractmethod
    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator) -> np.ndarray:
        """[B] int64 one legal action per game of ``state`` (running games, this agent to move)."""

    def reset(self) -> None:
        """Forget anything kept between calls (search trees) before a new set of games."""

    def komi_estimate(self, game: GameConfig) -> Optional[KomiEstimate]:
        """The fair komi by this agent's own estimate (``capabilities.fair_komi``: it has a value
        head), or None without one or without komi (R7 no_komi, R8)."""
        return None

    def check_game(self, game: GameConfig) -> None:
        """UserError (one line) if this agent does not play games with these options
        (``capabilities.rule_sets``: a bot file names the rule sets it plays)."""
        check_plays(self, game, self.name)


def _check_batch(env: VecEnv, state: EnvState) -> None:
    if state.batch_size == 0:
        raise ValueError("an agent was asked to move in an empty batch of games")
    if state.done.any():
        raise ValueError("an agent was asked to move in a finished game")


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"
    capabilities = Capabilities(setup=RANDOM)

    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator) -> np.ndarray:
        _check_batch(env, state)
        return random_legal_actions(env.legal_actions(state), rng)


class GreedyAgent(Agent):
    """The legal action with the best immediate score margin for the mover (ties at random)."""

    name = "greedy"

    def __init__(self, max_rows: int = GREEDY_MAX_ROWS) -> None:
        self.max_rows = max_rows

    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator) -> np.ndarray:
        _check_batch(env, state)
        legal = env.legal_actions(state)  # [B, A]
        mover_black = state.to_move == BLACK  # [B]
        game, action = np.nonzero(legal)  # [L] every legal (game, action) pair, row-major
        margin = np.empty(game.size, np.float32)  # [L] mover's margin after that action
        for start in range(0, game.size, self.max_rows):
            part = slice(start, start + self.max_rows)
            after = env.take(state, game[part])
            env.step(after, action[part])
            scores = after.scores  # [l, 2] black, white
            diff = scores[:, 0] - scores[:, 1]
            margin[part] = np.where(mover_black[game[part]], diff, -diff)
        best = np.full(state.batch_size, -np.inf, np.float32)
        np.maximum.at(best, game, margin)
        ties = np.zeros_like(legal)
        # Margins are multiples of 0.5 (standard, quadratic) or whole numbers (longest): exact compare.
        ties[game, action] = margin >= best[game]
        return random_legal_actions(ties, rng)


class SearchAgent(Agent):
    """Moves by the batched MCTS over an evaluation function built for the env (no noise)."""

    def __init__(self, name: str, search: SearchConfig, make_eval_fn: Callable[[VecEnv], EvalFn]) -> None:
        self.name = name
        self.search = search
        self._make_eval_fn = make_eval_fn
        self._env: Optional[VecEnv] = None
        self._eval_fn: Optional[EvalFn] = None
        self._searches: dict[int, object] = {}  # colour to move (0: mixed) -> MCTS

    def reset(self) -> None:
        self._searches.clear()

    def _search_for(self, env: VecEnv, state: EnvState):
        from ..search.mcts import MCTS

        if env is not self._env:
            self._env, self._eval_fn = env, self._make_eval_fn(env)
            self._searches.clear()
        mover = state.to_move
        key = int(mover[0]) if (mover == mover[0]).all() else 0
        if key not in self._searches:
            self._searches[key] = MCTS(env, self._eval_fn, self.search)
        return self._searches[key]

    def prepare(self, rng: np.random.Generator) -> None:
        """Hook before each search call (the rollout agent hands its evaluator the caller's rng)."""

    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator) -> np.ndarray:
        _check_batch(env, state)
        search = self._search_for(env, state)
        self.prepare(rng)
        return search.run(state, rng, add_noise=False).action


def uct_search_config(simulations: int, tree_reuse: bool = False) -> SearchConfig:
    """PUCT over uniform priors: classic UCT with AlphaZero's c(s) (``search/puct.py``).

    Classic UCT backs up game results only, so KataGo's score utility (``search/utility.py``) is
    off: the baseline stays the textbook one whatever the network's search defaults become.
    """
    if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1:
        raise UserError(f"mcts needs a positive simulation count, got {simulations!r}")
    return SearchConfig(algorithm="puct", num_simulations=int(simulations), tree_reuse=tree_reuse,
                        score_utility_weight=0.0)


class UCTAgent(SearchAgent):
    """``mcts:K``: UCT with K random-rollout simulations per move (one rollout per leaf)."""

    def __init__(self, simulations: int, tree_reuse: bool = False, num_rollouts: int = 1) -> None:
        from ..search.rollout import RolloutEvaluator

        self.simulations = int(simulations)
        self._rollout: Optional[RolloutEvaluator] = None

        def make(env: VecEnv) -> EvalFn:
            # The rng is replaced by the caller's before every search (``prepare``).
            self._rollout = RolloutEvaluator(env, np.random.default_rng(0), num_rollouts)
            return self._rollout

        super().__init__(f"mcts:{simulations}", uct_search_config(simulations, tree_reuse), make)

    def prepare(self, rng: np.random.Generator) -> None:
        assert self._rollout is not None
        self._rollout.rng = rng  # randomness is passed in, never global (same seed, same games)


class NetAgent(SearchAgent):
    """A network through the batched search (its configured algorithm), without exploration noise."""

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
    ) -> None:
        """``simulations`` overrides ``search.num_simulations``; ``device`` overrides ``net.device``;
        ``rule_sets`` (``RuleSet``s), if given, are the only games it accepts."""
        if simulations is not None and (isinstance(simulations, bool) or simulations < 1):
            raise UserError(f"simulations must be a positive integer, got {simulations!r}")
        search = dataclasses.replace(
            search, num_simulations=int(simulations or search.num_simulations), tree_reuse=tree_reuse)
        self.net = net if device is None else dataclasses.replace(net, device=device)
        self.model = model
        self.step = step
        self.default_game = default_game
        self.rule_sets = rule_sets
        self.capabilities = Capabilities(setup=CONFIGURED, rule_sets=rule_sets, fair_komi=True)
        super().__init__(name, search, self.evaluator)

    def evaluator(self, env: VecEnv):
        """A ``NetEvaluator`` of this agent's model for ``env``."""
        from ..net.inference import NetEvaluator

        return NetEvaluator(self.model, env, self.net)

    def komi_estimate(self, game: GameConfig) -> Optional[KomiEstimate]:
        """The komi where the value head's value of the empty board for Black crosses 0.

        One forward pass over the empty board at every komi of the scoring's range (R6: 0-15, or
        0-1000 for quadratic); the network takes komi as an input, which is what lets it read off
        the fair komi (DESIGN.md sec. 4, KataGo). The choice is the bot's (``search.komi.fair_komi``):
        the value closest to even, ties (a saturated or untrained head) by the score head's margin
        closest to 0, so a match's fair komi is the komi an exported bot of this network would name.
        Game types without komi (R7 no_komi, R8) have none to choose: None.
        """
        if game.game_type != "komi":
            return None
        env = VecEnv(game)
        return estimate_fair_komi(env, self.evaluator(env), source=f"value head of {self.name}")


class AgentPlayer:
    """An ``Agent`` as a single-game ``Player`` (``bot/players.py``): the agent at batch size one.

    One env per rule set (komi 0: each state carries its game's komi), so a search agent keeps
    its searches from move to move (``SearchAgent`` keys them by env). Its capabilities are the
    agent's: the R7 set-up at random for the random agent, else the configured komi and a random
    colour (``players.setup_answer``); a network's fair komi (``komi_curve``).
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self._envs: dict[RuleSet, VecEnv] = {}

    @property
    def name(self) -> str:
        return self.agent.name

    @property
    def capabilities(self) -> Capabilities:
        return self.agent.capabilities

    def env_for(self, config: GameConfig) -> VecEnv:
        rules = RuleSet.of(config)
        env = self._envs.get(rules)
        if env is None:
            env = self._envs[rules] = VecEnv(rules.game())
        return env

    def choose(self, game: "Game", rng: np.random.Generator) -> str:
        """The agent's move for the player to move in ``game`` (R10 notation)."""
        if game.is_over:
            raise ValueError("the game is over: there is no legal move to choose")
        env = self.env_for(game.config)
        action = int(self.agent.act(env, env.from_games([game]), rng)[0])
        return env.spec.action_name(action)

    def komi_curve(self, config: GameConfig) -> Optional[KomiEstimate]:
        """``capabilities.fair_komi``: the network's fair-komi estimate for ``config``'s rule set
        (``search/komi.py``); None without komi (R7 no_komi, R8)."""
        return self.agent.komi_estimate(config)
