"""The arena (eval/arena.py) and its agents (eval/agents.py, eval/specs.py): match bookkeeping,
varied openings, two agent calls per ply, outcomes equal to the reference engine, fair komi,
greedy against random, records that ``show`` replays, and ``catena-zero evaluate``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from catena_zero.bot.players import Capabilities
from catena_zero.cli import main
from catena_zero.config import load_config
from catena_zero.evalfn import Evaluation
from catena_zero.eval.agents import Agent, GreedyAgent, NetAgent, RandomAgent, UCTAgent
from catena_zero.eval.arena import (
    draw_openings,
    play_match,
    report_lines,
    reference_komi,
    resolve_komi,
    save_match_records,
)
from catena_zero.eval.specs import build_agent, match_game_config, parse_agent_spec
from catena_zero.game import BLACK, EMPTY, WHITE, Game, GameConfig
from catena_zero.game.options import RuleSet
from catena_zero.game.records import load_record
from catena_zero.game.vec import VecEnv
from catena_zero.net import model_from_config
from catena_zero.search.komi import KomiEstimate
from catena_zero.artifacts.checkpoint import Checkpoint, save_checkpoint

ROOT = Path(__file__).resolve().parent.parent


def tiny_config(side: int = 3):
    return load_config(ROOT / "configs" / "tiny.yaml", {"game": {"side": side}})


def make_run(folder: Path, steps=(100,), side: int = 3) -> Path:
    """A run folder with untrained tiny checkpoints (the trained ones come from training)."""
    config = tiny_config(side)
    for step in steps:
        model = model_from_config(config.net, torch.Generator().manual_seed(step))
        save_checkpoint(folder, Checkpoint(step=step, config=config, model=model.state_dict(),
                                           counters={"seconds": 2.0 * step}))
    return folder


class Recording(Agent):
    """Wraps an agent and records every call's batch: (size, colours to move)."""

    def __init__(self, inner: Agent) -> None:
        self.inner, self.name, self.calls = inner, f"rec-{inner.name}", []

    def act(self, env, state, rng):
        assert not state.done.any() and state.batch_size > 0
        self.calls.append((state.batch_size, set(state.to_move.tolist()), state.move_number.tolist()))
        return self.inner.act(env, state, rng)


# ----------------------------------------------------------------------------- bookkeeping


def test_match_bookkeeping_colours_alternate_games_distinct_and_tallies_add_up():
    game = GameConfig(side=4)
    a, b = Recording(RandomAgent()), Recording(GreedyAgent())
    result = play_match(a, b, game, 31, None, np.random.default_rng(5))
    games = result.games
    assert [g.index for g in games] == list(range(31))
    assert [g.a_black for g in games] == [i % 2 == 0 for i in range(31)]  # alternate, A Black in 16 of 31
    # openings paired: games 2i and 2i+1 share one, the pairs' openings differ even up to symmetry
    assert all(games[i].opening == games[i + 1].opening for i in range(0, 30, 2))
    sym = VecEnv(game).spec
    keys = {sym.canonical_actions(games[i].opening) for i in range(0, 31, 2)}
    assert len(keys) == 16 and result.distinct_openings == 16
    # no two games identical: different moves, or the same moves with colours swapped
    assert len({(g.actions, g.a_black) for g in games}) == 31
    assert all(g.actions[:len(g.opening)] == g.opening and len(g.opening) >= 2 for g in games)
    t, black, white = result.tally, result.as_black, result.as_white
    assert t.games == 31 and t.wins + t.draws + t.losses == 31
    assert (black.games, white.games) == (16, 15)
    assert (black.wins + white.wins, black.losses + white.losses) == (t.wins, t.losses)
    assert result.black_wins == sum(g.winner == BLACK for g in games)
    assert result.moves == sum(len(g.actions) for g in games)
    # every outcome is what the reference engine says about its moves
    for g in games:
        replay = g.game(result.game)
        assert replay.is_over
        scores = replay.scores()
        assert (g.black_score, g.white_score) == (scores["black"], scores["white"])
        assert g.winner == {"black": BLACK, "white": WHITE, None: EMPTY}[replay.winner]
        a_colour = "black" if g.a_black else "white"
        assert g.a_points == (1.0 if replay.winner == a_colour else 0.0)


