"""The JSON-lines analysis engine (bot/analysis.py, ``catena-zero analysis``): answers checked
against the reference engine, one batch per query, bad queries answered in one line each."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from catena_zero.bot import Bot
from catena_zero.bot.analysis import run_analysis
from catena_zero.cli import main
from catena_zero.game import GameConfig
from catena_zero.game.rules import Game
from web_helpers import make_bot_file


@pytest.fixture(scope="module")
def bot_path(tmp_path_factory):
    return make_bot_file(tmp_path_factory.mktemp("analysis"))


@pytest.fixture(scope="module")
def bot(bot_path):
    return Bot.load(bot_path, simulations=8, device="cpu", seed=0)


def _answers(bot, *queries, max_simulations: int = 100) -> list[dict]:
    lines = "\n".join(q if isinstance(q, str) else json.dumps(q) for q in queries) + "\n"
    out = io.StringIO()
    assert run_analysis(bot, io.StringIO(lines), out, max_simulations) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _random_game(config: GameConfig, seed: int) -> Game:
    rng, game = np.random.default_rng(seed), Game(config)
    while not game.is_over:
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    return game


@pytest.mark.parametrize("game_type, scoring", [("komi", "standard"), ("no_komi", "longest"), ("double", "quadratic")])
def test_every_position_of_a_whole_game_is_answered_as_the_rules_say(bot, game_type, scoring):
    config = GameConfig(side=3, game_type=game_type, scoring=scoring, komi=3 if game_type == "komi" else 0)
    game = _random_game(config, seed=len(game_type))
    moves = list(game.history)
    turns = list(range(len(moves) + 1))
    answers = _answers(bot, {"id": "g", "side": 3, "game_type": game_type, "scoring": scoring, "komi": config.komi,
                             "moves": moves, "turns": turns, "simulations": 6, "top": 50, "ownership": True})
    assert [a["turn"] for a in answers] == turns and all(a["id"] == "g" for a in answers)
    for answer in answers:
        position = Game.replay(config, moves[:answer["turn"]])
        if position.is_over:
            assert answer == {"id": "g", "turn": answer["turn"], "over": True, "winner": position.winner,
                              "scores": {k: float(v) for k, v in position.scores().items()}}
            continue
        legal = set(position.legal_moves())
        assert answer["to_move"] == position.to_move and answer["best"] in legal
        assert {m["move"] for m in answer["moves"]} <= legal and answer["moves"][0]["move"] == answer["best"]
        assert answer["simulations"] == sum(m["visits"] for m in answer["moves"]) == 6  # top 50 holds them all
        assert -1 <= answer["value"] <= 1 and set(answer["ownership"]) == set(position.spec.names)
    assert answers[-1].get("over") is True  # the whole game: its last position is the end


def test_the_positions_of_a_query_share_one_network_call_per_simulation(bot):
    """One batched search: K positions cost about the network calls of one, not K times them."""
    config = GameConfig(side=3, komi=2)
    moves = list(_random_game(config, seed=5).history)[:8]
    searcher = bot.agent.searcher(bot._env(next(iter(r for r in bot.trained_for if r.covers(config)))))
    real, calls = searcher.eval_fn, []

    def counting(state):
        calls.append(state.batch_size)
        return real(state)

    def use(eval_fn) -> None:  # the agent's evaluator of this env, and that of its searches
        searcher.eval_fn = eval_fn
        for mcts in searcher.searches.values():
            mcts.eval_fn = eval_fn

    use(counting)
    try:
        _answers(bot, {"id": "one", "moves": moves, "turns": [3], "simulations": 8})
        one = len(calls)
        calls.clear()
        _answers(bot, {"id": "all", "moves": moves, "turns": list(range(8)), "simulations": 8})
    finally:
        use(real)
    assert len(calls) <= one + 2 and max(calls) > 1, (one, calls)


def test_a_bad_query_is_one_error_line_naming_it_and_the_engine_goes_on(bot):
    answers = _answers(bot, "not json", "[1, 2]", {"moves": []}, {"id": "u", "colour": "black"},
                       {"id": "m", "moves": ["A1", "A1"]}, {"id": "r", "side": 4},
                       {"id": "t", "moves": ["A1"], "turns": [2]}, {"id": "s", "simulations": 101},
                       {"id": "k", "komi": 99}, "", {"id": "ok", "simulations": 2})
    errors = [(a["id"], a["error"]) for a in answers if "error" in a]
    assert errors == [
        (None, "not a JSON object: Expecting value: line 1 column 1 (char 0)"),
        (None, "a query is a JSON object, got list"),
        (None, "id must be a non-empty string of at most 200 characters"),
        ("u", "unknown field 'colour' (known: id, side, game_type, scoring, komi, moves, turns, simulations, top, "
              "ownership)"),
        ("m", errors[4][1]), ("r", errors[5][1]), ("t", "turns must be move numbers in 0..1 (the moves given), got 2"),
        ("s", "simulations must be a whole number in 1..100, got 101"), ("k", errors[8][1]),
    ]
    assert "move 2 ('A1')" in errors[4][1] and "does not play side 4" in errors[5][1] and "komi" in errors[8][1]
    assert answers[-1]["id"] == "ok" and answers[-1]["turn"] == 0 and len(answers) == 10  # the blank line: nothing


def test_the_command_reads_stdin_and_writes_one_line_per_position(bot_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO('{"id": "q", "moves": ["B2"], "turns": [0, 1]}\n'))
    assert main(["analysis", "--bot", str(bot_path), "--simulations", "4", "--device", "cpu"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(a["id"], a["turn"], a["to_move"], a["simulations"]) for a in out] == [("q", 0, "black", 4),
                                                                                  ("q", 1, "white", 4)]
    assert main(["analysis", "--bot", str(bot_path), "--seconds", "1"]) == 2
    assert "searches by simulation count" in capsys.readouterr().err
