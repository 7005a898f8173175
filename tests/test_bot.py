"""The Bot API (bot/bot.py): refusing what it was not trained for, reproducible moves, analysis, and the
R7 set-up choices on stub evaluators and a hand-made network whose answers are known by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bot_files import komi_model, komi_model_value, save_tiny_checkpoint, tiny_config
from catena_zero.bot import Bot, RuleSet, UnsupportedGame
from catena_zero.bot.agent import better_than_even
from catena_zero.search.komi import fair_komi_of_curve, komi_curve_of
from catena_zero.artifacts.botfile import export_bot, header_from_checkpoint
from catena_zero.bot.players import Budget, RandomPlayer, next_turn, setup_choices
from catena_zero.cli import main
from catena_zero.evalfn import Evaluation
from catena_zero.game import Game, GameConfig, Match
from catena_zero.game.match import Phase
from catena_zero.game.vec import VecEnv
from catena_zero.artifacts.checkpoint import Checkpoint, load_checkpoint
from events import choose_event, ev, evs, texts  # noqa: F401


@pytest.fixture(scope="module")
def bot_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("bot")
    out = root / "tiny.bot"
    export_bot(load_checkpoint(save_tiny_checkpoint(root / "run")), out)
    return out


@pytest.fixture(scope="module")
def bot(bot_path):
    return Bot.load(bot_path, simulations=8, device="cpu")


def play_out(game: Game, moves: int, seed: int) -> Game:
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.play(RandomPlayer().choose(game, rng))
    return game


# ------------------------------------------------------------------------------ what it plays


def test_supports_only_what_it_was_trained_for(bot):
    assert bot.game_config == GameConfig(side=3)
    assert bot.trained_for == (RuleSet(3, "komi", "standard"),)
    plays = bot.capabilities.plays
    assert plays(GameConfig(side=3)) and plays(GameConfig(side=3, komi=9))
    for other in (GameConfig(side=4), GameConfig(side=3, game_type="no_komi"), GameConfig(side=3, scoring="longest")):
        assert not plays(other)
        game = Game(other)
        calls = [lambda: bot.choose(game), lambda: bot.choose(game, np.random.default_rng(0)),
                 lambda: bot.play_and_analyze(game), lambda: bot.analyze(game), lambda: bot.evaluate(game),
                 lambda: next_turn(bot, Match(other))]
        if other.game_type == "komi":
            calls += [lambda: bot.choose_komi(other), lambda: bot.choose_colour(other, 3)]
        for call in calls:
            with pytest.raises(UnsupportedGame) as info:
                call()
            message = str(info.value)
            assert "\n" not in message and "trained for side 3 komi standard" in message
            assert str(RuleSet.of(other)) in message


def test_bad_arguments_are_refused(bot_path, bot):
    for options in ({"simulations": 0}, {"simulations": 2.5}, {"seconds": 0}, {"seconds": -1},
                    {"simulations": 4, "seconds": 1.0}, {"seed": -1}, {"device": "tpu"}):
        with pytest.raises(ValueError):
            Bot.load(bot_path, **options)
    over = play_out(Game(GameConfig(side=3)), 100, seed=0)
    assert over.is_over
    with pytest.raises(ValueError, match="over"):
        bot.choose(over)
    with pytest.raises(ValueError, match="over"):
        bot.choose(over, np.random.default_rng(0))
    for capabilities in (bot.capabilities, RandomPlayer.capabilities):  # a player of any game as well
        with pytest.raises(ValueError, match="GameConfig"):
            capabilities.plays("side 3")
    with pytest.raises(ValueError, match="Game"):
        bot.choose(GameConfig(side=3))
    with pytest.raises(ValueError, match="Game"):
        bot.choose(GameConfig(side=3), np.random.default_rng(0))


def test_same_seed_same_game_same_move_whatever_came_before(bot_path):
    positions = [play_out(Game(GameConfig(side=3, komi=k)), moves, seed=k) for k, moves in ((0, 0), (4, 3), (7, 6))]
    positions = [g for g in positions if not g.is_over]
    first = Bot.load(bot_path, simulations=8, device="cpu", seed=5)
    second = Bot.load(bot_path, simulations=8, device="cpu", seed=5)
    forward = [first.choose(g) for g in positions]
    backward = [second.choose(g) for g in reversed(positions)][::-1]
    assert forward == backward
    assert [first.choose(g) for g in positions] == forward
    for game, move in zip(positions, forward):
        assert move in game.legal_moves()


def test_a_whole_game_against_random_through_the_match_protocol(bot):
    """The bot is a Player (bot/players.py): it answers the R7 set-up and plays a match to the end."""
    rng = np.random.default_rng(1)
    for seat in ("first", "second"):
        match = Match(GameConfig(side=3))
        players = {seat: bot, ("second" if seat == "first" else "first"): RandomPlayer()}
        while match.phase != "over":
            player = players[match.player_to_act]
            event = next_turn(player, match, rng).event
            if match.phase in (Phase.KOMI, Phase.COLOUR):
                assert event in setup_choices(match)
            match.apply(event)
        assert match.game.is_over


def test_analysis_is_the_search_that_picks_the_move(bot):
    game = play_out(Game(GameConfig(side=3, komi=3)), 2, seed=2)
    info = bot.analyze(game)
    assert info.best == bot.choose(game) and info.to_move == game.to_move
    assert info.simulations == 8 and sum(m.visits for m in info.moves) == 8
    assert info.moves[0].move == info.best
    visits = [m.visits for m in info.moves[1:]]
    assert visits == sorted(visits, reverse=True)
    legal = set(game.legal_moves())
    for m in info.moves:
        assert m.move in legal and m.visits > 0 and -1 <= m.value <= 1 and 0 <= m.prior <= 1
        assert math.isfinite(m.score)
    assert -1 <= info.value <= 1 and (info.net_value, info.net_score) == pytest.approx(bot.evaluate(game))
    top = bot.analyze(game, top=2)
    assert len(top.moves) <= 2 and top.moves == info.moves[:2]


def test_the_positions_value_is_the_played_moves_not_the_roots_mean(bot):
    """The review plotted the root's mean over all visits; under Gumbel the last candidates get equal
    visits, so a position with one winning move read near even (docs/RESULTS.md). The position's
    value and score are now those of the move the bot plays."""
    means_differ = 0
    for seed in range(6):
        game = play_out(Game(GameConfig(side=3, komi=3)), 2 + seed % 3, seed=seed)
        info = bot.analyze(game)
        played = info.moves[0]
        assert played.move == info.best
        assert (info.value, info.score) == pytest.approx((played.value, played.score))
        # the root's mean (visit-weighted over the children, plus the root's own evaluation) differs
        total = sum(m.visits for m in info.moves)
        mean = (sum(m.visits * m.value for m in info.moves) + info.net_value) / (total + 1)
        means_differ += abs(mean - info.value) > 1e-4
    assert means_differ > 0
    # one simulation: the one move it visits is the one it plays, and the position reads as that move
    one = bot.analyze(Game(GameConfig(side=3, komi=3)), simulations=1)
    assert [m.visits for m in one.moves] == [1] and one.moves[0].move == one.best
    assert (one.value, one.score) == pytest.approx((one.moves[0].value, one.moves[0].score))


def test_ownership_is_the_networks_head_turned_to_blacks_view(bot):
    """Issue 28: ``Bot.ownership`` is Black's view of the head's map (the evaluator gives the mover's)."""
    for moves in (4, 5):  # Black, then White to move
        game = play_out(Game(bot.game_config), moves, seed=moves)
        env = bot._env(RuleSet.of(game.config))
        mover = bot.agent.searcher(env).eval_fn.ownership(env.from_games([game]))[0]
        owned = bot.ownership(game)
        sign = 1 if game.to_move == "black" else -1
        assert len(owned) == game.spec.num_cells and np.allclose(owned, sign * mover, atol=1e-6)
        assert all(-1 <= v <= 1 for v in owned)


def test_time_limit_search(bot_path):
    timed = Bot.load(bot_path, seconds=0.05, device="cpu")
    assert timed.simulations is None and timed.seconds == 0.05
    game = Game(GameConfig(side=3))
    for _ in range(2):
        info = timed.analyze(game)
        assert info.simulations >= 1 and info.best in game.legal_moves()


# ------------------------------------------------------------------------------ fair komi (R7) by hand


class KomiStub:
    """An EvalFn whose value and score for Black on the empty board are given functions of komi."""

    def __init__(self, env: VecEnv, value, score) -> None:
        self.env, self.value, self.score = env, value, score

    def __call__(self, state) -> Evaluation:
        komi = np.asarray(state.komi, dtype=np.float64)
        priors = self.env.legal_actions(state).astype(np.float32)
        priors /= priors.sum(axis=1, keepdims=True)
        return Evaluation(priors=priors, value=self.value(komi).astype(np.float32),
                          score=self.score(komi).astype(np.float32))


def stub_fair_komi(value, score, scoring="standard") -> tuple[int, np.ndarray]:
    env = VecEnv(GameConfig(side=3, scoring=scoring))
    komis, v, s = komi_curve_of(KomiStub(env, value, score), env)
    return fair_komi_of_curve(komis, v, s), komis


def test_fair_komi_balances_the_value():
    # V(k) = tanh(0.3 (6.4 - k)): |V(6)| = tanh(0.12) < |V(7)| = tanh(0.18), so 6.
    fair, komis = stub_fair_komi(lambda k: np.tanh(0.3 * (6.4 - k)), lambda k: 6.4 - k)
    assert fair == 6 and komis.tolist() == list(range(16))
    # A value curve that is not monotone: the komi closest to even wins, wherever it is.
    fair, _ = stub_fair_komi(lambda k: np.where(k == 11, 0.02, 0.5), lambda k: np.zeros_like(k))
    assert fair == 11
    # Quadratic scoring: komi 0..1000; V = (350.4 - k) / 1000 is closest to 0 at 350.
    fair, komis = stub_fair_komi(lambda k: (350.4 - k) / 1000, lambda k: 350.4 - k, scoring="quadratic")
    assert fair == 350 and komis[-1] == 1000


def test_komi_estimate_reads_its_curve_at_a_komi():
    from catena_zero.search.komi import estimate_fair_komi

    env = VecEnv(GameConfig(side=3))
    estimate = estimate_fair_komi(env, KomiStub(env, lambda k: np.tanh(0.3 * (6.4 - k)), lambda k: 6.4 - k))
    assert estimate.komi == 6
    value, score = estimate.at(6)
    assert value == pytest.approx(np.tanh(0.12), abs=1e-6) and score == pytest.approx(0.4, abs=1e-5)
    assert estimate.at(15)[1] == pytest.approx(-8.6, abs=1e-5)
    with pytest.raises(ValueError, match="komi 16 is not on the curve"):
        estimate.at(16)


def test_a_saturated_value_leaves_the_choice_to_the_score():
    # The value says "Black wins" at every komi (as an untrained or very sure net can); the score
    # margin 9.3 - k is closest to 0 at k = 9.
    fair, _ = stub_fair_komi(lambda k: np.ones_like(k), lambda k: 9.3 - k)
    assert fair == 9
    # Values within VALUE_RESOLUTION count as equal: 0.004 at k=2 and 0.001 at k=12, score decides.
    fair, _ = stub_fair_komi(lambda k: np.select([k == 2, k == 12], [0.004, 0.001], 0.9), lambda k: np.abs(k - 2.2))
    assert fair == 2


def test_better_than_even():
    assert better_than_even(0.3, -5) and not better_than_even(-0.3, 5)
    assert better_than_even(0.001, 0.5) and not better_than_even(0.001, -0.5)  # value ~ even: score decides
    assert not better_than_even(0.0, 0.0)


@pytest.fixture(scope="module")
def komi_bot_path(tmp_path_factory):
    """A bot file of the hand-made net: Black's value at komi k is tanh(0.5 (6.3 - k)), score 6.3 - k.

    It is trained (by its header) for side 3 komi and no_komi; under no_komi each opponent stone
    costs 200 / 19 points, so after Black's opening stone White's value is tanh(0.5 (6.3 - 10.5)) < 0.
    """
    root = tmp_path_factory.mktemp("komi")
    config = tiny_config()
    checkpoint = Checkpoint(step=1, config=config, model=komi_model(config, 6.3, 0.5, theirs_weight=200).state_dict())
    out = root / "komi.bot"
    export_bot(checkpoint, out, trained_for=[RuleSet(3, "komi", "standard"), RuleSet(3, "no_komi", "standard")])
    assert header_from_checkpoint(checkpoint).game == GameConfig(side=3)
    return out


def test_the_hand_made_bot_chooses_komi_colour_and_swap_as_worked_out_by_hand(komi_bot_path):
    bot = Bot.load(komi_bot_path, simulations=4, device="cpu")
    config = GameConfig(side=3)
    curve = bot.komi_curve(config)
    expected = [komi_model_value(6.3, 0.5, k) for k in range(16)]
    assert curve.black_value == pytest.approx(expected, abs=1e-4)
    assert curve.black_score == pytest.approx([6.3 - k for k in range(16)], abs=1e-3)
    # |V(6)| = tanh(0.15) < |V(7)| = tanh(0.35): the first player names komi 6.
    assert bot.choose_komi(config) == curve.komi == 6
    # The second player: Black while Black's value is positive (komi <= 6), White above.
    assert [bot.choose_colour(config, k) for k in (0, 6, 7, 15)] == ["black", "black", "white", "white"]
    # no_komi: after Black's opening stone White's value is negative, so the bot takes over Black.
    game = Game(GameConfig(side=3, game_type="no_komi"))
    game.play("B2")
    assert bot.choose_swap(game) is True
    with pytest.raises(ValueError, match="no_komi"):
        bot.choose_swap(Game(config))
    with pytest.raises(ValueError, match="first stone"):
        bot.choose_swap(Game(GameConfig(side=3, game_type="no_komi")))
    with pytest.raises(ValueError, match="game type komi"):
        bot.choose_komi(GameConfig(side=3, game_type="no_komi"))
    with pytest.raises(ValueError, match="komi"):
        bot.choose_colour(config, 16)  # out of range (R6)
    # As a Player in a match, the same choices (R10 events).
    match = Match(config)
    assert choose_event(bot, match, np.random.default_rng(0)) == "komi 6"
    match.apply(ev("komi 6"))
    assert choose_event(bot, match, np.random.default_rng(0)) == "colour black"
    match = Match(GameConfig(side=3, game_type="no_komi"))
    match.apply(ev("B2"))
    assert choose_event(bot, match, np.random.default_rng(0)) == "swap"


def test_the_komi_command_prints_the_fair_komi_and_the_curve(komi_bot_path, capsys):
    assert main(["komi", "--bot", str(komi_bot_path), "--around", "2", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("fair komi 6 for side 3, standard scoring")
    rows = lines[2:-1]  # between the column titles and the footnote
    assert [int(r.lstrip(">").split()[0]) for r in rows] == [4, 5, 6, 7, 8]
    marked = [r for r in rows if r.startswith(">")]
    assert len(marked) == 1 and marked[0].split()[1] == "6"
    for row in rows:
        komi, value, score, first = row.lstrip(">").split()
        assert float(value) == pytest.approx(komi_model_value(6.3, 0.5, int(komi)), abs=1e-3)
        assert float(score) == pytest.approx(6.3 - int(komi), abs=1e-2)
        assert float(first) == pytest.approx(-abs(float(value)), abs=1e-3)
    assert main(["komi", "--bot", str(komi_bot_path), "--all", "--device", "cpu"]) == 0
    assert capsys.readouterr().out.count("\n") == 16 + 3
    assert main(["komi", "--bot", str(komi_bot_path), "--side", "4", "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "trained for side 3 komi standard" in err


# ------------------------------------------------------------------------------ play --bot


def test_play_bot_against_bot_saves_a_finished_record(bot_path, tmp_path, capsys, monkeypatch):
    import io
    import sys

    from catena_zero.game.records import load_record

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    record = tmp_path / "game.txt"
    argv = ["play", "--bot", str(bot_path), "--bot", str(bot_path), "--simulations", "4", "--device", "cpu",
            "--save", str(record)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    loaded = load_record(record)
    bot = Bot.load(bot_path, simulations=4, device="cpu")
    komi = bot.choose_komi(GameConfig(side=3))
    assert texts(loaded.events)[0] == f"komi {komi}" and loaded.result is not None
    match = Match.replay(GameConfig(side=3), evs(loaded.events))
    assert match.phase == "over"
    # every move is the bot's own choice in that position
    replay = Match(GameConfig(side=3))
    for event in texts(loaded.events):
        if replay.phase == "play":
            assert event == bot.choose(replay.game)
        replay.apply(ev(event))
    assert f"first player: komi {komi}" in out and "record saved to" in out


def test_play_person_against_bot_with_undo(bot_path, tmp_path, capsys, monkeypatch):
    """The person (first seat) names komi 3, the bot picks its colour by its heads; after the person's
    second move and the bot's reply the person types 'undo' and plays another move instead."""
    import io
    import sys

    from catena_zero.game.records import load_record
    from catena_zero.terminal import UndoableMatch

    config = GameConfig(side=3)
    bot = Bot.load(bot_path, simulations=4, device="cpu")
    match = UndoableMatch(config)
    lines = ["3"]
    match.apply(ev("komi 3"))
    match.apply(next_turn(bot, match, np.random.default_rng(0)).event)
    person_moves, undone = 0, False
    while match.phase != "over":
        if match.player_to_act == "first":
            if person_moves == 2 and not undone:
                lines.append("undo")
                assert match.undo_turn("first")
                undone = True
                move = match.game.legal_moves()[-1]
            else:
                move = match.game.legal_moves()[0]
            lines.append(move.lower())
            match.apply(ev(move))
            person_moves += 1
        else:
            match.apply(next_turn(bot, match).event)
    assert undone
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    record = tmp_path / "game.txt"
    assert main(["play", "--bot", str(bot_path), "--simulations", "4", "--device", "cpu", "--save", str(record)]) == 0
    out = capsys.readouterr().out
    assert list(load_record(record).events) == match.events
    assert "undone: back to the position before your last move" in out
    assert "the bot tiny.bot is the second player" in " ".join(out.split())


def test_play_bot_flags_are_checked(bot_path, capsys):
    for argv, fragment in (
        (["play", "--bot", str(bot_path), "--side", "4"], "trained for side 3 komi standard"),
        (["play", "--bot", str(bot_path), "--opponent", "random"], "--bot and --opponent"),
        (["play"] + ["--bot", str(bot_path)] * 3, "at most twice"),
        (["play", "--bot", str(bot_path), "--threads", "0"], "--threads"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and fragment in err, (argv, err)


def test_budget_per_call_and_play_and_analyze(tmp_path):
    """choose/analyze take this search's budget instead of the bot's; play_and_analyze
    plays the move choose plays, from one search, and gives that search's analysis."""
    from web_helpers import make_bot_file

    bot = Bot.load(make_bot_file(tmp_path), simulations=2, device="cpu")
    game = Game.replay(GameConfig(side=3, komi=2), ["C3"])
    assert bot.analyze(game).simulations == 2
    assert bot.analyze(game, simulations=7).simulations == 7
    assert bot.analyze(game).simulations == 2  # the bot's own budget is unchanged
    move, analysis = bot.play_and_analyze(game, Budget(simulations=7))
    assert move == bot.choose(game, budget=Budget(simulations=7)) == analysis.best and analysis.simulations == 7
    for rng in (None, np.random.default_rng(0)):
        with pytest.raises(ValueError, match="not both"):
            bot.choose(game, rng, Budget(simulations=3, seconds=1.0))
    with pytest.raises(ValueError, match="positive whole number"):
        bot.analyze(game, simulations=0)


def test_first_stone_values_and_the_stone_closest_to_even_by_hand():
    from catena_zero.search.komi import closest_to_even, first_stone_values

    env = VecEnv(GameConfig(side=3, game_type="no_komi"))
    cells = env.spec.num_cells
    # White's value after Black's stone on cell c: 0.9 - 0.1 c (so Black's is 0.1 c - 0.9); the
    # score margin for White is 10 - c. Black's value is closest to even on cell 9 (exactly 0).
    def evaluator(state):
        stone = state.history[:, 0].astype(np.int64)
        value = (0.9 - 0.1 * stone).astype(np.float32)
        priors = env.legal_actions(state) / env.legal_actions(state).sum(axis=1, keepdims=True)
        return Evaluation(priors=priors.astype(np.float32), value=value, score=(10.0 - stone).astype(np.float32))

    stones, value, score = first_stone_values(evaluator, env)
    assert stones.tolist() == list(range(cells))  # every cell, no button (R7)
    assert value == pytest.approx([0.1 * c - 0.9 for c in range(cells)], abs=1e-6)
    assert score == pytest.approx([c - 10.0 for c in range(cells)], abs=1e-6)
    assert closest_to_even(stones, value, score) == 9
    # Within VALUE_RESOLUTION the score decides: cells 8 and 9 both "even", cell 10 scores 0.
    assert closest_to_even(stones, np.where(stones >= 8, 0.004, 0.5), score) == 10
    with pytest.raises(ValueError, match="no_komi"):
        first_stone_values(evaluator, VecEnv(GameConfig(side=3)))


def test_the_bot_places_the_no_komi_first_stone_closest_to_even(komi_bot_path):
    bot = Bot.load(komi_bot_path, simulations=4, device="cpu")
    config = GameConfig(side=3, game_type="no_komi")
    # The hand-made net values every first stone alike (one opponent stone), so the tie goes to the
    # first cell; choose at move 0 is that choice, not a search for Black's best.
    stone = bot.choose_first_stone(config)
    assert stone == VecEnv(config).spec.action_name(0)
    assert bot.choose(Game(config)) == stone
    with pytest.raises(ValueError, match="no_komi"):
        bot.choose_first_stone(GameConfig(side=3))


def test_the_komi_table_gives_each_rule_set_its_fair_komi_and_crossing(komi_bot_path, capsys):
    # The hand-made net: Black's value tanh(0.5 (6.3 - k)) is > 0 up to komi 6 and < 0 from 7.
    assert main(["komi", "--bot", str(komi_bot_path), "--table", "--device", "cpu"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| bot | side | scoring | fair komi |")
    assert lines[2].startswith(f"| {komi_bot_path.name} | 3 | standard | 6 | 6 | 7 |")  # no_komi has no komi: one row
    # The set-up table: under no_komi, the first stone the bot places and after how many first
    # stones it swaps, as its own choose_first_stone and choose_swap decide.
    assert lines[3] == "" and lines[4].startswith("| bot | side | game type | scoring | the set-up it plays |")
    assert len(lines) == 7
    bot = Bot.load(komi_bot_path, device="cpu")
    config = GameConfig(side=3, game_type="no_komi")
    stone = bot.choose_first_stone(config)
    swaps = 0
    for cell in bot.first_stone_values(config)[0]:
        game = Game(config)
        game.play(cell)
        swaps += bot.choose_swap(game)
    stones = len(bot.first_stone_values(config)[0])
    assert lines[6].startswith(f"| {komi_bot_path.name} | 3 | no_komi | standard | first stone {stone} |")
    assert lines[6].endswith(f"| {swaps} of {stones} first stones |")


def test_setup_event_is_the_one_mapping_of_set_up_answers_to_events():
    """Worked by hand: what a set-up policy answers becomes the R7 event the bot, the page and
    the engine play (bot.players.setup_event); a malformed answer is refused before the match sees it."""
    from catena_zero.bot.players import setup_event
    from catena_zero.game.options import GameConfig

    class Policy:
        def __init__(self, komi=7, colour="black", swap=True):
            self.komi, self.colour, self.swap, self.asked = komi, colour, swap, []

        def choose_komi(self, config):
            return self.komi

        def choose_colour(self, config, komi):
            self.asked.append(komi)
            return self.colour

        def choose_swap(self, game):
            return self.swap

    komi_game = GameConfig(side=3, game_type="komi", komi=9)  # the match's komi, not the config's, is asked
    choosing_komi = Match(komi_game)
    assert setup_event(Policy(komi=7), choosing_komi) == ev("komi 7")
    choosing_colour = Match.replay(komi_game, evs(["komi 5"]))
    policy = Policy(colour="white")
    assert setup_event(policy, choosing_colour) == ev("colour white") and policy.asked == [5]
    no_komi = GameConfig(side=3, game_type="no_komi")
    swapping = Match(no_komi)
    swapping.apply(ev(swapping.game.legal_moves()[0]))  # Black's first stone, placed by the first player
    assert setup_event(Policy(swap=True), swapping) == ev("swap")
    assert setup_event(Policy(swap=False), swapping) == ev("colour white")
    with pytest.raises(TypeError, match="whole number"):
        setup_event(Policy(komi=True), choosing_komi)
    with pytest.raises(TypeError, match="'black' or 'white'"):
        setup_event(Policy(colour="red"), choosing_colour)
    with pytest.raises(ValueError, match="no set-up choice in phase play"):
        setup_event(Policy(), Match.replay(komi_game, evs(["komi 5", "colour black"])))


# ------------------------------------------------------------------------------ one way to play


def test_a_bot_file_moves_the_same_way_in_every_command(bot_path):
    """evaluate/ladder/ablate (``build_agent``: a batched ``NetAgent``), ``play --opponent FILE``
    (``make_player``) and play/engine/serve (``Bot``) are one player: the same search settings and
    the caller's generator, so the same position and seed give the same move; the engine and the
    page pass the position's generator (``next_turn`` with no rng), which keeps their answers per position."""
    from catena_zero.config import Config
    from catena_zero.eval.specs import build_agent, make_player

    agent = build_agent(str(bot_path))
    player = make_player(str(bot_path), Config(game=GameConfig(side=3)))
    bot = Bot.load(bot_path, device="cpu")
    assert agent.search == bot.agent.search  # the file's search settings, no tree reuse
    moves = set()
    for seed in range(6):
        game = play_out(Game(GameConfig(side=3, komi=3)), 1 + seed % 3, seed=seed)
        env = VecEnv(game.config)  # a match's env, at the match's komi
        batched = env.spec.action_name(int(agent.act(env, env.from_games([game]), np.random.default_rng(seed))[0]))
        assert batched == player.choose(game, np.random.default_rng(seed)) == bot.choose(game, np.random.default_rng(seed))
        assert bot.choose(game) == bot.choose(game, bot.position_rng(game))
        moves.add((game.move_number, batched))
        for other in range(3):  # the caller's generator decides, not the bot's own
            moves.add((game.move_number, bot.choose(game, np.random.default_rng(100 + other))))
    assert len(moves) > 3


def test_a_bot_file_makes_the_same_set_up_in_every_command(komi_bot_path):
    """The R7 set-up a bot file makes is its heads' in every command: the batched agent (in an arena
    match it places the no_komi first stone) and its player answer as the ``Bot`` of play and engine."""
    from catena_zero.bot.players import JUDGED
    from catena_zero.eval.agents import RandomAgent
    from catena_zero.eval.arena import play_match
    from catena_zero.eval.specs import build_agent

    bot = Bot.load(komi_bot_path, simulations=2, device="cpu")
    agent = build_agent(str(komi_bot_path), device="cpu")
    player = agent  # an Agent is a Player at batch size one
    assert agent.capabilities.setup == bot.capabilities.setup == JUDGED and agent.capabilities.komi_curve
    rng = np.random.default_rng(0)
    answers = []
    for events in ([], ["komi 2"], ["komi 11"]):  # the komi; the colour at a komi good for White, for Black
        match = Match.replay(GameConfig(side=3), evs(events))
        answers.append(choose_event(player, match, rng))
        assert answers[-1] == choose_event(bot, match, rng)
    assert answers == ["komi 6", "colour black", "colour white"]
    config = GameConfig(side=3, game_type="no_komi")
    first = bot.choose_first_stone(config)
    match = Match(config)
    assert choose_event(player, match, rng) == choose_event(bot, match, rng) == bot.choose(match.game) == first
    match.apply(ev(first))
    assert choose_event(player, match, rng) == choose_event(bot, match, rng)  # swap, or keep White
    result = play_match(agent, RandomAgent(), config, 2, None, rng, opening_plies=0)
    stone = VecEnv(config).spec.action_name
    assert [stone(g.actions[0]) for g in result.games if g.a_black] == [first]