def test_two_agent_calls_per_ply_each_on_the_games_it_is_to_move_in():
    a, b = Recording(RandomAgent()), Recording(RandomAgent())
    result = play_match(a, b, GameConfig(side=4), 24, None, np.random.default_rng(0), opening_plies=2)
    longest = max(len(g.actions) for g in result.games)
    assert len(a.calls) + len(b.calls) <= 2 * (longest - 2)
    # at most one call per ply each, and every call serves a batch of games of one colour to move
    assert len(a.calls) <= longest - 2 and len(b.calls) <= longest - 2
    assert all(len(colours) == 1 for _, colours, _ in a.calls + b.calls)
    assert max(size for size, _, _ in a.calls) == 12  # half the 24 games at once
    total_moves = sum(len(g.actions) - len(g.opening) for g in result.games)
    assert sum(size for size, _, _ in a.calls + b.calls) == total_moves


def test_same_rng_same_match_and_different_seeds_differ():
    game = GameConfig(side=3)
    one = play_match(UCTAgent(4), GreedyAgent(), game, 8, None, np.random.default_rng(11))
    two = play_match(UCTAgent(4), GreedyAgent(), game, 8, None, np.random.default_rng(11))
    other = play_match(UCTAgent(4), GreedyAgent(), game, 8, None, np.random.default_rng(12))
    assert one.games == two.games
    assert [g.actions for g in one.games] != [g.actions for g in other.games]


def test_openings_stay_distinct_when_two_ply_ones_run_out():
    env = VecEnv(GameConfig(side=2))  # 7 cells + button: few two-ply openings up to symmetry
    openings = draw_openings(env, 30, 2, 0, np.random.default_rng(0))
    keys = [env.spec.canonical_actions(o) for o in openings]
    assert len(set(keys)) == 30
    assert min(len(o) for o in openings) == 2 and max(len(o) for o in openings) > 2  # lengthened


# ----------------------------------------------------------------------------- strength


def test_greedy_beats_random_clearly_on_side_3():
    # Measured: greedy scores about 66% on side 3 (and 61% on side 4) over 1000 games; 400 games
    # put the 95% interval's lower end near 61%, so 55% leaves a wide margin.
    result = play_match(GreedyAgent(), RandomAgent(), GameConfig(side=3), 400, None, np.random.default_rng(1))
    lo, _ = result.tally.score_interval
    assert lo > 0.55, report_lines(result)
    assert result.tally.elo > 50


def test_uct_beats_random_on_side_3():
    result = play_match(UCTAgent(32), RandomAgent(), GameConfig(side=3), 20, None, np.random.default_rng(2))
    assert result.tally.score >= 0.8, report_lines(result)


def test_greedy_takes_the_move_with_the_best_margin():
    # random positions: every chosen action's margin is the best one by the reference engine
    env = VecEnv(GameConfig(side=3, scoring="quadratic"))
    rng = np.random.default_rng(4)
    state = env.reset(16)
    for _ in range(5):
        env.step(state, RandomAgent().act(env, state, rng))
    live = np.flatnonzero(~state.done)
    chosen = GreedyAgent(max_rows=7).act(env, env.take(state, live), rng)  # small slices on purpose
    for action, i in zip(chosen, live):
        game = env.to_game(state, int(i))
        me, other = game.to_move, "white" if game.to_move == "black" else "black"

        def margin(move, game=game, me=me, other=other):
            g = game.copy()
            g.play(move)
            s = g.scores()
            return s[me] - s[other]

        assert margin(game.spec.action_name(int(action))) == max(map(margin, game.legal_moves()))


# ----------------------------------------------------------------------------- chunks and specs


def test_checkpoint_and_run_folder_specs(tmp_path):
    run = make_run(tmp_path / "run", steps=(10, 20))
    newest = parse_agent_spec(str(run), simulations=3)
    assert newest.kind == "checkpoint" and newest.step == 20 and newest.name == "run/step-00000020"
    older = parse_agent_spec(str(run / "ckpt" / "step-00000010.pt"))
    assert older.step == 10 and older.simulations is None
    agent = build_agent(newest)
    assert agent.search.num_simulations == 3 and agent.default_game == GameConfig(side=3)
    assert build_agent(older).search.num_simulations == tiny_config().search.num_simulations
    result = play_match(agent, RandomAgent(), match_game_config([agent]), 4, None, np.random.default_rng(0))
    assert result.game.side == 3 and result.tally.games == 4
    # side 3 has a shipped bot: every match of the rule set plays at its fair komi, not the run's
    assert result.komi_source == "value head of the reference network, the shipped side3.bot"


