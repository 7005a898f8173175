"""The JSON-lines analysis engine (bot/analysis.py, ``catena-zero analysis``): KataGo's analysis
schema, answers checked against the reference engine, one batch per query, the fair komi for a
query without one, the bot for the query's rules, bad queries answered in one line each, and the
README's example produced by the engine."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from catena_zero.bot import Bot
from catena_zero.bot.analysis import run_analysis
from catena_zero.cli import main
from catena_zero.game import GameConfig
from catena_zero.game.rules import Game
from web_helpers import make_bot_file

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bot_path(tmp_path_factory):
    return make_bot_file(tmp_path_factory.mktemp("analysis"))


@pytest.fixture(scope="module")
def bot(bot_path):
    return Bot.load(bot_path, simulations=8, device="cpu", seed=0)


def _answers(bot, *queries, max_simulations: int = 100, **options) -> list[dict]:
    lines = "\n".join(q if isinstance(q, str) else json.dumps(q) for q in queries) + "\n"
    out = io.StringIO()
    assert run_analysis(bot, io.StringIO(lines), out, max_simulations, **options) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _random_game(config: GameConfig, seed: int) -> Game:
    rng, game = np.random.default_rng(seed), Game(config)
    while not game.is_over:
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    return game


def _pairs(config: GameConfig, moves: list[str]) -> list[list[str]]:
    """KataGo's moves: [colour letter, move], the colour the one to move."""
    game, pairs = Game(config), []
    for move in moves:
        pairs.append([game.to_move[0].upper(), move])
        game.play(move)
    return pairs


@pytest.mark.parametrize("game_type, scoring", [("komi", "standard"), ("no_komi", "longest"), ("double", "quadratic")])
def test_every_position_of_a_whole_game_is_answered_as_the_rules_say(bot, game_type, scoring):
    config = GameConfig(side=3, game_type=game_type, scoring=scoring, komi=3 if game_type == "komi" else 0)
    game = _random_game(config, seed=len(game_type))
    moves = list(game.history)
    turns = list(range(len(moves) + 1))
    answers = _answers(bot, {"id": "g", "rules": f"{game_type}-{scoring}", "boardXSize": 5, "boardYSize": 5,
                             "komi": config.komi, "moves": _pairs(config, moves), "analyzeTurns": turns,
                             "maxVisits": 6, "includeOwnership": True})
    assert [a["turnNumber"] for a in answers] == turns and all(a["id"] == "g" for a in answers)
    assert all(a["isDuringSearch"] is False for a in answers)
    for answer in answers:
        position = Game.replay(config, moves[:answer["turnNumber"]])
        root = answer["rootInfo"]
        assert root["currentPlayer"] == position.to_move[0].upper() and root["komi"] == config.komi
        if position.is_over:
            scores = position.scores()
            assert answer["gameOver"] is True and answer["moveInfos"] == [] and root["visits"] == 0
            assert root["scoreLead"] == scores["black"] - scores["white"]  # Black's side
            assert root["winrate"] == (0.5 if position.winner is None else float(position.winner == "black"))
            continue
        infos = answer["moveInfos"]
        assert [m["order"] for m in infos] == list(range(len(infos)))
        assert root["visits"] == sum(m["visits"] for m in infos) == 6  # every visited move is listed
        for m in infos:
            assert 0 <= m["winrate"] <= 1 and 0 <= m["prior"] <= 1 and m["scoreMean"] == m["scoreLead"]
            line = position.copy()
            assert m["pv"][0] == m["move"]
            for move in m["pv"]:  # the principal variation is a legal line of play
                line.play(move)
        assert len(answer["ownership"]) == 25 and all(-1 <= v <= 1 for v in answer["ownership"])
        # Off the hexagon (the grid's top-left and bottom-right corners) nobody owns anything.
        assert answer["ownership"][0] == answer["ownership"][1] == answer["ownership"][24] == 0
    assert answers[-1].get("gameOver") is True  # the whole game: its last position is the end


def test_values_are_told_from_blacks_side_unless_asked_otherwise(bot):
    """KataGo's reportAnalysisWinratesAs: BLACK by default (its analysis config's), SIDETOMOVE on
    request; where White is to move the two are each other's complement."""
    query = {"id": "p", "moves": [["B", "B2"]], "analyzeTurns": [0, 1], "maxVisits": 8, "komi": 2,
             "includeOwnership": True}
    black = _answers(bot, query)
    mover = _answers(bot, query, report_as="SIDETOMOVE")
    assert black[0]["rootInfo"] == mover[0]["rootInfo"]  # Black to move: the same
    b, m = black[1], mover[1]
    assert b["rootInfo"]["winrate"] == pytest.approx(1 - m["rootInfo"]["winrate"], abs=1e-4)
    assert b["rootInfo"]["scoreLead"] == pytest.approx(-m["rootInfo"]["scoreLead"], abs=1e-3)
    assert [x["winrate"] for x in b["moveInfos"]] == pytest.approx([1 - x["winrate"] for x in m["moveInfos"]],
                                                                   abs=1e-4)
    assert b["ownership"] == pytest.approx([-v for v in m["ownership"]])


