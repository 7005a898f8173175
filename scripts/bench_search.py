"""Benchmark: simulations per second of the batched search (catena_zero/search) on side 6.

Shape legend: B games searched together (the batch), S simulations per move.

For each B in (1, 64, 256) and S in (32, 128), times whole searches (``MCTS.run``, default
``SearchConfig``: Gumbel root, ``gumbel_num_considered`` 16) from positions 10 random moves into
a side-6 game, with
- the zero-cost evaluator (``UniformEvaluator``: uniform priors, value 0), which measures the
  search's own cost plus the environment steps (take, step, put per simulation);
- the default network (``NetEvaluator`` over an untrained ``model_from_config(NetConfig())``
  on the CPU), where the evaluator's share of the time is measured by timing its calls.
Tree reuse is off so every timed search starts from scratch; the tree arrays are allocated by
an untimed warm-up search first (self-play reuses them from move to move). Each configuration
reports its fastest timed search (zero-cost: searches repeated for at least 2 s; network: two
searches), since other processes on a shared machine only ever slow a run down.

Run: .venv/bin/python scripts/bench_search.py [--batches 1 64 256] [--simulations 32 128]
The last line reads: ``bench_search: side 6 batch 256: zero-cost Z sims/s, default network N
sims/s, search overhead P%`` for the largest batch and simulation count measured.

``--tree-reuse [--batches 64 256] [--rounds 20]``: self-play-like use (Gumbel with noise, S = 32,
auto-reset) with tree reuse on and off, alternating move by move; reports moves/s, root visits
kept from the previous move, and the share of time spent setting kept trees up. Figures behind
``SearchConfig.tree_reuse`` (side 6, Gumbel, S = 32): about 3 kept root visits per move (10% of
S) for +14-15% time with the zero-cost evaluator (batch 64 and 256), and no measurable cost with
the default network on the CPU (it takes ~95% of the time).

``--single [--repeats 3]``: thinking for ONE game (batch 1) on sides 4 and 6: the ``mcts:K``
baseline's rollout search, the search alone (zero-cost evaluator), the default network's search,
and a plain pure-Python UCT over the reference engine (``reference_uct``, the baseline measured
in the same run), interleaved; best of the repeats.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from catena_zero.config import NetConfig, SearchConfig
from catena_zero.game import Game, GameConfig
from catena_zero.game.vec import EnvState, VecEnv, random_legal_actions
from catena_zero.net import NetEvaluator, model_from_config
from catena_zero.search import MCTS, RolloutEvaluator, UniformEvaluator
from catena_zero.evalfn import EvalFn, Evaluation

import _machine  # scripts/_machine.py: the CPU and the instruction set beside every figure

SIDE = 6
OPENING_MOVES = 10
# Timed searches per configuration: zero-cost ones repeat for at least 2 s, network ones twice.
ZERO_COST_REPEATS = (3, 2.0)
NETWORK_REPEATS = (2, 0.0)
WARMUP_ROUNDS = 10  # untimed self-play moves before a --tree-reuse measurement


class TimedEvaluator:
    """An EvalFn that adds the wall time of every call of ``inner`` to ``seconds``."""

    def __init__(self, inner: EvalFn) -> None:
        self.inner = inner
        self.seconds = 0.0

    def __call__(self, state: EnvState) -> Evaluation:
        start = time.perf_counter()
        evaluation = self.inner(state)
        self.seconds += time.perf_counter() - start
        return evaluation


@dataclass(frozen=True)
class Measurement:
    simulations_per_second: float  # of the fastest timed search
    evaluator_share: float  # fraction of that search's time spent inside the evaluator
    searches: int  # timed searches (the fastest one is reported)


def opening_positions(env: VecEnv, batch: int, rng: np.random.Generator) -> EnvState:
    state = env.reset(batch)
    for _ in range(OPENING_MOVES):
        env.step(state, random_legal_actions(env.legal_actions(state), rng))
    return state


def measure(env: VecEnv, evaluator: EvalFn, batch: int, simulations: int, min_searches: int,
            min_seconds: float) -> Measurement:
    """Best of at least ``min_searches`` timed searches (and ``min_seconds``): on a shared machine
    the fastest run is the one least disturbed by other processes."""
    rng = np.random.default_rng(0)
    state = opening_positions(env, batch, rng)
    config = SearchConfig(num_simulations=simulations, tree_reuse=False)
    mcts = MCTS(env, UniformEvaluator(env), config)
    mcts.run(state, rng, add_noise=True)  # untimed: allocates and touches the tree arrays
    timed = TimedEvaluator(evaluator)
    timed(state)  # untimed: first-call set-up inside the evaluator (torch kernels)
    mcts.eval_fn = timed
    best, searches, total = None, 0, 0.0
    while searches < min_searches or total < min_seconds:
        timed.seconds = 0.0
        start = time.perf_counter()
        mcts.run(state, rng, add_noise=True)
        elapsed = time.perf_counter() - start
        searches, total = searches + 1, total + elapsed
        if best is None or elapsed < best[0]:
            best = (elapsed, timed.seconds)
    elapsed, evaluator_seconds = best
    return Measurement(batch * simulations / elapsed, evaluator_seconds / elapsed, searches)


@dataclass(frozen=True)
class SelfPlayMeasurement:
    moves_per_second: float  # searched positions per second (all games of the batch)
    kept_visits: float  # mean root visits per move kept from the previous move's search
    setup_share: float  # share of the time spent setting trees up (re-rooting, matching kept trees)


class _SelfPlayLike:
    """``batch`` self-play games (Gumbel with noise, auto-reset: a finished game is replaced at once
    by a new one in its slot), searched one move at a time."""

    def __init__(self, env: VecEnv, evaluator: EvalFn, batch: int, simulations: int, reuse: bool) -> None:
        self.env, self.simulations = env, simulations
        self.rng = np.random.default_rng(0)
        self.mcts = MCTS(env, evaluator, SearchConfig(num_simulations=simulations, tree_reuse=reuse))
        self.state = env.reset(batch)
        self.seconds = self.setup_seconds = self.kept = 0.0
        self.moves = 0
        prepare = self.mcts._prepare

        def timed_prepare(*args, **kwargs):  # the tree set-up: re-rooting and matching kept trees
            begin = time.perf_counter()
            tree = prepare(*args, **kwargs)
            self.setup_seconds += time.perf_counter() - begin
            return tree

        self.mcts._prepare = timed_prepare

    def move(self) -> None:
        env, state = self.env, self.state
        begin = time.perf_counter()
        out = self.mcts.run(state, self.rng, add_noise=True)
        env.step(state, out.action)
        done = np.flatnonzero(state.done)
        if done.size:
            env.put(state, done, env.reset(done.size))
        self.seconds += time.perf_counter() - begin
        self.kept += float((out.visits.sum(axis=1) - self.simulations).mean())
        self.moves += 1

    def reset_counters(self) -> None:
        self.seconds = self.setup_seconds = self.kept = 0.0
        self.moves = 0

    def measurement(self) -> SelfPlayMeasurement:
        return SelfPlayMeasurement(self.state.batch_size * self.moves / self.seconds, self.kept / self.moves,
                                   self.setup_seconds / self.seconds)


def tree_reuse_comparison(env: VecEnv, network: EvalFn, batches: list[int], rounds: int) -> None:
    """Self-play-like moves per second with and without tree reuse (side 6, Gumbel, S = 32). The two
    runs alternate move by move, so that both see the same load on a shared machine."""
    simulations = 32
    print(f"tree reuse in self-play-like use: side {SIDE}, Gumbel with noise, S = {simulations}, auto-reset, "
          f"{WARMUP_ROUNDS} warm-up + {rounds} timed moves per game slot, reuse on and off alternating")
    print(f"{'evaluator':<16}{'batch':>6}{'reuse':>7}{'moves/s':>10}{'kept visits':>13}{'set-up share':>14}")
    for name, evaluator in [("zero-cost", UniformEvaluator(env)), ("default network", network)]:
        for batch in batches:
            runs = {reuse: _SelfPlayLike(env, evaluator, batch, simulations, reuse) for reuse in (False, True)}
            for round_ in range(WARMUP_ROUNDS + rounds):
                if round_ == WARMUP_ROUNDS:
                    for run in runs.values():
                        run.reset_counters()
                for run in runs.values():
                    run.move()
            off, on = runs[False].measurement(), runs[True].measurement()
            for label, m in (("off", off), ("on", on)):
                print(f"{name:<16}{batch:>6}{label:>7}{m.moves_per_second:>10,.1f}{m.kept_visits:>13.1f}"
                      f"{m.setup_share:>13.1%}", flush=True)
            print(f"bench_search: tree reuse, {name}, batch {batch}: {off.moves_per_second / on.moves_per_second - 1:+.1%} "
                  f"self-play time (set-up {on.setup_share:.1%} of it vs {off.setup_share:.1%}) for "
                  f"{on.kept_visits:.1f} kept root visits per move ({on.kept_visits / simulations:.0%} of S)", flush=True)


# ------------------------------------------------------------------ single-game speed (--single)


class _UctNode:
    """A node of the reference UCT: statistics for the player to move at the node."""

    __slots__ = ("mover", "untried", "children", "visits", "total")

    def __init__(self, game: Game, rng: np.random.Generator) -> None:
        self.mover = game.to_move
        self.untried = game.legal_moves()
        rng.shuffle(self.untried)
        self.children: dict[str, _UctNode] = {}
        self.visits = 0
        self.total = 0.0  # sum of results for ``mover``


def reference_uct(root_game: Game, simulations: int, rng: np.random.Generator, c: float = 1.4) -> str:
    """A plain pure-Python UCT (Kocsis and Szepesvari 2006, UCB1 with random rollouts) over the
    reference engine ``Game``: the baseline single-game search speed is measured against."""
    root = _UctNode(root_game, rng)
    for _ in range(simulations):
        node, game, path = root, root_game.copy(), [root]
        while not node.untried and node.children:  # select by UCB1
            log_n = math.log(node.visits)
            best, best_score = None, -math.inf
            for action, child in node.children.items():
                q = child.total / child.visits if child.mover == node.mover else -child.total / child.visits
                score = q + c * math.sqrt(log_n / child.visits)
                if score > best_score:
                    best, best_score = (action, child), score
            action, node = best
            game.play(action)
            path.append(node)
        if node.untried:  # expand one untried move
            action = node.untried.pop()
            game.play(action)
            node.children[action] = node = _UctNode(game, rng)
            path.append(node)
        while not game.is_over:  # random rollout
            moves = game.legal_moves()
            game.play(moves[int(rng.random() * len(moves))])
        for visited in path:
            visited.visits += 1
            visited.total += game.result_value(visited.mover)
    return max(root.children.items(), key=lambda item: item[1].visits)[0]


def single_game_speed(repeats: int) -> None:
    """Simulations per second thinking for ONE game: the ``mcts:K`` baseline's search (PUCT,
    uniform priors, one random rollout per leaf, as eval/agents.py's UCTAgent builds it), the search
    alone (zero-cost evaluator), the default network's search (Gumbel, SearchConfig defaults),
    and the reference pure-Python UCT, interleaved ``repeats`` times (best of each reported)."""
    net_config = NetConfig(device="cpu")
    for side, opening, simulations in ((4, 4, 400), (6, 10, 300)):
        env = VecEnv(GameConfig(side=side))
        rng = np.random.default_rng(side)
        state = opening_positions_of(env, 1, opening, rng)
        game = env.to_game(state, 0)
        rollout = SearchConfig(algorithm="puct", num_simulations=simulations, tree_reuse=False,
                               **({"score_utility_weight": 0.0} if hasattr(SearchConfig(), "score_utility_weight") else {}))
        zero = SearchConfig(num_simulations=simulations, tree_reuse=False)
        network = TimedEvaluator(NetEvaluator(model_from_config(net_config), env, net_config))
        searches = {
            "mcts:K rollout search": (RolloutEvaluator(env, rng), rollout, simulations),
            "search alone (zero-cost)": (UniformEvaluator(env), zero, simulations),
            "default network search": (network, SearchConfig(num_simulations=64, tree_reuse=False), 64),
        }
        best: dict[str, float] = {}
        share = 0.0
        for _ in range(repeats):
            begin = time.perf_counter()
            reference_uct(game, simulations, rng)
            best["pure-Python UCT"] = max(best.get("pure-Python UCT", 0.0), simulations / (time.perf_counter() - begin))
            for name, (evaluator, config, count) in searches.items():
                mcts = MCTS(env, evaluator, config)
                mcts.run(state, rng, add_noise=False)  # untimed: allocation, first calls
                network.seconds = 0.0
                begin = time.perf_counter()
                mcts.run(state, rng, add_noise=False)
                elapsed = time.perf_counter() - begin
                if count / elapsed > best.get(name, 0.0):
                    best[name] = count / elapsed
                    if evaluator is network:
                        share = network.seconds / elapsed
        for name, rate in best.items():
            extra = f"  (network {share:.0%} of the time)" if name == "default network search" else ""
            print(f"side {side}  {name:<26}{rate:>10,.0f} sims/s{extra}", flush=True)
        print(f"bench_search: single game, side {side}: mcts:K {best['mcts:K rollout search']:.0f} sims/s vs "
              f"pure-Python UCT {best['pure-Python UCT']:.0f} sims/s "
              f"(ratio {best['mcts:K rollout search'] / best['pure-Python UCT']:.2f}); "
              f"default network {best['default network search']:.0f} sims/s", flush=True)


def opening_positions_of(env: VecEnv, batch: int, moves: int, rng: np.random.Generator) -> EnvState:
    state = env.reset(batch)
    for _ in range(moves):
        env.step(state, random_legal_actions(env.legal_actions(state), rng))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 256])
    parser.add_argument("--simulations", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--tree-reuse", action="store_true",
                        help="compare self-play-like speed with and without tree reuse instead")
    parser.add_argument("--rounds", type=int, default=20, help="timed moves per slot for --tree-reuse")
    parser.add_argument("--single", action="store_true",
                        help="single-game speed (batch 1, sides 4 and 6) against a pure-Python UCT instead")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions for --single")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    machine = _machine.describe()
    print(f"bench_search: torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(machine.line())
    if args.single:
        single_game_speed(args.repeats)
        return

    env = VecEnv(GameConfig(side=SIDE))
    net_config = NetConfig(device="cpu")
    network = NetEvaluator(model_from_config(net_config), env, net_config)
    if args.tree_reuse:
        tree_reuse_comparison(env, network, [b for b in args.batches if b > 1] or [64], args.rounds)
        return
    print(f"bench_search: side {SIDE}, {OPENING_MOVES} random opening moves, SearchConfig defaults "
          f"(gumbel, 16 considered), tree reuse off; torch {torch.__version__} on CPU, "
          f"{torch.get_num_threads()} threads; NetConfig() = {net_config.blocks} blocks x "
          f"{net_config.channels} channels")
    print(f"{'evaluator':<16}{'batch':>6}{'sims':>6}{'searches':>10}{'sims/s':>12}{'evaluator':>11}{'search+env':>12}")
    results: dict[tuple[str, int, int], Measurement] = {}
    for name, evaluator, (min_searches, min_seconds) in [
        ("zero-cost", UniformEvaluator(env), ZERO_COST_REPEATS),
        ("default network", network, NETWORK_REPEATS),
    ]:
        for batch in args.batches:
            for simulations in args.simulations:
                m = measure(env, evaluator, batch, simulations, min_searches, min_seconds)
                results[name, batch, simulations] = m
                print(f"{name:<16}{batch:>6}{simulations:>6}{m.searches:>10}{m.simulations_per_second:>12,.0f}"
                      f"{m.evaluator_share:>10.1%}{1 - m.evaluator_share:>12.1%}", flush=True)
    batch, simulations = max(args.batches), max(args.simulations)
    zero, net = results["zero-cost", batch, simulations], results["default network", batch, simulations]
    print(f"(last line: batch {batch}, {simulations} simulations per move; search overhead = share of the "
          f"network search's time spent outside the network)")
    print(f"bench_search {machine.tag()}: side {SIDE} batch {batch}: zero-cost {zero.simulations_per_second:.0f} sims/s, "
          f"default network {net.simulations_per_second:.0f} sims/s, "
          f"search overhead {100 * (1 - net.evaluator_share):.1f}%")


if __name__ == "__main__":
    main()