# ----------------------------------------------------------------------------- komi


class FakeNetwork(Agent):
    """A 'network' whose value head says Black's value is (fair - komi) / 10."""

    capabilities = Capabilities(komi_curve=True)

    def __init__(self, name, step, fair):
        self.name, self.step, self.fair = name, step, fair

    def act(self, env, state, rng):
        return RandomAgent().act(env, state, rng)

    def komi_curve(self, game):
        komis = np.arange(16)
        return KomiEstimate(rules=RuleSet.of(game), komi=self.fair, komis=komis, black_value=(self.fair - komis) / 10.0,
                            black_score=(self.fair - komis) * 1.0, source=self.name)


def test_fair_komi_is_the_references_else_the_stronger_networks_else_the_config():
    early, late = FakeNetwork("early", 10, 2), FakeNetwork("late", 20, 6)
    # A rule set with a shipped bot: its fair komi, whoever plays (one komi for every match).
    reference = reference_komi(GameConfig(side=3))
    assert reference is not None and "the shipped side3.bot" in reference.source
    for a, b in ((early, late), (late, early), (RandomAgent(), early)):
        assert resolve_komi(a, b, GameConfig(side=3, komi=4), None)[:2] == (reference.komi, reference.source)
    # No shipped bot for side 9: the stronger network's own estimate, and the source says why.
    game = GameConfig(side=9, komi=4)
    komi, source, _ = resolve_komi(early, late, game, None)
    assert komi == 6 and source.startswith("late (no shipped bot")  # the later step decides
    assert resolve_komi(late, early, game, None)[0] == 6
    assert resolve_komi(RandomAgent(), early, game, None)[0] == 2
    assert resolve_komi(RandomAgent(), GreedyAgent(), game, None)[:2] == (4, "config")
    assert resolve_komi(early, late, game, 9)[:2] == (9, "--komi")
    assert resolve_komi(early, late, GameConfig(side=5, game_type="no_komi"), None)[0] == 0
    with pytest.raises(ValueError, match="0..15"):
        resolve_komi(early, late, game, 16)
    result = play_match(late, RandomAgent(), game, 4, None, np.random.default_rng(0))
    assert result.game.komi == 6 and all(g.game(result.game).config.komi == 6 for g in result.games)


def test_network_komi_curve_finds_where_the_value_crosses_zero(monkeypatch):
    config = tiny_config()
    agent = NetAgent(model_from_config(config.net), config.net, config.search, name="n")

    def evaluator(env):  # a value head whose value for Black crosses 0 between komi 5 and 6
        def evaluate(state):
            komi = state.komi.astype(np.float32)
            count = state.batch_size
            return Evaluation(priors=np.full((count, env.num_actions), 1 / env.num_actions, np.float32),
                              value=(5.4 - komi) / 10.0, score=5.4 - komi)
        return evaluate

    monkeypatch.setattr(agent, "evaluator", evaluator)
    estimate = agent.komi_curve(GameConfig(side=3))
    assert estimate.komi == 5 and estimate.komis.tolist() == list(range(16))
    assert estimate.black_value[5] > 0 > estimate.black_value[6]
    assert agent.komi_curve(GameConfig(side=3, game_type="double")) is None


# ----------------------------------------------------------------------------- records and the CLI


def test_saved_records_replay_in_show(tmp_path, capsys):
    result = play_match(GreedyAgent(), RandomAgent(), GameConfig(side=3, komi=2), 6, None, np.random.default_rng(0))
    paths = save_match_records(result, tmp_path / "records")
    assert [p.name for p in paths] == [f"game-{i:04d}.txt" for i in range(1, 7)]
    for path, outcome in zip(paths, result.games):
        record = load_record(path)
        assert record.config == GameConfig(side=3, komi=2)
        assert [str(e) for e in record.events] == outcome.game(result.game).history
        assert record.result.black == outcome.black_score
        assert "# black: greedy; white: random" in path.read_text() or not outcome.a_black
    assert main(["show", str(paths[0])]) == 0
    assert "wins" in capsys.readouterr().out


def assert_one_line_error(code, err, fragment):
    assert code == 2, err
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and fragment in err, err