def test_a_katago_client_query_works_unchanged(bot):
    """What a KataGo analysis client sends: its version query, then a game with KataGo's move
    pairs, a decimal komi, its board size fields, fields this engine does not use (a warning,
    as KataGo gives one) and reports during the search; every turn ends with exactly one answer
    whose isDuringSearch is false, the marker clients wait for."""
    version = {"id": "v", "action": "query_version"}
    query = {"id": "foo", "moves": [["B", "B2"], ["W", "C4"]], "rules": "komi-standard", "komi": 8.0,
             "boardXSize": 5, "boardYSize": 5, "analyzeTurns": [0, 1, 2], "maxVisits": 64, "includeOwnership": True,
             "priority": 0, "reportDuringSearchEvery": 0.001}
    answers = _answers(bot, version, query)
    assert answers[0] == {**version, "version": answers[0]["version"], "git_hash": "<omitted>"}
    assert answers[1] == {"warning": answers[1]["warning"], "field": "priority", "id": "foo"}
    results = answers[2:]
    final = [a for a in results if not a["isDuringSearch"]]
    during = [a for a in results if a["isDuringSearch"]]
    assert sorted(a["turnNumber"] for a in final) == [0, 1, 2] and during
    for a in during:
        assert a["rootInfo"]["visits"] < 64 and a["moveInfos"]
    for a in final:
        assert a["rootInfo"]["visits"] == 64 and a["rootInfo"]["komi"] == 8
        assert len(a["ownership"]) == 5 * 5
        assert sorted(a["moveInfos"], key=lambda m: m["order"]) == a["moveInfos"]
        assert {"move", "visits", "winrate", "scoreLead", "prior", "order", "pv"} <= set(a["moveInfos"][0])
    assert results.index(final[0]) > results.index(during[0])  # the reports come before the answers


def test_a_query_without_komi_is_analysed_at_the_bots_fair_komi(bot, monkeypatch):
    monkeypatch.setattr(bot, "choose_komi", lambda config: 5)  # the fair komi its heads name (R7)
    without = _answers(bot, {"id": "a", "moves": ["B2"], "analyzeTurns": [0, 1], "maxVisits": 8})
    given = _answers(bot, {"id": "a", "moves": ["B2"], "analyzeTurns": [0, 1], "maxVisits": 8, "komi": 5})
    assert without == given and without[0]["rootInfo"]["komi"] == 5
    double = _answers(bot, {"id": "d", "rules": "double-quadratic", "maxVisits": 2})
    assert double[0]["rootInfo"]["komi"] == 0  # no komi under game type double (R8)


def test_a_query_for_other_rules_is_answered_by_the_bot_for_them(bot, tmp_path):
    from catena_zero.bot import RuleSet
    from bot_files import save_tiny_checkpoint
    from catena_zero.artifacts.botfile import export_bot
    from catena_zero.artifacts.checkpoint import load_checkpoint

    out = tmp_path / "standard.bot"
    export_bot(load_checkpoint(save_tiny_checkpoint(tmp_path / "run")), out,
               trained_for=[RuleSet(3, "komi", "standard")])
    first = Bot.load(out, simulations=4, device="cpu")
    query = {"id": "l", "rules": "komi-longest", "komi": 2, "maxVisits": 4}
    refused = _answers(first, query)
    assert refused[0]["field"] == "rules" and "does not play side 3 komi longest" in refused[0]["error"]
    asked = []
    answered = _answers(first, query, bot_for=lambda config: asked.append(config) or bot)
    assert answered[0]["rootInfo"]["visits"] == 4 and asked[0].scoring == "longest"


def test_the_command_without_a_bot_file_takes_the_shipped_bot_for_the_query(capsys, monkeypatch):
    """As engine does on boardsize: a side-4 query gets the shipped side-4 bot."""
    monkeypatch.setattr("sys.stdin", io.StringIO('{"id":"s4","boardXSize":7,"boardYSize":7,"komi":7,'
                                                 '"moves":[["B","D4"]],"maxVisits":2}\n'))
    assert main(["analysis", "--simulations", "2", "--device", "cpu"]) == 0
    captured = capsys.readouterr()
    answer = json.loads(captured.out)
    assert answer["id"] == "s4" and answer["turnNumber"] == 1 and answer["rootInfo"]["currentPlayer"] == "W"
    assert "side4.bot" in captured.err.splitlines()[-1]


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
        _answers(bot, {"id": "one", "moves": moves, "komi": 2, "analyzeTurns": [3], "maxVisits": 8})
        one = len(calls)
        calls.clear()
        _answers(bot, {"id": "all", "moves": moves, "komi": 2, "analyzeTurns": list(range(8)), "maxVisits": 8})
    finally:
        use(real)
    assert len(calls) <= one + 2 and max(calls) > 1, (one, calls)


