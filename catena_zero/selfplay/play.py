"""Self-play in one process: G games of the network against itself, one batched search per move.

Shape legend: G games in flight of one rule set, L = N + 1 the most plies a game can have (every
cell once, plus the button), W packed env row width, A actions (N cells + button), N cells.

What a ``SelfPlayer`` does per ply, for all its games at once (AlphaZero self-play with KataGo's
refinements, KataGo 2019 sec. 3):
- Playout cap randomisation: each game draws whether this move gets the full search
  (``search.num_simulations``, recording a policy target) or a cheap one
  (``selfplay.cheap_simulations``, value-type targets only); one search call serves both budgets.
  Cheap searches go without root noise unless ``selfplay.cheap_search_noise`` (KataGo 2019 sec. 3.1);
  a cheap position is recorded for training with probability ``selfplay.cheap_record_prob`` (KataGo: 0).
- Auto-reset: a finished game is turned into a ``Trajectory`` (outcome, final score margin and
  ownership for every position, from its mover's view) and its slot starts a new game at once,
  so the batch stays full and nobody waits for the longest game.
- Varied openings (KataGo, Wu 2019): a share ``policy_opening_prob`` of new games first
  plays a few moves sampled from the network's raw policy, unsearched and unrecorded
  (``_policy_openings``), so the games do not all share their first plies.
- Komi randomisation: every new game draws its komi around the current fair-komi estimate of the
  network (``search/komi.py``), with a share spread over the whole range (R6).
- Rule randomisation: the G slots are split over the configured rule sets (sides x game types x
  scorings, ``rule_sets``); each rule set is one vectorised env and one search, and the searches
  of all rule sets advance in lockstep (``search.mcts.run_lockstep``): one evaluation call per
  simulation serves every game, whatever its rules.
- Soft resignation: a game in which one colour's chosen moves' values (``SearchOutput.action_value``,
  not the root mean, which under Gumbel averages in weaker considered moves) stay below ``-resign_threshold`` for
  ``resign_consecutive`` of that colour's moves in a row continues with cheap searches only, its
  later positions weighted ``resign_weight``; a share of games never resigns and measures false
  resignations. The run is counted per colour: the mover alternates, and a lost game reads -0.95,
  +0.95, -0.95 ... from the movers' views.
- The no_komi set-up (R7): the first player places Black's first stone and the second player then
  takes the better colour, so the first stone is chosen for balance, not for Black (``_opening``).
  Which colour the second player takes does not change the game a colour-relative network sees.

CPU time is measured per call (``time.process_time``, the actor's process), split into the
network's inference and the rest (search, environment, bookkeeping).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, fields
from typing import Optional

import numpy as np
import torch

from ..config import Config
from ..evalfn import BatchEvalFn
from ..game.options import GameConfig, RuleSet
from ..game.vec import BLACK, EMPTY, WHITE, VecEnv
from ..net import NetEvaluator, model_from_config
from ..search.komi import estimate_fair_komi, first_stone_values
from ..search.mcts import MCTS, LockstepSearch, SearchOutput, run_lockstep
from .types import Trajectory


@dataclass(frozen=True)
class SelfPlayStats:
    """Counters of one ``SelfPlayer.play`` call (sums, so calls and actors add up field by field)."""

    plies: int = 0  # moves played, over all games
    policy_positions: int = 0  # positions with a full search (policy target)
    simulations: int = 0  # search simulations run
    games: int = 0  # games finished
    black_wins: int = 0
    white_wins: int = 0
    draws: int = 0
    button_taken: int = 0  # finished games in which a player took the button (R4)
    game_plies: int = 0  # plies of the finished games (mean length = game_plies / games)
    resignations: int = 0  # games that resigned (soft: they went on with cheap searches)
    resign_checks: int = 0  # games that never resign but would have: the false-resignation sample
    false_resignations: int = 0  # ... of which the side that would have resigned won
    value_sq_error: float = 0.0  # sum over positions of (root value - final outcome)^2: calibration
    openings: int = 0  # no_komi first stones chosen for balance (R7)
    swaps: int = 0  # ... after which the second player takes Black (Black's value better than even)
    seconds: float = 0.0  # wall time of the call
    inference_seconds: float = 0.0  # of which in the network's evaluation
    cpu_seconds: float = 0.0  # CPU time of the call (the actor's process)
    inference_cpu_seconds: float = 0.0  # of which in the network's evaluation

    def __add__(self, other: "SelfPlayStats") -> "SelfPlayStats":
        return SelfPlayStats(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})


@dataclass(frozen=True)
class SelfPlayResult:
    """What one ``play`` call produced: the finished games (one ``Trajectory`` per rule set that
    finished any) and the counters."""

    trajectories: list[Trajectory]
    stats: SelfPlayStats


class _TimedBatchEvaluator:
    """Wraps a ``BatchEvalFn`` and adds up the seconds spent in it (the inference share)."""

    def __init__(self, evaluate_many: BatchEvalFn) -> None:
        self.evaluate_many = evaluate_many
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def __call__(self, requests):
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            return self.evaluate_many(requests)
        finally:
            self.seconds += time.perf_counter() - started
            self.cpu_seconds += time.process_time() - cpu_started


class _Group:
    """The games of one rule set: env, search, live state and the per-ply records of every slot."""

    def __init__(self, game: GameConfig, games: int, model: torch.nn.Module, config: Config, shared: NetEvaluator) -> None:
        self.game = game
        self.env = VecEnv(game)
        self.evaluator = NetEvaluator(model, self.env, config.net, folded=shared.net)  # one fold for all groups
        self.search = MCTS(self.env, self.evaluator, config.search)
        self.size = games
        plies = self.env.spec.num_cells + 1  # L
        width = self.env.reset(1).data.shape[1]  # W
        actions, cells = self.env.num_actions, self.env.spec.num_cells
        self.rows = np.zeros((games, plies, width), np.int16)  # [G, L, W]
        self.policy = np.zeros((games, plies, actions), np.float16)  # [G, L, A]
        self.has_policy = np.zeros((games, plies), bool)  # [G, L]
        self.weight = np.ones((games, plies), np.float32)  # [G, L]
        self.version = np.zeros((games, plies), np.int32)  # [G, L]
        self.mover = np.zeros((games, plies), np.int8)  # [G, L] colour to move
        self.root_value = np.zeros((games, plies), np.float32)  # [G, L] for calibration
        self.length = np.zeros(games, np.int64)  # [G] plies recorded in the slot's game
        # [G, 2] per colour (BLACK - 1, WHITE - 1): that colour's consecutive moves below -threshold
        self.low_value_run = np.zeros((games, 2), np.int64)
        self.would_resign = np.full(games, EMPTY, np.int8)  # [G] colour that (would have) resigned
        self.resign_allowed = np.ones(games, bool)  # [G] False for the no-resignation share
        self.komi_estimate = 0  # the komi its games are centred on: the value head's fair komi
        self.opening: Optional[np.ndarray] = None  # [A] no_komi first-stone distribution (R7), per version
        self.opening_black_value: Optional[np.ndarray] = None  # [A] Black's value after each first stone
        self.num_cells = cells
        self.state = self.env.reset(games)


class SelfPlayer:
    """G games in flight (split over the rule sets) of one network against itself."""

    def __init__(self, config: Config, rng: np.random.Generator, model: Optional[torch.nn.Module] = None) -> None:
        self.config = config
        self.rng = rng
        if model is None:
            generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
            model = model_from_config(config.net, generator)
        self.model = model.eval()
        self.version = 0
        sets = config.rule_sets()
        per_set = max(1, config.selfplay.games_per_actor // len(sets))
        # One padded forward pass for the games of every rule set (net/inference.py evaluate_many).
        shared = NetEvaluator(self.model, None, config.net)
        self.evaluate_many = _TimedBatchEvaluator(shared.evaluate_many)
        self.groups = [_Group(rules.game(), per_set, self.model, config, shared) for rules in sets]
        for group in self.groups:
            group.komi_estimate = self._estimate_fair_komi(group)
            self._start_games(group, np.arange(group.size))

    # -- weights ---------------------------------------------------------------------------------

    def set_weights(self, weights: dict[str, torch.Tensor], version: int) -> None:
        """Play the next moves with these weights (``version`` is recorded with every position)."""
        self.model.load_state_dict(weights)
        self.model.eval()
        self.version = int(version)
        for group in self.groups:
            group.komi_estimate = self._estimate_fair_komi(group)
            group.opening = None  # recomputed with the new weights when a game needs it
            if self.config.selfplay.reset_trees_on_new_weights:
                group.search.reset()  # else the kept trees' statistics stay, one chunk old

    def komi_estimates(self) -> dict[RuleSet, int]:
        """The current fair-komi estimate of every rule set (what new games are centred on)."""
        return {RuleSet.of(g.game): g.komi_estimate for g in self.groups}

    def _estimate_fair_komi(self, group: _Group) -> int:
        return estimate_fair_komi(group.env, group.evaluator).komi

    # -- playing ---------------------------------------------------------------------------------

    def play(self, plies: int) -> SelfPlayResult:
        """Play ``plies`` moves in every game in flight; return the games that finished meanwhile."""
        started, cpu_started = time.perf_counter(), time.process_time()
        self.evaluate_many.seconds = self.evaluate_many.cpu_seconds = 0.0
        finished: list[list[Trajectory]] = [[] for _ in self.groups]
        stats = SelfPlayStats()
        for _ in range(plies):
            step_stats, trajectories = self._ply()
            stats = stats + step_stats
            for index, group_trajectories in enumerate(trajectories):
                finished[index].extend(group_trajectories)
        merged = [_concat(group.game, trajs) for group, trajs in zip(self.groups, finished) if trajs]
        stats = stats + SelfPlayStats(seconds=time.perf_counter() - started,
                                      inference_seconds=self.evaluate_many.seconds,
                                      cpu_seconds=time.process_time() - cpu_started,
                                      inference_cpu_seconds=self.evaluate_many.cpu_seconds)
        return SelfPlayResult(trajectories=merged, stats=stats)

    def _ply(self) -> tuple[SelfPlayStats, list[list[Trajectory]]]:
        """One move in every game of every rule set: the searches of all rule sets advance in
        lockstep, so each simulation is ONE evaluation call for every game (``run_lockstep``)."""
        config, rng = self.config, self.rng
        full = [(rng.random(g.size) < config.selfplay.full_search_prob) & ~_resigned(g) for g in self.groups]
        budgets = [np.where(f, config.search.num_simulations, config.selfplay.cheap_simulations) for f in full]
        noise = [f | config.selfplay.cheap_search_noise for f in full]  # [G] root noise per game
        searches = [LockstepSearch(g.search, g.state, rng, add_noise=n, num_simulations=b)
                    for g, n, b in zip(self.groups, noise, budgets)]
        outputs = run_lockstep(searches, self.evaluate_many)
        stats, trajectories = SelfPlayStats(), []
        for group, out, group_full, budget in zip(self.groups, outputs, full, budgets):
            out, group_full, opening_stats = self._opening(group, out, group_full)
            step, done = self._record_and_step(group, out, group_full, budget)
            step = step + opening_stats
            stats = stats + step
            trajectories.append(done)
        return stats, trajectories

    def _record_and_step(self, group: _Group, out, full: np.ndarray,
                         budget: np.ndarray) -> tuple[SelfPlayStats, list[Trajectory]]:
        """Record each game's position and search result, play the chosen moves, finish games."""
        config = self.config
        games = np.arange(group.size)
        state = group.state
        t = group.length
        group.rows[games, t] = state.data
        group.policy[games, t] = np.where(full[:, None], out.policy, 0.0)
        group.has_policy[games, t] = full
        group.weight[games, t] = np.where(_resigned(group), config.selfplay.resign_weight, 1.0)
        group.version[games, t] = self.version
        mover = state.to_move
        group.mover[games, t] = mover
        group.root_value[games, t] = out.value
        self._track_resignation(group, out.action_value, mover)

        group.env.step(state, out.action)
        group.length += 1
        done = np.flatnonzero(state.done)
        step = SelfPlayStats(plies=group.size, policy_positions=int(full.sum()), simulations=int(budget.sum()))
        if done.size == 0:
            return step, []
        finished = [self._finish(group, int(i)) for i in done]
        for _, game_stats in finished:
            step = step + game_stats
        self._start_games(group, done)
        return step, [trajectory for trajectory, _ in finished]

    def _opening(self, group: _Group, out: SearchOutput, full: np.ndarray
                 ) -> tuple[SearchOutput, np.ndarray, SelfPlayStats]:
        """no_komi (R7): games at Black's first stone play a balanced stone instead of the search's.

        The first player places Black's stone, then the second player takes the better colour, so
        the first player's value is -|v| with v Black's value after the stone: the stone is drawn
        with probability ~ exp(-|v| / opening_temperature), and that distribution is the position's
        policy target (the empty board's policy so learns where the fair first stones are).
        """
        if not group.game.game_type_rule.has_swap:
            return out, full, SelfPlayStats()
        first = np.flatnonzero(group.state.move_number == 0)
        if first.size == 0:
            return out, full, SelfPlayStats()
        if group.opening is None:
            group.opening, group.opening_black_value = self._opening_distribution(group)
        actions = self.rng.choice(group.opening.size, size=first.size, p=group.opening)
        action, policy, full = out.action.copy(), out.policy.copy(), full.copy()
        action[first] = actions
        policy[first] = group.opening
        full[first] = True
        swaps = int((group.opening_black_value[actions] > 0).sum())
        return (dataclasses.replace(out, action=action, policy=policy), full,
                SelfPlayStats(openings=int(first.size), swaps=swaps))

    def _opening_distribution(self, group: _Group) -> tuple[np.ndarray, np.ndarray]:
        """([A] first-stone distribution, [A] Black's value after each stone): one network call."""
        env = group.env
        stones, value, _ = first_stone_values(group.evaluator, env)
        black_value = np.zeros(env.num_actions, np.float64)
        black_value[stones] = value
        logits = -np.abs(value) / self.config.selfplay.opening_temperature
        weights = np.exp(logits - logits.max())
        distribution = np.zeros(env.num_actions, np.float64)
        distribution[stones] = weights / weights.sum()
        return distribution, black_value

    def _track_resignation(self, group: _Group, value: np.ndarray, mover: np.ndarray) -> None:
        """Soft resignation (KataGo 2019 sec. 5): count each colour's consecutive hopeless root values.

        The count is per colour, not per ply: the player to move alternates (twice the same under
        double, R8), and a lost game reads -0.95 for the loser and +0.95 for the winner in turn.
        """
        play = self.config.selfplay
        games = np.arange(group.size)
        column = mover.astype(np.int64) - BLACK  # 0 Black, 1 White
        hopeless = value < -play.resign_threshold
        run = np.where(hopeless, group.low_value_run[games, column] + 1, 0)
        group.low_value_run[games, column] = run
        trigger = (run >= play.resign_consecutive) & (group.would_resign == EMPTY)
        group.would_resign = np.where(trigger, mover, group.would_resign).astype(np.int8)

    def _finish(self, group: _Group, slot: int) -> tuple[Trajectory, SelfPlayStats]:
        """The targets of the game that just ended in ``slot``, from each position's mover's view."""
        env, state = group.env, group.state
        length = int(group.length[slot])
        final = env.take(state, [slot])
        winner = int(final.winner[0])
        black, white = (float(x) for x in final.scores[0])
        owners = final.board[0]  # [N] final colours (R5 claims applied)
        mover = group.mover[slot, :length]  # [T]
        other = np.where(mover == BLACK, WHITE, BLACK)
        outcome = np.where(winner == EMPTY, 0, np.where(mover == winner, 1, -1)).astype(np.int8)
        margin = np.where(mover == BLACK, black - white, white - black).astype(np.float32)
        ownership = ((owners[None, :] == mover[:, None]).astype(np.int8)
                     - (owners[None, :] == other[:, None]).astype(np.int8))
        history = final.history[0, :length]
        resigner = int(group.would_resign[slot])
        resigned = resigner != EMPTY and group.resign_allowed[slot]
        checked = resigner != EMPTY and not group.resign_allowed[slot]
        has_policy = group.has_policy[slot, :length]
        recorded = slice(None)  # every position, unless cheap ones are dropped (KataGo: all of them)
        if self.config.selfplay.cheap_record_prob < 1:  # no draw at 1: the same seed, the same games as before
            recorded = has_policy | (self.rng.random(length) < self.config.selfplay.cheap_record_prob)
        trajectory = Trajectory(
            game=group.game,
            states=group.rows[slot, :length][recorded].copy(),
            policy=group.policy[slot, :length][recorded].copy(),
            has_policy=has_policy[recorded].copy(),
            outcome=outcome[recorded],
            score=margin[recorded],
            ownership=ownership[recorded],
            weight=group.weight[slot, :length][recorded].copy(),
            version=group.version[slot, :length][recorded].copy(),
        )
        stats = SelfPlayStats(
            games=1,
            black_wins=int(winner == BLACK),
            white_wins=int(winner == WHITE),
            draws=int(winner == EMPTY),
            button_taken=int((history == env.spec.button_action).any()),
            game_plies=length,
            resignations=int(resigned),
            resign_checks=int(checked),
            false_resignations=int(checked and winner == resigner),
            value_sq_error=float(((group.root_value[slot, :length] - outcome) ** 2).sum()),
        )
        return trajectory, stats

    def _start_games(self, group: _Group, slots: np.ndarray) -> None:
        """New games in ``slots``: fresh boards with freshly drawn komi, resignation state cleared."""
        komi = self._draw_komi(group, slots.size)
        group.env.put(group.state, slots, group.env.reset(slots.size, komi))
        if self.config.selfplay.policy_opening_prob > 0:
            self._policy_openings(group, slots)
        group.length[slots] = 0
        group.low_value_run[slots] = 0
        group.would_resign[slots] = EMPTY
        group.resign_allowed[slots] = self.rng.random(slots.size) >= self.config.selfplay.resign_disabled_share

    def _policy_openings(self, group: _Group, slots: np.ndarray) -> None:
        """Play the first moves of a share of the new games in ``slots`` from the raw policy: one
        batched network call per ply for the games still in their opening; no position recorded."""
        play, env = self.config.selfplay, group.env
        chosen = self.rng.random(slots.size) < play.policy_opening_prob
        moves = np.rint(self.rng.exponential(max(play.policy_opening_moves, 1e-9), slots.size)).astype(np.int64)
        moves = np.where(chosen, np.minimum(moves, group.num_cells // 4), 0)  # [slots]
        for ply in range(int(moves.max(initial=0))):
            games = slots[moves > ply]
            sub = env.take(group.state, games)
            priors = group.evaluator(sub).priors.astype(np.float64)  # [g, A], 0 on illegal moves
            logits = np.log(np.maximum(priors, 1e-30)) / play.policy_opening_temperature
            weights = np.where(priors > 0, np.exp(logits - logits.max(axis=1, keepdims=True)), 0.0)
            cumulative = np.cumsum(weights, axis=1)
            draw = self.rng.random(games.size) * cumulative[:, -1]
            actions = (cumulative <= draw[:, None]).sum(axis=1)  # [g] inverse CDF, one draw per game
            env.step(sub, actions)
            env.put(group.state, games, sub)
        over = slots[group.state.done[slots]]  # a tiny board filled by its opening: an ordinary start
        if over.size:
            env.put(group.state, over, env.reset(over.size, group.state.komi[over]))

    def _draw_komi(self, group: _Group, count: int) -> np.ndarray:
        """[count] komi: uniform over the range with probability komi_spread_prob, else normal
        around the fair-komi estimate (KataGo 2019 sec. 3.4); 0 where the game type has none."""
        if not group.game.game_type_rule.has_komi:
            return np.zeros(count, np.int64)
        play = self.config.selfplay
        rule = group.game.scoring_rule
        lo, hi = rule.komi_range
        scale = rule.komi_scale  # komi_std is in points of the 0..15 range; quadratic's range is 0..1000
        centred = np.rint(self.rng.normal(group.komi_estimate, play.komi_std * scale, count))
        spread = self.rng.integers(lo, hi + 1, count)
        komi = np.where(self.rng.random(count) < play.komi_spread_prob, spread, centred)
        return np.clip(komi, lo, hi).astype(np.int64)


def _resigned(group: _Group) -> np.ndarray:
    """[G] games that resigned (soft): they play on with cheap searches and down-weighted targets."""
    return (group.would_resign != EMPTY) & group.resign_allowed


def _concat(game: GameConfig, trajectories: list[Trajectory]) -> Trajectory:
    """One Trajectory holding the positions of several games of one rule set, in order."""
    if len(trajectories) == 1:
        return trajectories[0]
    names = ("states", "policy", "has_policy", "outcome", "score", "ownership", "weight", "version")
    return Trajectory(game=game, **{n: np.concatenate([getattr(t, n) for t in trajectories]) for n in names})