def test_evaluate_command_prints_the_report_and_saves_records(tmp_path, capsys):
    run = make_run(tmp_path / "run", steps=(5,))
    code = main(["evaluate", str(run), "greedy", "--games", "4", "--sims", "2", "--seed", "3",
                 "--save-records", str(tmp_path / "rec")])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("match: run/step-00000005 (A) vs greedy (B), 4 games, side 3")
    assert any(line.startswith("A as black: ") for line in lines)
    assert any(line.startswith("score rate of A: ") and "(pentanomial, 2 pairs)" in line for line in lines)
    assert any(line.startswith("pairs by A's points 0 / 0.5 / 1 / 1.5 / 2 (pentanomial): ") for line in lines)
    assert any(line.startswith("Elo difference A - B: ") for line in lines)
    summary = [line for line in lines if line.startswith("summary: ")]
    assert len(summary) == 1 and lines.index(summary[0]) == len(lines) - 2
    assert len(list((tmp_path / "rec").glob("game-*.txt"))) == 4
    # the same seed gives the same report (but for the timing line)
    main(["evaluate", str(run), "greedy", "--games", "4", "--sims", "2", "--seed", "3"])
    again = capsys.readouterr().out.splitlines()
    strip = lambda ls: [x for x in ls if not x.startswith(("time:", "records:"))]
    assert strip(again) == strip(lines)


def test_evaluate_baselines_at_a_given_komi(capsys):
    code = main(["evaluate", "random", "mcts:2", "--side", "2", "--games", "2", "--komi", "3"])
    out, _ = capsys.readouterr()
    assert code == 0 and "komi 3 (--komi)" in out and "side 2" in out


@pytest.mark.parametrize("argv,fragment", [
    (["evaluate", "random", "nonsense"], "unknown player kind 'nonsense'"),
    (["evaluate", "mcts:0", "random"], "positive simulation count"),
    (["evaluate", "mcts:x", "random"], "positive simulation count"),
    (["evaluate", "random", "greedy", "--games", "0"], "--games must be at least 1"),
    (["evaluate", "random", "greedy", "--sims", "0"], "--sims must be at least 1"),
    (["evaluate", "random", "greedy", "--komi", "40"], "komi must be in 0..15"),
    (["evaluate", "random", "greedy", "--game-type", "double", "--komi", "2"], "has no komi"),
    (["evaluate", "random", "greedy", "--side", "11"], "side must be in 2..10"),
    (["evaluate", "random"], "the following arguments are required"),
])
def test_evaluate_bad_inputs_give_one_line(argv, fragment, capsys):
    code = main(argv)
    assert_one_line_error(code, capsys.readouterr().err, fragment)


def test_evaluate_bad_files_give_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint at all")
    run = make_run(tmp_path / "run", steps=(1,))
    ckpt = run / "ckpt" / "step-00000001.pt"
    truncated = tmp_path / "cut.pt"
    truncated.write_bytes(ckpt.read_bytes()[:300])
    other = make_run(tmp_path / "other", steps=(1,), side=4)
    cases = [
        ([str(tmp_path / "empty"), "random"], "has no checkpoint"),
        ([str(junk), "random"], "neither a checkpoint"),
        ([str(truncated), "random"], "not a loadable checkpoint"),
        ([str(run), str(other)], "trained for different side"),
    ]
    for args, fragment in cases:
        code = main(["evaluate", *args, "--games", "2"])
        assert_one_line_error(code, capsys.readouterr().err, fragment)


def test_a_clean_sweep_gives_an_elo_bound_not_infinity():
    from catena_zero.eval.arena import elo_line
    from catena_zero.eval.ratings import elo_from_score, elo_interval, elo_text

    for wins, losses in ((10, 0), (0, 10)):
        lo, hi = elo_interval(wins, 0, losses)
        elo = elo_from_score(wins / 10)
        line, summary = elo_line(elo, lo, hi), elo_text(elo, lo, hi)
        assert "inf" not in line and "inf" not in summary
        bound = lo if wins else hi
        assert f"{round(bound):+d}" in line and f"{round(bound):+d}" in summary
        assert ("at least" in line) == bool(wins) and ("at most" in line) == bool(losses)
    lo, hi = elo_interval(6, 1, 3)
    assert elo_line(elo_from_score(0.65), lo, hi).endswith(f"95% interval [{round(lo):+d}, {round(hi):+d}]")