def test_a_bad_query_is_one_error_line_naming_it_and_the_engine_goes_on(bot):
    answers = _answers(bot, "not json", "[1, 2]", {"moves": []}, {"id": "m", "moves": [["B", "A1"], ["W", "A1"]]},
                       {"id": "c", "moves": [["W", "B2"]]}, {"id": "p", "moves": [["B", "pass"]]},
                       {"id": "r", "boardXSize": 7, "boardYSize": 7}, {"id": "x", "boardXSize": 5, "boardYSize": 7},
                       {"id": "t", "moves": ["A1"], "analyzeTurns": [2]}, {"id": "s", "maxVisits": 101},
                       {"id": "k", "komi": 7.5}, {"id": "n", "komi": -1}, {"id": "i", "initialStones": [["B", "B2"]]},
                       {"id": "g", "rules": "go"}, "", {"id": "ok", "maxVisits": 2, "komi": 0})
    errors = [(a.get("id"), a.get("field"), a["error"]) for a in answers if "error" in a]
    assert [e[:2] for e in errors] == [(None, None), (None, None), (None, "id"), ("m", "moves"), ("c", "moves"),
                                       ("p", "moves"), ("r", "rules"), ("x", "boardXSize"), ("t", "analyzeTurns"),
                                       ("s", "maxVisits"), ("k", "komi"), ("n", "komi"), ("i", "initialStones"),
                                       ("g", "rules")]
    text = dict((e[0], e[2]) for e in errors[3:])
    assert "move 2 ('A1')" in text["m"] and "given to white, but black is to move" in text["c"]
    assert "no pass" in text["p"] and "does not play side 4" in text["r"] and "2n - 1" in text["x"]
    assert "7.5 is not a whole number" in text["k"] and "R6" in text["k"] and "negative" in text["n"]
    assert "\n" not in "".join(e[2] for e in errors)
    assert answers[-1]["id"] == "ok" and answers[-1]["turnNumber"] == 0 and len(answers) == 15  # blank: nothing


def test_the_command_reads_stdin_and_writes_one_line_per_position(bot_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO('{"id": "q", "komi": 0, "moves": [["B", "B2"]], '
                                                 '"analyzeTurns": [0, 1]}\n'))
    assert main(["analysis", "--bot", str(bot_path), "--simulations", "4", "--device", "cpu"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(a["id"], a["turnNumber"], a["rootInfo"]["currentPlayer"], a["rootInfo"]["visits"]) for a in out] == [
        ("q", 0, "B", 4), ("q", 1, "W", 4)]
    assert main(["analysis", "--bot", str(bot_path), "--seconds", "1"]) == 2
    assert "searches by simulation count" in capsys.readouterr().err
    assert main(["analysis", "--bot", str(bot_path), "--threads", str(2**40)]) == 2
    assert "argument --threads: must be in" in capsys.readouterr().err


def _shape(value):
    """A JSON value's shape: the keys of its objects, the shape of a list's first item."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__


def _values(answer, path=""):
    """Every leaf of an answer by its path: numbers (rounded by the engine to 4 places) kept apart
    from moves, counts and flags, which must match exactly."""
    if isinstance(answer, dict):
        return {k: v for key, value in answer.items() for k, v in _values(value, f"{path}.{key}").items()}
    if isinstance(answer, list):
        return {k: v for i, value in enumerate(answer) for k, v in _values(value, f"{path}[{i}]").items()}
    return {path: answer}


def test_the_readmes_example_is_what_the_engine_answers(capsys, monkeypatch):
    """The README shows a query and the shipped bot's answers (``scripts/readme_examples.py`` writes
    them): the query is run against the shipped bot, and every field, move, visit count and value
    must be the README's (values to 2e-3, the play of float rounding across CPUs). A new shipped bot
    fails this until the script is run again."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n\$ echo '(?P<query>[^']+)' \| catena-zero analysis\n(?P<out>(?:\{.*\}\n)+)```", readme)
    assert block, "the README's analysis example (a query piped to catena-zero analysis, its answers)"
    shown = [json.loads(line) for line in block["out"].splitlines()]
    monkeypatch.setattr("sys.stdin", io.StringIO(block["query"] + "\n"))
    assert main(["analysis", "--device", "cpu"]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [_shape(a) for a in got] == [_shape(a) for a in shown]
    want, have = _values(shown), _values(got)
    assert want.keys() == have.keys()
    for key, value in want.items():
        if isinstance(value, float) and not isinstance(have[key], bool):
            assert have[key] == pytest.approx(value, abs=2e-3), (
                f"{key}: README {value}, engine {have[key]}; run python scripts/readme_examples.py")
        else:
            assert have[key] == value, f"{key}: README {value!r}, engine {have[key]!r}; run python scripts/readme_examples.py"
